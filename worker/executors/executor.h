// Executor: runs ONE execution of a benchmark for one configuration and reports it as an Attempt.
//
// Implementations: ExecExecutor (exec_executor.h, any command, argv with {PARAM} placeholders)
// and TorchExecutor (torch/, libtorch kernels in a child process). An executor never throws and
// never aborts the worker: every failure (cannot launch, timeout, crash, bad output, wrong result)
// is returned inside the Attempt (ok=false, failure_class, failure_detail, tails).
//
// Thread-safety: Run() may be called concurrently from several slot threads on one instance.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/space/value.h"
#include "common/status.h"
#include "fleetsweep/v1/data.pb.h"
#include "worker/executors/env_policy.h"

namespace fleetsweep {

struct ExecutionRequest {
  std::string sweep;
  std::string executor_yaml;  // SweepSpec::executor_yaml
  Config params;              // swept + pinned values
  std::string config_key;
  std::string attempt_id;
  int slot = 0;
  std::string device;                               // e.g. "0"
  std::string device_env = "CUDA_VISIBLE_DEVICES";  // set to `device` in the child
  double timeout_seconds = 600;
  std::vector<std::string> allow_exec;  // empty = anything; else glob patterns of executables
  // Everything the spec names on disk stays inside this directory (confine.h); "" = a private
  // temp directory made once per worker process.
  std::string scratch_root;
  EnvPolicy env_policy;                          // the child's environment (env_policy.h)
  std::map<std::string, std::string> extra_env;  // e.g. FLEETSWEEP_PLATFORM_SURFACE
  std::string worker_bin_dir;                    // {FLEETSWEEP_BIN}: where fleetsweep binaries live
  const std::atomic<bool>* cancel = nullptr;     // set by the worker to abort (kills the child)
  int cancel_fd = -1;  // optional: readable once cancelled (wakes waits at once; not owned)
};

class Executor {
 public:
  virtual ~Executor() = default;
  // Fills attempt fields: ok, failure_class, failure_detail, samples, fingerprint, check,
  // stdout_tail, stderr_tail, started_unix_ms, duration_seconds, exit_code, term_signal, info.
  // The caller fills identity fields (config_key, attempt_id, worker_id, node, slot, device).
  virtual v1::Attempt Run(const ExecutionRequest& request) = 0;
};

// Chooses the executor for an executor section ("type: exec" default, "type: torch").
// Errors: kInvalidArgument for an unknown type or malformed section.
StatusOr<std::unique_ptr<Executor>> MakeExecutor(const std::string& executor_yaml);

}  // namespace fleetsweep
