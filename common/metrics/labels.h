// Label helpers shared by CoordinatorMetrics and WorkerMetrics: they keep label values from a
// bounded set, so that no caller can blow up a metric's cardinality by passing free text.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

namespace fleetsweep {
namespace metrics {

// The failure classes a `failure_class` label may take (docs/metrics.md), "none" excluded.
// Mirrors v1::FailureClass plus "lease_expired" and "other".
const std::vector<std::string>& KnownFailureClasses();

// Maps what a caller names a failure to a bounded label value:
//   ok                                   -> "none"
//   "FAILURE_CLASS_TIMEOUT", "Timeout", "timeout" -> "timeout" (prefix dropped, lower-cased)
//   "" or "unspecified" while !ok        -> "unknown"
//   anything not in KnownFailureClasses() -> "other"
std::string FailureClassLabel(bool ok, const std::string& failure_class);

// "ok" or "failed": the value of the `result` label.
inline const char* ResultLabel(bool ok) { return ok ? "ok" : "failed"; }

// Audit verdicts a `verdict` label may take.
const std::vector<std::string>& KnownAuditVerdicts();

}  // namespace metrics
}  // namespace fleetsweep
