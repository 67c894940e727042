// GiveUpClock: when a worker stops trying to reach its coordinator (--give-up-after S).
//
// It counts from the last message heard from a coordinator (any message: a HeartbeatAck, a
// NoWork, a Reject from a restarted coordinator that does not know this worker yet), or from the
// start until the first. So a worker older than S keeps going through a coordinator restart
// shorter than S, and a connected worker whose coordinator goes silent (SIGKILLed, host gone)
// gives up S seconds after the last message, also while it is executing (the coordinator answers
// every heartbeat, so silence means it is gone). S <= 0: never give up.
//
// Time is whatever the caller passes (the agent's injected Clock). Not thread-safe; no errors.
#pragma once

namespace fleetsweep {

class GiveUpClock {
 public:
  GiveUpClock(double after_seconds, double start) : after_(after_seconds), last_(start) {}

  // A message from a coordinator arrived at `now`.
  void Heard(double now) {
    if (now > last_) last_ = now;
  }
  bool Expired(double now) const { return after_ > 0 && now - last_ > after_; }
  // When Expired() becomes true if nothing is heard (infinity when never).
  double Deadline() const { return after_ > 0 ? last_ + after_ : 1e300; }

 private:
  double after_;
  double last_;
};

}  // namespace fleetsweep
