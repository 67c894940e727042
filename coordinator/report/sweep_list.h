// `fleetsweep list` and `fleetsweep show`: what a result store holds, from the command line (the
// Optuna CLI's `studies` / `trials`, Katib's experiment list).
//
//   $ fleetsweep list --store out/cpu-demo
//   sweep     state     configurations                        executions  best (median)
//   cpu-demo  finished  42/42 finished (40 ok, 2 infeasible)  126 executions (6 failed)  time_ms
//             1.234 ms (BM=32 ...)   [one line]
//
//   $ fleetsweep show cpu-demo --store out/cpu-demo
//   rank  config            state       executions    median time_ms  parameters
//   1     3fa1c2d4e5f60718  done                 3            1.234  BM=32 BN=16 ...
//
// The best result here is the median of the primary metric over each configuration's successful
// executions, as measured (no node-effect correction, no winner test: `fleetsweep report` and
// results.json have the statistics).
//
// Errors: the store's (a locked file store names the running sweep's lock), kNotFound for a sweep
// the store does not have. Reads only.
#pragma once

#include <string>

#include "common/status.h"
#include "common/store/store.h"

namespace fleetsweep {

// "redis://...", "file:DIR", or a directory: DIR/store when it exists (a `fleetsweep run --out`
// directory), else DIR itself.
std::string StoreUrlFor(const std::string& store);

// One line per sweep: name, state (finished | unfinished | not started), configurations,
// executions (common/store/execution_count.h, as `run` and `watch` count them), best median of the
// primary metric with its parameters.
StatusOr<std::string> ListSweepsText(ResultStore* store);

// One sweep's configurations ranked by median (those without results last), an infeasible one
// with its last failure (class and detail); `limit` rows at most (0 = all).
StatusOr<std::string> ShowSweepText(ResultStore* store, const std::string& sweep, int limit);

}  // namespace fleetsweep
