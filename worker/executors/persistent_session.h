// PersistentSession: one warm benchmark process serving many executions (docs/executors.md,
// "Sessions").
//
// Life of the process:
//   start   the section is prepared like a one-shot run (PlanLaunch: templating with the session's
//           key parameters, workdir, environment plus FLEETSWEEP_SESSION=persistent and
//           FLEETSWEEP_PARAMS={key params}, allow-list, files); the benchmark prints its info
//           lines and then {"fleetsweep":"ready"}. Exit or silence (ready_timeout_s, else the
//           execution timeout) before ready fails that attempt with LAUNCH. Device work before
//           ready (inputs, prewarm) is announced with {"fleetsweep":"device"}: the worker takes
//           the device's timing gate, answers {"fleetsweep":"device_granted","attempt_id":<session
//           id>} and holds the gate until ready. The attempt that opened the session says how long
//           the start took (info session.start_seconds, session.start_gate_wait_seconds): it is
//           in that attempt's duration, and not part of its execution (prepare request to end).
//   execute {"fleetsweep":"prepare","attempt_id":A,"params":{...}} -> "prepared" (or "end" when
//           preparation failed), then, holding the device's timing gate,
//           {"fleetsweep":"run","attempt_id":A} -> protocol lines, then {"fleetsweep":"end",...}.
//           Each phase has the execution timeout. Lines printed between executions are dropped
//           and counted (info session.stray_lines of the next attempt). A benchmark whose ready
//           line offers "run_after_prepare" gets one request, prepare with "run": true, while
//           the gate has one sharer (no other slot on the device): the gate is taken first and
//           the benchmark times right after "prepared" (info session.run_after_prepare).
//   failure a timeout or cancel kills the process group (TIMEOUT / SIGNAL); an exit mid-execution
//           is classified like a one-shot crash and charged to that attempt only. Either way the
//           session is no longer Reusable() and the slot opens a new one.
//   recycle after session.max_executions executions or restart_every_s seconds Reusable() turns
//           false; the destructor closes stdin, waits, then terminates the group.
// Attempt info added: session.id, session.position (1-based index in the session),
// session.age_s, session.mode, exec.timed_seconds (run request to end), exec.gate_wait_seconds,
// and the info lines the benchmark printed before ready.
//
// Thread-safety: none; owned by one slot.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "worker/executors/exec_executor.h"
#include "worker/executors/live_child.h"
#include "worker/executors/session.h"

namespace fleetsweep {

class PersistentSession : public Session {
 public:
  PersistentSession(const ExecSpec& spec, SessionKey key, std::string id,
                    double grace_seconds = 2.0);
  ~PersistentSession() override;

  v1::Attempt Execute(const ExecutionRequest& req, TimingGate* gate) override;
  bool Reusable() const override;
  const SessionKey& key() const override { return key_; }
  int64_t executions() const { return executions_; }

 private:
  using Clock = std::chrono::steady_clock;
  // Starts the process and waits for ready, holding `gate` (may be null) from the benchmark's
  // first "device" line to ready; on failure fills *attempt and returns false.
  bool Start(const ExecutionRequest& req, TimingGate* gate, v1::Attempt* attempt);
  void Close();

  const ExecSpec& spec_;
  const SessionKey key_;
  const std::string id_;
  const double grace_seconds_;
  std::unique_ptr<LiveChild> child_;
  LaunchPlan plan_;
  std::map<std::string, std::string> session_info_;  // info lines before "ready"
  int64_t executions_ = 0;
  uint64_t stray_after_end_ = 0;  // lines after the last end line, counted in the next attempt
  bool broken_ = false;
  bool run_after_prepare_ = false;  // the ready line offered it
  Clock::time_point started_;
};

}  // namespace fleetsweep
