// Clock: seconds on a monotonic clock, injectable so that timers (heartbeats, resends, hello
// retries) are unit-tested without sleeping.
#pragma once

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

// A clock that moves only when told (tests).
class FakeClock : public Clock {
 public:
  explicit FakeClock(double start = 1000.0) : now_(start) {}
  double Now() const override { return now_; }
  void Advance(double seconds) { now_ += seconds; }

 private:
  double now_;
};

}  // namespace fleetsweep
