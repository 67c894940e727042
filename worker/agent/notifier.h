// Notifier: an eventfd that wakes the agent's event loop (it is polled beside the ZeroMQ
// socket). Notify() may be called from any thread; Clear() from the loop thread.
// Ownership: owns the descriptor. Errors: a failed eventfd() leaves fd() == -1 (the loop then
// falls back to its timers; the constructor never throws).
#pragma once

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

namespace fleetsweep {

class Notifier {
 public:
  Notifier() : fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
  ~Notifier() {
    if (fd_ >= 0) close(fd_);
  }
  Notifier(const Notifier&) = delete;
  Notifier& operator=(const Notifier&) = delete;

  void Notify() const {
    uint64_t one = 1;
    if (fd_ >= 0) {
      ssize_t ignored = write(fd_, &one, sizeof one);
      (void)ignored;
    }
  }
  void Clear() const {
    uint64_t v;
    if (fd_ >= 0) {
      ssize_t ignored = read(fd_, &v, sizeof v);
      (void)ignored;
    }
  }
  int fd() const { return fd_; }

 private:
  int fd_;
};

}  // namespace fleetsweep
