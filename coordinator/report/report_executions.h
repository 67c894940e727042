// ReportExecutions: what the report's "distributions" and "progress" panels read from a sweep's
// executions, gathered in one pass (ExecutionCollector), so the attempts can be streamed from a
// store instead of held in memory: for each ranked configuration of results.json its execution
// values, and for each successful execution its end time and value. Memory grows with the
// ranked configurations' executions plus 16 bytes per successful execution, not with the
// attempts' samples and info.
//
// Thread-safety: a collector is used by one thread at a time; the result is a plain value.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "coordinator/report/report_data.h"
#include "fleetsweep/v1/data.pb.h"

namespace fleetsweep::report {

struct ReportExecutions {
  // Per entry of ReportData::configs (same order): its successful, non-reference executions'
  // values (the median of each execution's samples of the primary metric; non-finite ones left
  // out).
  std::vector<std::vector<double>> values;
  // Successful non-reference executions with a start time: (end, in ms since the epoch; value,
  // NaN when the execution has no finite sample of the metric).
  std::vector<std::pair<double, double>> finished;
  int64_t first_start_ms = INT64_MAX;  // over every execution with a start time
  int failed = 0;                      // non-reference executions with a start time, not ok
};

class ExecutionCollector {
 public:
  // `d` must outlive the collector (its configs and metric are read on every Add).
  explicit ExecutionCollector(const ReportData& d);
  void Add(const v1::Attempt& a);
  ReportExecutions Take() { return std::move(out_); }

 private:
  const ReportData& d_;
  std::unordered_map<std::string, size_t> index_;  // configuration key -> d_.configs index
  ReportExecutions out_;
};

// The median of the execution's finite samples of `metric`; NaN when there are none.
double ExecutionValue(const v1::Attempt& a, const std::string& metric);

}  // namespace fleetsweep::report
