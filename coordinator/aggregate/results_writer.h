// Writes a SweepResult as DIR/results.json (schema in docs/results.md), DIR/results.csv, and a
// human summary table. A sweep of more than ResultsOptions::full_limit configurations gets a
// summarised results.json: every field as usual, but "configurations" holds only the top
// ResultsOptions::top by rank plus the winner, the configurations the winner test names and the
// best ResultsOptions::top of the tied set, and "configurations_truncated" says so; results.csv
// always holds every configuration. Files are written to a temporary name and renamed, so a reader
// never sees a half-written file. Errors: kUnavailable when the directory cannot be written.
// results.json: results_json.cc; summary.txt: results_summary.cc; CSV and files: results_writer.cc.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "coordinator/aggregate/aggregator.h"
#include "nlohmann/json.hpp"

namespace fleetsweep {

struct ResultsOptions {
  // results.json lists every configuration up to this many; above it, the summary (0: never).
  int64_t full_limit = 10000;
  // How many of the best-ranked configurations a summarised results.json lists in full.
  int64_t top = 1000;
};

nlohmann::json ResultsToJson(const SweepResult& result, const ResultsOptions& options = {});
std::string ResultsToCsv(const SweepResult& result);
// Top `rows` configurations with median and CI, then the verdict (winner or tied set).
std::string SummaryTable(const SweepResult& result, int rows = 10);

Status WriteResults(const std::string& dir, const SweepResult& result,
                    const ResultsOptions& options = {});
Status WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace fleetsweep
