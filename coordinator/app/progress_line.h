// ProgressLine: the live status line of a running sweep on stderr.
//
//   [cpu-demo] 12/42 finished (11 ok, 1 infeasible), 2 running, 37 executions (1 failed) of
//   ~120, 3.1 exec/s, ETA 29s, best 1.234 ms (BM=32 BN=16)
//
// Executions are counted as every other view counts them (common/store/execution_count.h: every
// execution the sweep stored, the reference's included, failed ones apart).
//
// On a terminal it is one line redrawn in place (`\r`), and log lines never run into it: while a
// ProgressLine is alive, the default spdlog logger writes through it (the line is cleared, the
// log line printed, the line redrawn). Elsewhere (a file, a pipe, CI) it prints a full line every
// 5 s and leaves the logger alone.
//
// ETA: from executions, not configurations: the executions still needed (every unfinished
// configuration still needs at least repetitions.min executions in all) divided by the rate of
// executions finished since the line started. "?" until one has finished.
//
// Thread-safety: Update/Finish from one thread; log lines may come from any thread (a mutex
// serialises the terminal).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "coordinator/scheduler/scheduler.h"

namespace fleetsweep {

// Executions still needed by the unfinished configurations (at least repetitions.min each, less
// the executions each already has, at least 1 while it is unfinished).
int64_t RemainingExecutions(const Scheduler& s);

// "42s", "3m05s", "2.5h".
std::string FormatDuration(double seconds);

class ProgressLine {
 public:
  // enabled false: prints nothing. tty: how to print (tests pass false; the binary isatty(2)).
  ProgressLine(bool enabled, bool tty);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Redraws at most every 0.5 s on a terminal, 5 s elsewhere (always when force).
  void Update(const Scheduler& s, double now, bool force);
  // Ends the line (a newline on a terminal) and gives the logger back.
  void Finish();

  // The text of the last line drawn (for tests).
  std::string last() const;

  struct Terminal;  // shared with the logger sink

 private:
  bool enabled_, tty_;
  double last_update_ = 0, start_ = 0;
  int64_t start_executions_ = -1;
  std::shared_ptr<Terminal> terminal_;
  bool finished_ = false;
};

}  // namespace fleetsweep
