#include "common/util/sigpipe_guard.h"

#include <pthread.h>

#include <atomic>
#include <cerrno>
#include <ctime>

namespace fleetsweep {

namespace {
std::atomic<bool> g_ignored{false};
}  // namespace

void SigpipeIgnored() { g_ignored.store(true, std::memory_order_relaxed); }

ScopedSigpipeGuard::ScopedSigpipeGuard() {
  if (g_ignored.load(std::memory_order_relaxed)) return;
  active_ = true;
  sigemptyset(&pipe_);
  sigaddset(&pipe_, SIGPIPE);
  sigset_t pending;
  sigemptyset(&pending);
  sigpending(&pending);
  was_pending_ = sigismember(&pending, SIGPIPE) == 1;
  pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
}

ScopedSigpipeGuard::~ScopedSigpipeGuard() {
  if (!active_) return;
  if (!was_pending_) {
    sigset_t pending;
    sigemptyset(&pending);
    sigpending(&pending);
    if (sigismember(&pending, SIGPIPE) == 1) {
      timespec zero{0, 0};
      while (sigtimedwait(&pipe_, nullptr, &zero) < 0 && errno == EINTR) {
      }
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

}  // namespace fleetsweep
