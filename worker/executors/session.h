// Sessions: how a slot runs executions (docs/executors.md "Sessions").
//
// A Launcher is made once per sweep from the executor section; it opens Sessions. A Session is
// owned by ONE slot and runs one execution at a time:
//   - OneShotSession: today's model, a new process per execution (ExecExecutor::Run). Any
//     configuration; the device's timing gate is held for the whole process.
//   - PersistentSession (persistent_session.h): one warm benchmark process that receives its
//     executions as request lines on stdin; it serves only configurations with its SessionKey
//     (the values of the parameters that cannot change inside a process) and holds the timing
//     gate only for the timed part.
// A session never throws: every failure comes back inside the Attempt, classified as the
// one-shot executor does. After a failure that leaves the process unusable (crash, timeout,
// cancel) or when it is due for recycling, Reusable() turns false and the slot opens a new one.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/exec/exec_spec.h"
#include "common/space/value.h"
#include "common/status.h"
#include "fleetsweep/v1/data.pb.h"
#include "worker/executors/executor.h"
#include "worker/executors/timing_gate.h"

namespace fleetsweep {

// The parameter values a session is bound to; empty for one-shot sessions (they serve anything).
struct SessionKey {
  std::map<std::string, std::string> params;  // name -> canonical text
  std::string Text() const;                   // "A=1,B=x" (sorted); "" when empty
  bool Matches(const Config& config) const;   // config has every entry
};

class Session {
 public:
  virtual ~Session() = default;
  // Runs one execution of `req` (whose params must match key()). `gate` may be null.
  virtual v1::Attempt Execute(const ExecutionRequest& req, TimingGate* gate) = 0;
  // False once this session must not serve another execution.
  virtual bool Reusable() const = 0;
  virtual const SessionKey& key() const = 0;
};

class ExecExecutor;

class Launcher {
 public:
  // Parses the section (type exec or torch). restart_params: parameters declared
  // `restart: true` in the spec; swept_levels: the spec's swept parameters and their levels
  // (SweptLevels; a torch section's `prewarm: [NAME]` needs them). Errors: kInvalidArgument for a
  // malformed section.
  static StatusOr<std::unique_ptr<Launcher>> Create(
      const std::string& executor_yaml, const std::vector<std::string>& restart_params,
      const std::map<std::string, std::vector<std::string>>& swept_levels = {});

  bool persistent() const { return spec_.session.persistent; }
  // The key of the session that can run `params` (empty for one-shot sections).
  SessionKey KeyFor(const Config& params) const;
  // Opens a session for executions with KeyFor(first.params). Persistent sessions start their
  // process at the first Execute, so a launch failure is reported in that attempt. The launcher
  // must outlive the sessions it opened. Thread-safe.
  std::unique_ptr<Session> Open(const ExecutionRequest& first) const;
  const ExecSpec& spec() const { return spec_; }

 private:
  Launcher(ExecSpec spec, std::vector<std::string> key_names)
      : spec_(std::move(spec)), key_names_(std::move(key_names)) {}
  ExecSpec spec_;
  std::vector<std::string> key_names_;      // placeholders used by the section + restart params
  std::shared_ptr<ExecExecutor> one_shot_;  // shared by this launcher's one-shot sessions
};

// The JSON object {name: canonical text} handed to benchmarks as FLEETSWEEP_PARAMS.
std::string ParamsJson(const Config& params);

}  // namespace fleetsweep
