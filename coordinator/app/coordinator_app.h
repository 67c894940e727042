// RunSweep: everything a coordinator process does, shared by `fleetsweep-coordinator` (cluster)
// and `fleetsweep run` (one machine): parse the spec, open the store, resume, serve workers over
// ZeroMQ, show progress, expose metrics, and at the end aggregate and write the results.
//
// The work is done by SweepRunner (sweep_runner.h: Open, Serve, Finish); RunSweep runs its phases
// and prints the outcome's messages on stderr ("fleetsweep: ...").
//
// Returns a process exit code, one of ExitCode (exit_codes.h, the one list; docs/cli.md).
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>

#include "common/space/executor_check.h"
#include "coordinator/aggregate/results_writer.h"
#include "coordinator/scheduler/scheduler.h"
#include "coordinator/server/server.h"

namespace fleetsweep {

struct SweepRunOptions {
  std::string spec_path;
  std::string store_url;  // "redis://..." or "file:DIR"
  ServerOptions server;
  SchedulerOptions scheduler;
  int metrics_port = -1;   // -1 off, 0 pick a free port
  std::string out_dir;     // write results.json/csv/summary.txt here at the end
  ResultsOptions results;  // when results.json is summarised (results_writer.h)
  // false: the process exits right after RunSweep, so the scheduler's state and the records the
  // results were computed from are left to the OS instead of freed piece by piece (seconds for
  // a sweep of 64,000 configurations). The store is closed either way.
  bool free_at_exit = true;
  bool progress = true;
  // A store that refuses writes (disk full, Redis at maxmemory) pauses the sweep; after this
  // long the coordinator gives up with exit code 7.
  double store_give_up_seconds = 300;
  // When set, the spec's executor section is checked before anything starts (every problem is
  // printed; exit 2). `fleetsweep run` checks programs too (its workers run here).
  std::optional<ExecutorCheckOptions> check_executor;
  // Called on the serving thread about every 100 ms, after the coordinator has bound; receives
  // the bound endpoint. Used by `fleetsweep run` to start and supervise local workers.
  std::function<void(const std::string& endpoint)> on_tick;
  // Called once after Bind() and before serving (endpoint known).
  std::function<Status(const std::string& endpoint, int total_configs, bool finished)> on_bound;
};

int RunSweep(const SweepRunOptions& options, const std::atomic<bool>& stop);

}  // namespace fleetsweep
