// WorkerAgent: the node agent. Connects a ZeroMQ DEALER to the coordinator, says hello, asks for
// work per free slot, runs each lease on its own slot thread through an Executor (with the slot's
// device pinned by the device-visibility environment variable), heartbeats, and returns results.
//
// Nothing is lost when the coordinator goes away: a result is kept and re-sent until the
// coordinator acknowledges it, and a coordinator that no longer knows this worker (restart) gets a
// new hello. In cluster mode (a store is given) every attempt is also written to the store first,
// idempotently, and announced on the sweep's event log.
//
// Ownership: the store (optional) is not owned and must outlive the agent. Run() blocks on the
// calling thread; slot threads are joined before it returns.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/store/store.h"

namespace fleetsweep {

class WorkerMetrics;

struct CurveClientOptions {
  bool enabled = false;
  std::string server_public_key_z85;
  std::string public_key_z85;
  std::string secret_key_z85;
};

struct AgentOptions {
  std::string coordinator = "tcp://127.0.0.1:5555";
  int slots = 1;
  std::vector<std::string> devices;  // one per slot (cycled); default 0..slots-1
  std::string device_env = "CUDA_VISIBLE_DEVICES";
  std::string node;                   // default: hostname
  std::string worker_id;              // default: node-pid-random
  std::string platform;               // e.g. "bi-v100", "cuda", "cpu"
  std::string platform_surface_file;  // exported to executions as FLEETSWEEP_PLATFORM_SURFACE
  std::vector<std::string> allow_exec;
  std::string worker_bin_dir;        // {FLEETSWEEP_BIN}
  bool exit_when_finished = false;   // exit on Shutdown / NoWork(sweep_finished)
  double give_up_after_seconds = 0;  // 0: keep trying to reach the coordinator forever
  CurveClientOptions curve;
  ResultStore* store = nullptr;      // cluster mode: attempts stored here first
  WorkerMetrics* metrics = nullptr;  // optional
};

class WorkerAgent {
 public:
  explicit WorkerAgent(AgentOptions options);
  WorkerAgent(const WorkerAgent&) = delete;
  WorkerAgent& operator=(const WorkerAgent&) = delete;

  // Runs until *stop, a Shutdown (with exit_when_finished), or give-up. Errors: kUnavailable
  // when the coordinator could not be reached within give_up_after_seconds; kInvalidArgument for
  // bad options (e.g. curve keys).
  Status Run(const std::atomic<bool>& stop);

  const AgentOptions& options() const { return options_; }
  int64_t executions() const { return executions_; }

 private:
  AgentOptions options_;
  int64_t executions_ = 0;
};

}  // namespace fleetsweep
