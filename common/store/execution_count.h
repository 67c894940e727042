// What every view of a sweep calls its "executions" (the progress line of `fleetsweep run`, its
// final summary, `fleetsweep watch`, `list` and `show`), so that they all count the same thing:
// every execution of the sweep that the store holds, one per attempt id, successful or failed,
// the reference configuration's node-effect measurements included. Failed ones are shown
// separately, never subtracted.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fleetsweep/v1/data.pb.h"

namespace fleetsweep {

struct ExecutionCount {
  int64_t executions = 0;  // all of them
  int64_t failed = 0;      // of those, the ones that did not succeed (ok == false)
  // Counts one attempt (for a visit: ResultStore::ForEachAttempt).
  void Add(const v1::Attempt& a) {
    ++executions;
    if (!a.ok()) ++failed;
  }
};

// Counts `attempts` (as ResultStore::LoadAttempts returns them: one per attempt id).
ExecutionCount CountExecutions(const std::vector<v1::Attempt>& attempts);

// "12 executions (1 failed)"; "1 execution (0 failed)".
std::string ExecutionsText(const ExecutionCount& count);

}  // namespace fleetsweep
