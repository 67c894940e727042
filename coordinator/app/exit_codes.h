// The exit codes of `fleetsweep run` and `fleetsweep-coordinator`: the one list (docs/cli.md
// shows the same table; `fleetsweep help run` prints it from here). A test runs a real process
// into each of them (tests/cli/exit_codes_test.py).
//
// A process killed by a signal it does not handle (SIGKILL) has no exit code of its own; SIGINT and
// SIGTERM are handled: the sweep stops, what is stored is aggregated, and the codes below apply
// (0 when the partial result is fine); a second one during that wind-down ends the process at
// once (130, common/util/process.h: ExitOnSecondStopSignal).
#pragma once

#include <string>
#include <vector>

namespace fleetsweep {

enum class ExitCode : int {
  kOk = 0,                  // finished, or stopped by SIGINT/SIGTERM; results written
  kBadInput = 2,            // bad flags, spec, executor section or --out directory, or the
                            // store holds another spec under the sweep's name
  kStartOrIoFailure = 3,    // the store cannot be opened or read back, a port cannot be bound
                            // (ZeroMQ, metrics), local workers cannot start, or the results
                            // cannot be written
  kNothingSucceeded = 4,    // finished, but no configuration succeeded: the result is invalid
  kAuditRefused = 5,        // the honest-measurement audit refused the result
                            // (docs/honest-measurement.md); results are written, valid: false
  kStoreLostData = 6,       // the store lost data the coordinator had stored; no results written
  kStoreRefusedWrites = 7,  // store writes failed for longer than --store-give-up (docs/store.md)
  kStoppedAtOnce = 130,     // a second SIGINT/SIGTERM while winding down: exited at once, no
                            // results written; the store keeps what it made durable (run again
                            // to resume)
};

// The line a process writes to stderr when a second signal ends it (kStoppedAtOnce).
extern const char kStoppedAtOnceMessage[];

// Every code above, ascending.
const std::vector<ExitCode>& AllExitCodes();

// One line: what the code means (the table of docs/cli.md and `fleetsweep help run`).
const char* Describe(ExitCode code);

// "Exit codes:\n  0  ...\n  2  ...\n" for a command's help text.
std::string ExitCodesHelp();

inline int ToInt(ExitCode code) { return static_cast<int>(code); }

}  // namespace fleetsweep
