// Writes a SweepResult as DIR/results.json (schema in docs/results.md), DIR/results.csv, and a
// human summary table. Files are written to a temporary name and renamed, so a reader never sees
// a half-written file. Errors: kUnavailable when the directory cannot be written.
#pragma once

#include <string>

#include "common/status.h"
#include "coordinator/aggregator.h"
#include "nlohmann/json.hpp"

namespace fleetsweep {

nlohmann::json ResultsToJson(const SweepResult& result);
std::string ResultsToCsv(const SweepResult& result);
// Top `rows` configurations with median and CI, then the verdict (winner or tied set).
std::string SummaryTable(const SweepResult& result, int rows = 10);

Status WriteResults(const std::string& dir, const SweepResult& result);
Status WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace fleetsweep
