// ExecExecutor: runs any command (argv with {PARAM} placeholders, never a shell) as one
// execution of a benchmark, and turns what it printed into an Attempt. The executor section it
// reads is documented in exec_spec.h and docs/executors.md.
//
// One Run():
//   1. workdir: the section's (templated, inside request.scratch_root after resolving symlinks,
//      created if missing after the allow-list check, kept) or a fresh directory in the scratch
//      root (removed after the run); anything outside the root is REFUSED (confine.h);
//   2. placeholders: every parameter's canonical text, plus {FLEETSWEEP_BIN} (worker_bin_dir),
//      {SLOT}, {DEVICE}, {ATTEMPT_ID}, {WORKDIR} (built-ins win over parameters of the same
//      name); an unknown placeholder fails the attempt with LAUNCH naming it;
//   3. environment: explicit (env_policy.h): allow-listed worker variables without secrets, then
//      the section's env (names checked: REFUSED), then (winning) FLEETSWEEP_PARAM_<N>
//      for every parameter, FLEETSWEEP_ATTEMPT_ID, FLEETSWEEP_SLOT, FLEETSWEEP_WORKDIR,
//      <device_env>=<device> (when device is set) and extra_env;
//   4. allow-list: when request.allow_exec is non-empty, the resolved executable (lexically
//      normalised absolute path, or its realpath) must fnmatch one pattern ('*' also matches '/'),
//      else REFUSED and nothing is written or run;
//   5. templated files are written into the workdir (confined, O_NOFOLLOW), the child runs
//   (child_process.h) with the
//      timeout (section's `timeout`, else request.timeout_seconds), stdout is parsed as protocol
//      lines as it streams, and the result file, if configured, is parsed after exit (read only
//      inside the scratch root);
//   6. Classify (classify.h) fills ok/failure_class/failure_detail.
// Attempt fields filled: ok, failure_class, failure_detail, samples (only when ok; a failed
// attempt's samples are dropped and counted in info "exec.samples_discarded"), fingerprint,
// check, stdout_tail and stderr_tail (last 8 KiB each), started_unix_ms, duration_seconds,
// exit_code (-1 unless the child exited normally), term_signal, info (the benchmark's info
// records plus "exec.*" diagnostics). request.executor_yaml is not read: the section given at
// construction is the one that runs.
//
// Thread-safety: Run() may be called concurrently; the instance is immutable after Create.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/exec/exec_spec.h"
#include "worker/executors/classify.h"
#include "worker/executors/executor.h"
#include "worker/executors/output_stream.h"

namespace fleetsweep {

class ExecExecutor : public Executor {
 public:
  static constexpr size_t kTailBytes = 8 * 1024;
  static constexpr size_t kMaxLineBytes = 1 << 20;

  // Errors: kInvalidArgument for a malformed section.
  static StatusOr<std::unique_ptr<ExecExecutor>> Create(const std::string& executor_yaml);

  explicit ExecExecutor(ExecSpec spec, double grace_seconds = 2.0)
      : spec_(std::move(spec)), grace_seconds_(grace_seconds) {}
  ExecExecutor(const ExecExecutor&) = delete;
  ExecExecutor& operator=(const ExecExecutor&) = delete;

  v1::Attempt Run(const ExecutionRequest& request) override;

  const ExecSpec& spec() const { return spec_; }

 private:
  const ExecSpec spec_;
  const double grace_seconds_;  // SIGTERM -> SIGKILL
};

// What Run() would start for `req`, prepared with the same rules (templating, workdir,
// environment, allow-list, files written): persistent sessions start their process from it.
struct LaunchPlan {
  std::vector<std::string> argv;
  std::string path;              // resolved executable
  std::vector<std::string> env;  // complete environment, "NAME=value"
  std::string workdir;
  bool owns_workdir = false;  // a fresh temp dir: the caller removes it when done
};

// Fills *plan. On error nothing is left behind and *cls says how the attempt fails: REFUSED
// (allow-list, a path outside the scratch root, an env name a spec may not set) or LAUNCH
// (templating, workdir, files, executable not found).
Status PlanLaunch(const ExecSpec& spec, const ExecutionRequest& req, LaunchPlan* plan,
                  v1::FailureClass* cls);

// Fills an attempt from a finished run (ok, class, detail, samples when ok, fingerprint, check,
// tails, exit status, info incl. exec.* diagnostics); shared by every session kind.
void FillAttempt(const Classification& c, const ProtocolState& protocol, const RunOutcome& outcome,
                 const OutputStream& out, const OutputStream& err, const Status& output_status,
                 v1::Attempt* attempt);

}  // namespace fleetsweep
