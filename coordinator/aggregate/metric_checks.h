// CheckMetricsArrived: the metrics a spec names must be the metrics the benchmark reports.
//
//  * The primary metric never reported by any successful attempt (a typo such as `time_msec`
//    for `time_ms`): the sweep is invalid, and the reason names the metrics that did arrive.
//  * A metric with a bound (max/min) that a configuration with successful attempts never
//    reported: that configuration violates its bound ("never reported", so it cannot win); when
//    no configuration reported it at all, the sweep is invalid too (the bound was never
//    enforced).
//
// Reads and updates `result` (configs' metrics, ok_attempts, violates_bound, bound_violations;
// valid, invalid_reasons). Called by Aggregate before ranking. Never fails.
#pragma once

#include <map>
#include <string>

#include "common/space/spec.h"
#include "coordinator/aggregate/sweep_result.h"

namespace fleetsweep {

void CheckMetricsArrived(const SweepSpec& spec, SweepResult* result);

// Marks `c` as violating a bound (violates_bound, bound_violations) for every metric whose median
// in c->metrics lies outside the spec's max/min.
void CheckBounds(const SweepSpec& spec, ConfigResult* c);

// True when a configuration with `ok_attempts` successful attempts and these metric summaries
// lacks a bounded metric (CheckMetricsArrived then marks it as violating its bound).
bool LacksBoundedMetric(const SweepSpec& spec, int ok_attempts,
                        const FlatMap<std::string, MetricSummary>& metrics);

// The ranking's order of two rankable configurations by their (corrected) primary medians: true
// when `a` ranks before `b` (equal medians keep their order: the callers break ties by position).
inline bool RanksBefore(double a, double b, bool minimize) { return minimize ? a < b : a > b; }

}  // namespace fleetsweep
