// Failure classification: why an execution failed, from what the executor observed.
//
// Classify is a pure function (no I/O, no clock), so every rule is unit-testable. Order of the
// rules (the first that applies wins):
//   LAUNCH          the executable could not be started (launch_error set)
//   TIMEOUT         the executor killed it at its deadline
//   SIGNAL          cancelled by the worker (detail says "cancelled")
//   protocol error  {"type":"error","class":C}: not_implemented -> NOT_IMPLEMENTED,
//                   out_of_memory|oom -> OUT_OF_MEMORY, wrong_result -> WRONG_RESULT, any other
//                   class -> by exit status (SIGNAL / EXIT_CODE), else BAD_OUTPUT
//   WRONG_RESULT    a check line with passed=false (even with exit 0 and samples)
//   --- only when the run did not succeed (signal, non-zero exit, or no sample): ---
//   NOT_IMPLEMENTED "NotImplementedError" or "not implemented" (any case) in the output
//   OUT_OF_MEMORY   "out of memory", "OutOfMemoryError", "std::bad_alloc", "Cannot allocate
//                   memory" in the output, or a SIGKILL the executor did not send while the
//                   cgroup's oom_kill counter rose (oom_kill_observed)
//   SIGNAL          killed by a signal (named in the detail)
//   EXIT_CODE       non-zero exit status
//   BAD_OUTPUT      exit 0 but no sample (the detail counts malformed protocol lines)
// Otherwise the execution is ok.
//
// Text hints are searched in the stdout/stderr tails and in every complete output line as it
// streamed (ScanLineForHints), so a hint scrolled out of the tails still counts.
#pragma once

#include <string>
#include <string_view>

#include "fleetsweep/v1/data.pb.h"
#include "worker/executors/bench_protocol.h"

namespace fleetsweep {

struct FailureHints {
  bool not_implemented = false;
  bool out_of_memory = false;
  std::string not_implemented_line;  // the (cut) line that carried the hint
  std::string out_of_memory_line;
};

// Sets hints found in one line of output (any stream). Cheap; never throws.
void ScanLineForHints(std::string_view line, FailureHints* hints);

struct RunOutcome {
  std::string launch_error;  // non-empty: the child never ran (e.g. "execve: No such file")
  bool timed_out = false;
  double timeout_seconds = 0;
  bool cancelled = false;
  bool exited = false;  // exited normally with exit_code
  int exit_code = 0;
  int term_signal = 0;  // killed by this signal (0: none)
  bool oom_kill_observed = false;
  std::string stdout_tail;
  std::string stderr_tail;
  FailureHints hints;                       // from streaming lines
  const ProtocolState* protocol = nullptr;  // required
};

struct Classification {
  bool ok = false;
  v1::FailureClass failure_class = v1::FAILURE_CLASS_UNSPECIFIED;
  std::string detail;  // empty when ok
};

Classification Classify(const RunOutcome& outcome);

// "SIGSEGV (11, Segmentation fault)".
std::string SignalName(int sig);

}  // namespace fleetsweep
