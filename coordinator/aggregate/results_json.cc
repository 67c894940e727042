// results.json (results_writer.h): the document, its sections (audits, node effects, warm state)
// and one configuration's entry; which configurations a summarised document lists.
#include <algorithm>
#include <cmath>

#include "coordinator/aggregate/results_text.h"
#include "coordinator/aggregate/results_writer.h"

namespace fleetsweep {
namespace {

nlohmann::json SummaryJson(const MetricSummary& m) {
  return {{"n", m.n},     {"samples", m.samples}, {"median", m.median},
          {"mad", m.mad}, {"ci_low", m.ci_low},   {"ci_high", m.ci_high}};
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
                     {"redealing", v.redealing},
                     {"units", v.units},
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
       "permutation test of the within-block ranks of log execution medians, level labels "
       "re-dealt within blocks of "
       "configurations sharing every other parameter (the labels of executions, or of whole "
       "configurations in large designs, or of whole sessions when each persistent session ran "
       "one level: redealing): active when p <= 0.05; no_effect when "
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
  return {{"verdict", t.verdict},      {"p_value", Num(t.p_value)},
          {"min_p", Num(t.min_p)},     {"exact", t.exact},
          {"blocks", t.blocks},        {"executions_a", t.group_a},
          {"executions_b", t.group_b}, {"tested_blocks", t.tested_blocks},
          {"change", Num(t.change)}};
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
          {"between_sessions", WarmTestJson(w.between_sessions)},
          {"session_starts", w.session_starts},
          {"session_start_seconds", Num(w.session_start_seconds)},
          {"attempt_seconds", Num(w.attempt_seconds)},
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
  cj["ci_resamples"] = c.primary.resamples;
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
  if (!c.unit_vs_best.empty()) cj["unit_vs_best"] = c.unit_vs_best;
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
    // the same ones, "tied_total" counts all, results.csv marks all): with one execution per
    // configuration most of a large sweep can be "tied".
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
  // Summarised: only the tied members that are listed (the best `top`), in rank order.
  std::vector<int> tied_named(r.tied.begin(), r.tied.end());
  if (listed.size() < r.configs.size()) {
    std::sort(tied_named.begin(), tied_named.end());
    tied_named.resize(
        std::min(tied_named.size(), static_cast<size_t>(std::max<int64_t>(1, options.top))));
  }
  nlohmann::json tied = nlohmann::json::array();
  for (int i : tied_named) {
    tied.push_back({{"key", r.configs[i].key}, {"params", r.configs[i].params}});
  }
  j["tied"] = tied;
  j["tied_total"] = r.tied.size();
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
                        {"session_comparisons", t.session_comparisons},
                        {"within_session_comparisons", t.within_session_comparisons},
                        {"fit_comparisons", t.fit_comparisons},
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

}  // namespace fleetsweep
