// ScopedSigpipeGuard: keeps SIGPIPE from killing the process during a socket or pipe write.
//
// hiredis writes with write(2): on a connection the server has closed, a second write raises
// SIGPIPE, which kills a process that has not ignored it; so does a write to the stdin pipe of a
// benchmark session that has died (LiveChild::WriteLine). This blocks SIGPIPE in the calling
// thread for the scope, then swallows a SIGPIPE raised meanwhile (one that was already pending
// before is left alone), so the failure surfaces as EPIPE -> kUnavailable instead.
//
// In a process that ignores SIGPIPE (SigpipeIgnored(), as StopOnSignals does for the binaries)
// the guard does nothing: the write fails with EPIPE anyway, and the four system calls per write
// are saved.
//
// Thread-safety: affects only the calling thread's signal mask; use it on one thread, in scope.
#pragma once

#include <signal.h>

namespace fleetsweep {

// Records that this process ignores SIGPIPE (call it right after signal(SIGPIPE, SIG_IGN); never
// undo the disposition afterwards). Thread-safe.
void SigpipeIgnored();

class ScopedSigpipeGuard {
 public:
  ScopedSigpipeGuard();
  ~ScopedSigpipeGuard();
  ScopedSigpipeGuard(const ScopedSigpipeGuard&) = delete;
  ScopedSigpipeGuard& operator=(const ScopedSigpipeGuard&) = delete;

 private:
  bool active_ = false;  // false: SIGPIPE is ignored process-wide, nothing to do
  sigset_t pipe_;
  sigset_t old_;
  bool was_pending_ = false;
};

}  // namespace fleetsweep
