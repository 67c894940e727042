// Clock: seconds on a monotonic clock, injectable so that timers (heartbeats, resends, hello
// retries) are unit-tested without sleeping.
#pragma once

#include <atomic>
#include <chrono>

namespace fleetsweep {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual double Now() const = 0;  // seconds, monotonic
};

class SteadyClock : public Clock {
 public:
  double Now() const override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

// A clock that moves only when told (tests). Now() may be read from another thread than the one
// that calls Advance() (an agent running in its own thread).
class FakeClock : public Clock {
 public:
  explicit FakeClock(double start = 1000.0) : now_(start) {}
  double Now() const override { return now_.load(); }
  void Advance(double seconds) { now_.store(now_.load() + seconds); }

 private:
  std::atomic<double> now_;
};

}  // namespace fleetsweep
