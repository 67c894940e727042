#include "coordinator/results_writer.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace fleetsweep {
namespace {

nlohmann::json SummaryJson(const MetricSummary& m) {
  return {{"n", m.n}, {"median", m.median}, {"mad", m.mad}, {"ci_low", m.ci_low},
          {"ci_high", m.ci_high}};
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

}  // namespace

nlohmann::json ResultsToJson(const SweepResult& r) {
  nlohmann::json j;
  j["sweep"] = r.sweep;
  j["metric"] = r.metric;
  j["goal"] = r.goal;
  j["summary"] = {{"configurations", r.configs.size()}, {"done", r.done},
                  {"infeasible", r.infeasible},           {"unfinished", r.unfinished},
                  {"attempts", r.total_attempts},         {"samples", r.total_samples}};
  nlohmann::json configs = nlohmann::json::array();
  for (size_t i = 0; i < r.configs.size(); ++i) {
    const ConfigResult& c = r.configs[i];
    nlohmann::json cj;
    cj["rank"] = i + 1;
    cj["key"] = c.key;
    cj["params"] = c.params;
    cj["status"] = c.status;
    cj["n"] = c.primary.n;
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
      cj["failure"] = {{"class", c.failure_class}, {"detail", c.failure_detail},
                       {"by_class", c.failures_by_class}};
    }
    if (c.violates_bound) cj["violates_bound"] = true;
    configs.push_back(cj);
  }
  j["configurations"] = configs;
  if (r.winner >= 0) {
    j["winner"] = {{"key", r.configs[r.winner].key}, {"params", r.configs[r.winner].params}};
  } else {
    j["winner"] = nullptr;
  }
  nlohmann::json tied = nlohmann::json::array();
  for (int i : r.tied) tied.push_back({{"key", r.configs[i].key}, {"params", r.configs[i].params}});
  j["tied"] = tied;
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
  o << ",n,median,mad,ci_low,ci_high,attempts,failed_attempts,failure_class,fingerprints\n";
  for (size_t i = 0; i < r.configs.size(); ++i) {
    const ConfigResult& c = r.configs[i];
    o << i + 1 << "," << c.key << "," << c.status;
    for (const auto& n : names) {
      auto it = c.params.find(n);
      o << "," << (it == c.params.end() ? "" : CsvEscape(it->second));
    }
    std::string fps;
    for (const auto& f : c.fingerprints) fps += (fps.empty() ? "" : " ") + f;
    o << "," << c.primary.n << "," << c.primary.median << "," << c.primary.mad << ","
      << c.primary.ci_low << "," << c.primary.ci_high << "," << c.attempts << ","
      << c.failed_attempts << "," << c.failure_class << "," << fps << "\n";
  }
  return o.str();
}

std::string SummaryTable(const SweepResult& r, int rows) {
  std::ostringstream o;
  char line[512];
  std::snprintf(line, sizeof line, "%-4s %-16s %12s %25s %6s  %s\n", "rank", "config", r.metric.c_str(),
                "95% CI", "n", "parameters");
  o << line;
  int shown = 0;
  for (size_t i = 0; i < r.configs.size() && shown < rows; ++i) {
    const ConfigResult& c = r.configs[i];
    if (c.primary.n == 0) continue;
    std::snprintf(line, sizeof line, "%-4zu %-16s %12.4g   [%10.4g, %10.4g] %6lld  %s\n", i + 1,
                  c.key.c_str(), c.primary.median, c.primary.ci_low, c.primary.ci_high,
                  static_cast<long long>(c.primary.n), ParamsText(c).c_str());
    o << line;
    ++shown;
  }
  o << "configurations: " << r.configs.size() << " (" << r.done << " done, " << r.infeasible
    << " infeasible, " << r.unfinished << " unfinished); attempts " << r.total_attempts
    << ", samples " << r.total_samples << "\n";
  for (const auto& c : r.configs) {
    if (c.status == "infeasible") {
      o << "infeasible: " << ParamsText(c) << " (" << c.failure_class << ")\n";
    }
  }
  if (r.winner >= 0) {
    o << "winner: " << ParamsText(r.configs[r.winner]) << " (its 95% CI separates from every "
      << "other configuration)\n";
  } else if (!r.tied.empty()) {
    o << "no defensible winner: " << r.tied.size()
      << " configurations are statistically tied for best:\n";
    for (size_t k = 0; k < r.tied.size() && k < 10; ++k) {
      o << "  " << ParamsText(r.configs[r.tied[k]]) << "\n";
    }
  } else {
    o << "no configuration produced samples\n";
  }
  for (const auto& w : r.warnings) o << "warning: " << w << "\n";
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

Status WriteResults(const std::string& dir, const SweepResult& r) {
  FS_RETURN_IF_ERROR(WriteFileAtomically(dir + "/results.json", ResultsToJson(r).dump(2) + "\n"));
  FS_RETURN_IF_ERROR(WriteFileAtomically(dir + "/results.csv", ResultsToCsv(r)));
  return WriteFileAtomically(dir + "/summary.txt", SummaryTable(r, 20));
}

}  // namespace fleetsweep
