// SweepRunner: one coordinator process's sweep, in three phases, each ending in a RunOutcome
// (an exit code, exit_codes.h, and the messages to print). RunSweep (coordinator_app.h) runs them
// in order and stops at the first outcome that is not kOk.
//
//   Open    the --out directory, the spec, its executor section (when asked), the store, the
//           metrics port, the scheduler (which resumes what the store holds), the ZeroMQ bind and
//           on_bound.                               kBadInput (2) or kStartOrIoFailure (3)
//   Serve   serves workers until the sweep is finished (server.exit_when_done), `stop` is set or
//           the store fails (StoreWatch); every tick draws the progress line (ProgressLine),
//           hands the attempts counted since the last tick to the live audits (LiveAudits, on
//           their own thread, joined before Serve returns) and calls on_tick.
//                                                   kStartOrIoFailure, kStoreLostData (6) or
//                                                   kStoreRefusedWrites (7)
//   Finish  frees the server and the scheduler first (nothing is served after it; it keeps what
//           it needs of them), reads the store back (the durable record is the truth), checks it
//           holds every attempt the scheduler counted, aggregates, prints the summary table,
//           writes results (and the HTML report) to --out, and judges the result (JudgeResult).
//                                                   kStartOrIoFailure, kStoreLostData,
//                                                   kNothingSucceeded (4) or kAuditRefused (5)
//
// Output: the summary table and the paths written go to `out`; the progress line and log lines
// to stderr (spdlog); the outcome's messages are printed by the caller.
// Ownership: owns the store, scheduler, server and metrics it opens. Not thread-safe; Serve and
// Finish need a successful Open first (else they return kStartOrIoFailure).
#pragma once

#include <atomic>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "coordinator/aggregate/sweep_result.h"
#include "coordinator/app/coordinator_app.h"
#include "coordinator/app/exit_codes.h"

namespace fleetsweep {

struct RunOutcome {
  ExitCode code = ExitCode::kOk;
  std::vector<std::string> messages;  // each printed as "fleetsweep: MESSAGE" on stderr

  bool ok() const { return code == ExitCode::kOk; }
  static RunOutcome Fail(ExitCode code, std::string message) {
    return RunOutcome{code, {std::move(message)}};
  }
};

// kNothingSucceeded when the sweep finished and no configuration succeeded; else kAuditRefused
// when the honest-measurement audit refused the result (messages: the reasons); else kOk.
RunOutcome JudgeResult(const SweepResult& result, bool finished);

class SweepRunner {
 public:
  SweepRunner(SweepRunOptions options, std::ostream& out);
  ~SweepRunner();
  SweepRunner(const SweepRunner&) = delete;
  SweepRunner& operator=(const SweepRunner&) = delete;

  RunOutcome Open();
  RunOutcome Serve(const std::atomic<bool>& stop);
  RunOutcome Finish();

  // After Open and before Finish: the bound endpoint ("tcp://127.0.0.1:41234"); "" after Finish.
  std::string endpoint() const;

 private:
  struct State;
  SweepRunOptions options_;
  std::ostream& out_;
  std::unique_ptr<State> state_;
};

}  // namespace fleetsweep
