// Process-level helpers every fleetsweep executable shares: where the running binary lives, and
// the stop flag that SIGINT and SIGTERM set.
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

}  // namespace fleetsweep
