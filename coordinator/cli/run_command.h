// `fleetsweep run`: one machine, a coordinator and N local workers over an embedded file store.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "coordinator/aggregate/results_writer.h"

namespace fleetsweep {

struct RunCommandOptions {
  std::string spec;  // sweep spec (YAML)
  std::string out;   // output directory: store/, logs/, results, report
  int workers = 2;
  int slots = 1;          // per worker
  int metrics_port = -1;  // coordinator's Prometheus port: -1 off, 0 any
  double worker_timeout = 10;
  ResultsOptions results;
  std::vector<std::string> worker_args;  // extra arguments for every worker
  std::vector<std::string> devices;      // device per worker, cycled (empty: worker i gets i)
};

// Creates OUT and OUT/logs, runs the sweep (RunSweep, store file:OUT/store) with `workers`
// fleetsweep-worker processes started from this executable's directory once the coordinator has
// bound, supervises them, and stops them at the end. `stop` (SIGINT/SIGTERM) interrupts: the
// workers are sent SIGTERM at once. Returns the process exit code (ExitCode, exit_codes.h;
// kBadInput when OUT cannot be created).
int RunCommand(const RunCommandOptions& options, const std::atomic<bool>& stop);

}  // namespace fleetsweep
