// ReportData: what the HTML report shows, derived from a results.json document
// (docs/results.md). Tolerant: fields another version of the writer does not produce are simply
// absent here (empty vectors, nullopt), never an error.
//
// Pure functions of the JSON; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace fleetsweep::report {

// One configuration row of the ranking.
struct RankedConfig {
  int rank = 0;
  std::string key;
  std::map<std::string, std::string> params;
  std::string status;
  int64_t n = 0;
  double median = 0, ci_low = 0, ci_high = 0;
  int fingerprints = 0;
  std::string failure;  // failure class, "" when none
  bool winner = false, tied = false;
};

// A parameter seen with more than one level among configurations with samples.
struct LevelStat {
  std::string level;
  double median_of_medians = 0;  // over configurations at this level
  double best = 0, worst = 0;    // best / worst configuration median at this level
  // Distribution-free 95% CI of that median over the configurations (order statistics,
  // binomial(n, 1/2)); with fewer than 6 configurations no such interval exists and ci_exact is
  // false (ci_low/ci_high are then the range).
  double ci_low = 0, ci_high = 0;
  bool ci_exact = false;
  int configs = 0;
};
struct ParamEffect {
  std::string name;
  std::vector<LevelStat> levels;  // in the order the levels sort (numbers numerically)
  double effect = 0;              // (max - min of median_of_medians) / |overall median|
  nlohmann::json audit;           // this parameter's audit object from results.json, or null
};

struct ReportData {
  std::string sweep, metric, goal;
  bool lower_is_better = true;
  std::vector<RankedConfig> configs;  // results.json order (ranked)
  // Configurations in the sweep: configs.size(), or more when results.json is summarised
  // ("configurations_truncated": configs then holds the best ones, results.csv all of them).
  int64_t total_configs = 0;
  bool truncated = false;
  std::vector<ParamEffect> effects;  // largest effect first
  std::vector<std::string> param_names;
  std::map<std::string, std::string> constant_params;  // one value in every configuration
  std::optional<bool> valid;  // results.json "valid" (or audit.valid) when present
  std::vector<std::string> invalid_reasons;
  std::vector<std::string> nodes;
  int distinct_fingerprints = 0;
};

ReportData BuildReportData(const nlohmann::json& results);

// Sort key for levels: numbers numerically, then text.
bool LevelLess(const std::string& a, const std::string& b);

// Finds `name` in `j` (an object), also under j["audit"]; null when absent.
const nlohmann::json* FindField(const nlohmann::json& j, const std::string& name);

// Compact human text of any JSON value ("a=1, b=x" for flat objects).
std::string JsonText(const nlohmann::json& j);

}  // namespace fleetsweep::report
