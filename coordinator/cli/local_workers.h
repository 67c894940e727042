// LocalWorkers: starts and supervises N `fleetsweep-worker` processes on this machine for
// `fleetsweep run`. A worker that dies before the sweep is finished is restarted (at most
// `max_restarts` times in all) and the event is logged; its leases come back through the
// coordinator's worker timeout. Each worker's output goes to LOG_DIR/worker-I.log. Workers die
// with this process: each gets SIGTERM when the thread that started it exits (PR_SET_PDEATHSIG;
// start them from the thread that lives as long as the sweep), so a SIGKILLed `fleetsweep run`
// leaves no worker and, through the worker's shutdown, no benchmark behind.
//
// Not thread-safe; call from the coordinator's serving thread (on_tick).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/status.h"

namespace fleetsweep {

struct LocalWorkerOptions {
  int count = 2;
  int slots_per_worker = 1;
  std::string worker_binary;  // path to fleetsweep-worker
  std::string log_dir;
  std::vector<std::string> extra_args;  // passed to every worker
  std::vector<std::string> devices;     // worker i gets devices[i % size]; empty: device i
  int max_restarts = 8;
};

class LocalWorkers {
 public:
  explicit LocalWorkers(LocalWorkerOptions options) : options_(std::move(options)) {}
  ~LocalWorkers() { StopAll(5.0); }
  LocalWorkers(const LocalWorkers&) = delete;
  LocalWorkers& operator=(const LocalWorkers&) = delete;

  Status StartAll(const std::string& endpoint);
  // Reaps exited workers and restarts them while `restart` is true.
  void Supervise(bool restart);
  // SIGTERM to every worker still running (their normal shutdown, which cancels their
  // executions); does not wait. For an interrupted sweep: StopAll(0) then reaps them.
  void TermAll();
  // Waits up to `grace_seconds` for the workers to exit, then SIGTERM, then SIGKILL.
  void StopAll(double grace_seconds);
  int restarts() const { return restarts_; }

 private:
  Status Start(int index);
  LocalWorkerOptions options_;
  std::string endpoint_;
  std::vector<pid_t> pids_;
  int restarts_ = 0;
};

}  // namespace fleetsweep
