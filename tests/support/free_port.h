// FreePort: a TCP port on 127.0.0.1 that nothing listens on right now, for tests.
//
// It binds a socket to 127.0.0.1:0, asks the kernel which port it got, and closes the socket. The
// port is free at that instant; another process may take it before the caller binds it, so callers
// that start a server on it should retry with a new port when the bind fails (RedisServer does).
//
// Thread-safety: safe to call from any thread.
#pragma once

#include "common/status.h"

namespace fleetsweep::testing {

// Returns a free loopback port, or kUnavailable naming the failing system call.
StatusOr<int> FreePort();

}  // namespace fleetsweep::testing
