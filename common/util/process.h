// Process-level helpers every fleetsweep executable shares: where the running binary lives, the
// stop flag that SIGINT and SIGTERM set, and the exit at once on a second one.
#pragma once

#include <atomic>
#include <string>

namespace fleetsweep {

// The directory of the running executable (/proc/self/exe), "." if unknown. The executables find
// their siblings (fleetsweep-worker, benches/) there.
std::string SelfDir();

// Installs the handlers of a fleetsweep executable: SIGINT and SIGTERM set the returned flag (the
// process's one stop flag: the caller winds down when it reads true), SIGPIPE is ignored (a peer
// that closed a pipe or socket is an error return, not a kill). Returns the same flag on every
// call; never fails.
const std::atomic<bool>& StopOnSignals();

// Arms the way out of a wind-down that takes too long (a large sweep's read back and aggregate,
// a store that stopped answering): once the stop flag is set, a further SIGINT or SIGTERM writes
// `message` (a static string; may be null) to stderr and ends the process at once with `code`
// (_exit: no destructor runs, nothing more is written; what a store made durable stays). Before
// the first signal nothing changes. Call after StopOnSignals; later calls replace code and
// message. Never fails.
void ExitOnSecondStopSignal(int code, const char* message);

}  // namespace fleetsweep
