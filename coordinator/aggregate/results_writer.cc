#include "coordinator/aggregate/results_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "common/store/execution_count.h"

namespace fleetsweep {
namespace {

nlohmann::json SummaryJson(const MetricSummary& m) {
  return {{"n", m.n},     {"samples", m.samples}, {"median", m.median},
          {"mad", m.mad}, {"ci_low", m.ci_low},   {"ci_high", m.ci_high}};
}

std::string CsvEscape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c;
  }
  return o + "\"";
}

std::string ParamsText(const ConfigResult& c) {
  std::string s;
  for (const auto& [k, v] : c.params) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

std::string RegionText(const InfeasibleRegion& g) {
  std::string classes;
  for (const auto& [cls, n] : g.classes) {
    classes +=
        (classes.empty() ? "" : ", ") + (g.classes.size() > 1 ? std::to_string(n) + " " : "") + cls;
  }
  return g.param + "=" + g.value + ": " + std::to_string(g.infeasible) + " of " +
         std::to_string(g.total) + " configurations infeasible (" + classes + ")";
}

// The failures behind the infeasible configurations, one example detail per failure class.
std::string FailureExamples(const SweepResult& r) {
  std::map<std::string, std::pair<int, std::string>> by_class;  // class -> (configs, example)
  for (const auto& c : r.configs) {
    if (c.status != ConfigOutcome::kInfeasible) continue;
    auto& [n, example] = by_class[c.failure_class.empty() ? "unknown" : c.failure_class];
    ++n;
    if (example.empty()) {
      example = c.failure_detail.substr(0, c.failure_detail.find('\n'));
      if (example.size() > 160) example = example.substr(0, 157) + "...";
      example += "  [" + ParamsText(c) + "]";
    }
  }
  std::string out;
  for (const auto& [cls, e] : by_class) {
    out += "  " + cls + " (" + std::to_string(e.first) + " configuration" +
           (e.first == 1 ? "" : "s") + "), e.g.: " + e.second + "\n";
  }
  return out;
}

nlohmann::json Num(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(); }

nlohmann::json AuditJson(const SweepResult& r) {
  nlohmann::json injection = nlohmann::json::array();
  for (const auto& v : r.injection) {
    injection.push_back({{"param", v.param},
                         {"verdict", Name(v.verdict)},
                         {"pairs", v.pairs},
                         {"differing_pairs", v.differing_pairs},
                         {"pairs_without_fingerprint", v.pairs_without_fingerprint},
                         {"example", v.example}});
  }
  nlohmann::json inert = nlohmann::json::array();
  for (const auto& v : r.inert) {
    nlohmann::json effects = nlohmann::json::object();
    for (const auto& [level, e] : v.level_effects) effects[level] = Num(e);
    inert.push_back({{"param", v.param},
                     {"verdict", Name(v.verdict)},
                     {"test", v.test},
                     {"statistic", Num(v.statistic)},
                     {"p_value", Num(v.p_value)},
                     {"min_p", Num(v.min_p)},
                     {"exact", v.exact},
                     {"arrangements", Num(v.arrangements)},
                     {"spread", Num(v.spread)},
                     {"levels", v.levels},
                     {"blocks", v.blocks},
                     {"observations", v.observations},
                     {"level_effects", effects},
                     {"note", v.note}});
  }
  nlohmann::json declared = nlohmann::json::array();
  for (const auto& d : r.declared_inert)
    declared.push_back({{"param", d.param}, {"reason", d.reason}});
  nlohmann::json regions = nlohmann::json::array();
  for (const auto& g : r.infeasible_regions) {
    regions.push_back({{"param", g.param},
                       {"value", g.value},
                       {"infeasible", g.infeasible},
                       {"total", g.total},
                       {"whole", g.whole},
                       {"classes", g.classes},
                       {"text", RegionText(g)}});
  }
  nlohmann::json contradictions = nlohmann::json::array();
  for (const auto& c : r.contradictions) {
    contradictions.push_back({{"param", c.param},
                              {"injection", Name(c.injection)},
                              {"effect", Name(c.effect)},
                              {"text", c.text}});
  }
  return {
      {"injection", injection},
      {"inert", inert},
      {"inert_rule",
       "permutation test of log execution medians, level labels re-dealt within blocks of "
       "configurations sharing every other parameter: active when p <= 0.05; no_effect when "
       "p > 0.05, p <= 0.05 was reachable and the level effects spread < 2%; otherwise "
       "inconclusive (too few blocks/executions, or too noisy)"},
      {"contradictions", contradictions},
      {"declared_inert", declared},
      {"stop_inert_early", {{"requested", r.stop_inert_early_requested}, {"implemented", false}}},
      {"infeasible_regions", regions}};
}

nlohmann::json NodeEffectsJson(const SweepResult& r) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& e : r.node_effects) {
    nlohmann::json drift = nullptr;
    if (e.drift_tested) {
      drift = {{"drift", e.drift}, {"p_value", Num(e.drift_p)}, {"change", Num(e.drift_change)}};
    }
    nodes.push_back({{"node", e.node},
                     {"effect", Num(e.effect)},
                     {"ci_low", Num(e.ci_low)},
                     {"ci_high", Num(e.ci_high)},
                     {"executions", e.executions},
                     {"reference_samples", e.reference_samples},
                     {"reference_attempts", e.reference_attempts},
                     {"reference_effect", Num(e.reference_effect)},
                     {"drift", drift},
                     {"applied", e.applied}});
  }
  return {{"applied", r.node_effects_applied},
          {"method", r.node_effects_method},
          {"note", r.node_effects_note},
          {"nodes", nodes}};
}

nlohmann::json WarmTestJson(const WarmStateTest& t) {
  return {{"verdict", t.verdict},      {"p_value", Num(t.p_value)}, {"min_p", Num(t.min_p)},
          {"exact", t.exact},          {"blocks", t.blocks},        {"executions_a", t.group_a},
          {"executions_b", t.group_b}, {"change", Num(t.change)}};
}

nlohmann::json WarmStateJson(const SweepResult& r) {
  const WarmStateAudit& w = r.warm_state;
  return {{"persistent", w.persistent},
          {"executions", w.executions},
          {"max_position", w.max_position},
          {"test",
           "block_permutation_log_execution_medians (blocks: configuration x node), alpha 0.01"},
          {"first_vs_later", WarmTestJson(w.first_vs_later)},
          {"drift", WarmTestJson(w.drift)},
          {"note", w.note}};
}

nlohmann::json ConfigJson(const ConfigResult& c, size_t rank) {
  nlohmann::json cj;
  cj["rank"] = rank;
  cj["key"] = c.key;
  cj["params"] = c.params;
  cj["status"] = Name(c.status);
  cj["n"] = c.primary.n;
  cj["samples"] = c.primary.samples;
  cj["median"] = c.primary.median;
  cj["mad"] = c.primary.mad;
  cj["ci_low"] = c.primary.ci_low;
  cj["ci_high"] = c.primary.ci_high;
  cj["attempts"] = c.attempts;
  cj["ok_attempts"] = c.ok_attempts;
  cj["failed_attempts"] = c.failed_attempts;
  cj["fingerprints"] = c.fingerprints;
  cj["nodes"] = c.nodes;
  nlohmann::json metrics = nlohmann::json::object();
  for (const auto& [name, m] : c.metrics) metrics[name] = SummaryJson(m);
  cj["metrics"] = metrics;
  if (!c.failure_class.empty()) {
    cj["failure"] = {{"class", c.failure_class},
                     {"detail", c.failure_detail},
                     {"by_class", c.failures_by_class}};
  }
  if (c.violates_bound) {
    cj["violates_bound"] = true;
    cj["bound_violations"] = c.bound_violations;
  }
  cj["raw"] = SummaryJson(c.raw_primary);
  cj["p_vs_best"] = Num(c.p_vs_best);
  cj["log_diff_vs_best"] = Num(c.log_diff_vs_best);
  return cj;
}

// Which configurations (indices, rank order) results.json lists: all of them, or above
// options.full_limit the top options.top plus the winner, the configurations the winner test names
// and the best options.top (at least 1) of the tied set.
std::vector<size_t> ListedConfigs(const SweepResult& r, const ResultsOptions& options) {
  const size_t total = r.configs.size();
  const bool summarise = options.full_limit > 0 && total > static_cast<size_t>(options.full_limit);
  const size_t top =
      summarise ? std::min(total, static_cast<size_t>(std::max<int64_t>(0, options.top))) : total;
  std::vector<bool> named(total, false);
  if (summarise) {
    if (r.winner >= 0) named[r.winner] = true;
    // The tied set in full only up to `top` of its members (rank order; the "tied" array names
    // all): with one execution per configuration most of a large sweep can be "tied".
    std::vector<int> tied(r.tied.begin(), r.tied.end());
    std::sort(tied.begin(), tied.end());
    for (size_t k = 0; k < tied.size() && k < std::max<size_t>(top, 1); ++k) named[tied[k]] = true;
    const std::set<std::string> keys = {r.winner_test.best_key, r.winner_test.runner_up_key,
                                        r.winner_test.weakest_key};
    for (size_t i = top; i < total; ++i) {
      if (!r.configs[i].key.empty() && keys.count(r.configs[i].key)) named[i] = true;
    }
  }
  std::vector<size_t> listed;
  listed.reserve(top);
  for (size_t i = 0; i < total; ++i) {
    if (i < top || named[i]) listed.push_back(i);
  }
  return listed;
}

}  // namespace

nlohmann::json ResultsToJson(const SweepResult& r, const ResultsOptions& options) {
  nlohmann::json j;
  j["sweep"] = r.sweep;
  j["valid"] = r.valid;
  j["invalid_reasons"] = r.invalid_reasons;
  j["metric"] = r.metric;
  j["goal"] = r.goal;
  j["summary"] = {{"configurations", r.configs.size()}, {"done", r.done},
                  {"infeasible", r.infeasible},         {"unfinished", r.unfinished},
                  {"attempts", r.total_attempts},       {"failed_attempts", r.failed_attempts},
                  {"samples", r.total_samples}};
  j["interrupted"] = r.interrupted;
  if (r.space_configurations > 0) {
    j["summary"]["space_configurations"] = r.space_configurations;
    j["summary"]["not_run"] =
        std::max<int64_t>(0, r.space_configurations - static_cast<int64_t>(r.configs.size()));
  }
  const std::vector<size_t> listed = ListedConfigs(r, options);
  nlohmann::json configs = nlohmann::json::array();
  for (size_t i : listed) configs.push_back(ConfigJson(r.configs[i], i + 1));
  j["configurations"] = configs;
  if (listed.size() < r.configs.size()) {
    j["configurations_truncated"] = {
        {"total", r.configs.size()},
        {"listed", listed.size()},
        {"top", std::min<int64_t>(options.top, static_cast<int64_t>(r.configs.size()))},
        {"full_limit", options.full_limit},
        {"rule",
         "more configurations than full_limit: the top `top` by rank are listed, plus the "
         "winner, the configurations the winner test names and the best `top` of the tied set"},
        {"all_in", "results.csv"}};
  }
  if (r.winner >= 0) {
    j["winner"] = {{"key", r.configs[r.winner].key}, {"params", r.configs[r.winner].params}};
  } else {
    j["winner"] = nullptr;
  }
  nlohmann::json tied = nlohmann::json::array();
  for (int i : r.tied) tied.push_back({{"key", r.configs[i].key}, {"params", r.configs[i].params}});
  j["tied"] = tied;
  j["winner_rule"] = r.winner_rule;
  if (r.winner_test.done) {
    const WinnerTest& t = r.winner_test;
    j["winner_test"] = {{"best", t.best_key},
                        {"runner_up", t.runner_up_key},
                        {"test", t.test},
                        {"family_alpha", Num(t.family_alpha)},
                        {"comparison_alpha", Num(t.comparison_alpha)},
                        {"comparisons", t.comparisons},
                        {"looks", t.looks},
                        {"runner_up_p", Num(t.runner_up_p)},
                        {"runner_up_log_diff", Num(t.runner_up_log_diff)},
                        {"max_p", Num(t.max_p)},
                        {"weakest", t.weakest_key},
                        {"separated", t.separated}};
  } else {
    j["winner_test"] = nullptr;
  }
  j["audit"] = AuditJson(r);
  j["node_effects"] = NodeEffectsJson(r);
  j["warm_state"] = WarmStateJson(r);
  j["warnings"] = r.warnings;
  return j;
}

std::string ResultsToCsv(const SweepResult& r) {
  std::set<std::string> names;
  for (const auto& c : r.configs) {
    for (const auto& [k, v] : c.params) names.insert(k);
  }
  std::ostringstream o;
  o << "rank,key,status";
  for (const auto& n : names) o << "," << CsvEscape(n);
  o << ",n,samples,median,mad,ci_low,ci_high,attempts,failed_attempts,failure_class,"
       "fingerprints\n";
  for (size_t i = 0; i < r.configs.size(); ++i) {
    const ConfigResult& c = r.configs[i];
    o << i + 1 << "," << c.key << "," << Name(c.status);
    for (const auto& n : names) {
      auto it = c.params.find(n);
      o << "," << (it == c.params.end() ? "" : CsvEscape(it->second));
    }
    std::string fps;
    for (const auto& f : c.fingerprints) fps += (fps.empty() ? "" : " ") + f;
    o << "," << c.primary.n << "," << c.primary.samples << "," << c.primary.median << ","
      << c.primary.mad << "," << c.primary.ci_low << "," << c.primary.ci_high << "," << c.attempts
      << "," << c.failed_attempts << "," << c.failure_class << "," << fps << "\n";
  }
  return o.str();
}

std::string SummaryTable(const SweepResult& r, int rows) {
  std::ostringstream o;
  char line[768];
  const std::string bar(78, '!');
  if (r.interrupted) {
    o << "INTERRUPTED: the sweep stopped before it finished; results cover the configurations "
         "that ran";
    if (r.space_configurations > 0) {
      o << " (" << r.configs.size() << " of " << r.space_configurations << "; "
        << std::max<int64_t>(0, r.space_configurations - static_cast<int64_t>(r.configs.size()))
        << " never ran and are not listed)";
    }
    o << "\n";
  }
  if (!r.valid) {
    o << bar << "\n!! SWEEP RESULT INVALID: no speedup from this sweep can be defended\n";
    for (const auto& why : r.invalid_reasons) o << "!!   " << why << "\n";
    o << bar << "\n";
  }
  std::snprintf(line, sizeof line, "%-4s %-16s %12s %25s %5s %7s  %s\n", "rank", "config",
                r.metric.c_str(), "95% CI", "execs", "samples", "parameters");
  o << line;
  int shown = 0;
  for (size_t i = 0; i < r.configs.size() && shown < rows; ++i) {
    const ConfigResult& c = r.configs[i];
    if (c.primary.n == 0) continue;
    std::snprintf(line, sizeof line, "%-4zu %-16s %12.4g   [%10.4g, %10.4g] %5lld %7lld  %s%s\n",
                  i + 1, c.key.c_str(), c.primary.median, c.primary.ci_low, c.primary.ci_high,
                  static_cast<long long>(c.primary.n), static_cast<long long>(c.primary.samples),
                  ParamsText(c).c_str(), c.violates_bound ? "  (violates a metric bound)" : "");
    o << line;
    ++shown;
  }
  o << "configurations: " << r.configs.size() << " (" << r.done << " done, " << r.infeasible
    << " infeasible, " << r.unfinished << " unfinished); "
    << ExecutionsText({r.total_attempts, r.failed_attempts}) << ", " << r.total_samples
    << " samples\n";
  if (r.infeasible > 0) o << "why configurations are infeasible:\n" << FailureExamples(r);
  if (!r.infeasible_regions.empty()) {
    o << "infeasible regions:\n";
    for (size_t k = 0; k < r.infeasible_regions.size() && k < 12; ++k) {
      const InfeasibleRegion& g = r.infeasible_regions[k];
      o << "  " << RegionText(g) << (g.whole ? "   <== the whole region" : "") << "\n";
    }
  }
  if (!r.injection.empty()) {
    o << "injection audit (fingerprints of configurations differing in one parameter):\n";
    for (const auto& v : r.injection) {
      std::snprintf(line, sizeof line, "  %-24s %-15s %d of %d pairs differ%s\n", v.param.c_str(),
                    Name(v.verdict), v.differing_pairs, v.pairs,
                    v.verdict == Injection::kNotInjected     ? "   <== NEVER REACHED WHAT RAN"
                    : v.verdict == Injection::kNoFingerprint ? "   <== no fingerprint: unchecked"
                                                             : "");
      o << line;
    }
  }
  if (!r.inert.empty()) {
    o << "parameter effects (permutation test of log execution medians within blocks, " << r.metric
      << "):\n";
    for (const auto& v : r.inert) {
      if (v.verdict == Effect::kUntested) {
        o << "  " << v.param << ": untested (" << v.note << ")\n";
        continue;
      }
      std::snprintf(line, sizeof line,
                    "  %-24s %-12s p=%.3g spread=%.2f%% %d blocks, %d executions%s%s\n",
                    v.param.c_str(), Name(v.verdict), v.p_value, 100 * v.spread, v.blocks,
                    v.observations, v.note.empty() ? "" : ": ", v.note.c_str());
      o << line;
    }
  }
  for (const auto& d : r.declared_inert) {
    o << "  declared inert in the spec: " << d.param << " (" << d.reason << ")\n";
  }
  if (r.node_effects.size() > 1 || r.node_effects_applied) {
    o << "node effects (" << (r.node_effects_applied ? "REMOVED before comparing" : "not removed")
      << "; " << r.node_effects_note << "):\n";
    for (const auto& e : r.node_effects) {
      std::snprintf(line, sizeof line,
                    "  %-20s effect %.4f [%.4f, %.4f] from %d executions; reference alone %.4f%s\n",
                    e.node.c_str(), e.effect, e.ci_low, e.ci_high, e.executions, e.reference_effect,
                    e.drift ? "  DRIFT" : "");
      o << line;
    }
  }
  if (r.warm_state.persistent) {
    const WarmStateAudit& w = r.warm_state;
    std::snprintf(line, sizeof line,
                  "warm state (%d executions, positions up to %d): first vs later %s (p=%.3g, "
                  "%d blocks); drift %s (p=%.3g)\n",
                  w.executions, w.max_position, w.first_vs_later.verdict.c_str(),
                  w.first_vs_later.p_value, w.first_vs_later.blocks, w.drift.verdict.c_str(),
                  w.drift.p_value);
    o << line;
  }
  for (const auto& c : r.contradictions) o << "CONTRADICTION: " << c.text << "\n";
  if (r.winner >= 0) {
    o << "winner: " << ParamsText(r.configs[r.winner]) << " (beats every other configuration";
    if (r.winner_test.done) {
      std::snprintf(line, sizeof line,
                    "; largest p %.3g <= %.3g per comparison, family-wise false-winner rate "
                    "<= %.3g",
                    r.winner_test.max_p, r.winner_test.comparison_alpha,
                    r.winner_test.family_alpha);
      o << line;
    }
    o << ")\n";
  } else if (!r.tied.empty()) {
    o << "no defensible winner: " << r.tied.size()
      << " configurations are statistically tied for best"
      << (r.valid ? "" : " (and the sweep is invalid)") << ":\n";
    for (size_t k = 0; k < r.tied.size() && k < 10; ++k) {
      o << "  " << ParamsText(r.configs[r.tied[k]]) << "\n";
    }
  } else {
    o << "no configuration produced samples\n";
  }
  for (const auto& w : r.warnings) o << "warning: " << w << "\n";
  if (!r.valid) o << bar << "\n!! SWEEP RESULT INVALID (see above)\n" << bar << "\n";
  return o.str();
}

Status WriteFileAtomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Status::Unavailable(tmp + ": cannot write");
    out << content;
    if (!out.flush()) return Status::Unavailable(tmp + ": write failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return Status::Unavailable(path + ": cannot rename from " + tmp);
  }
  return Status::Ok();
}

Status WriteResults(const std::string& dir, const SweepResult& r, const ResultsOptions& options) {
  FS_RETURN_IF_ERROR(
      WriteFileAtomically(dir + "/results.json", ResultsToJson(r, options).dump(2) + "\n"));
  FS_RETURN_IF_ERROR(WriteFileAtomically(dir + "/results.csv", ResultsToCsv(r)));
  return WriteFileAtomically(dir + "/summary.txt", SummaryTable(r, 20));
}

}  // namespace fleetsweep
