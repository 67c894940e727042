// TimingGate: the per-device timing token. Slots that share a device never time concurrently:
// a session holds its device's gate only during the timed part of an execution (persistent
// sessions: between the `run` request and its `end`; one-shot sessions: the whole process, whose
// timed part cannot be told apart). Preparation (compilation, allocation) runs outside the gate,
// so several slots on one device prepare in parallel while one of them times.
//
// Thread-safety: all methods are thread-safe. TimingGates owns one gate per device name; the
// pointers it hands out stay valid for its lifetime.
#pragma once

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace fleetsweep {

class TimingGate {
 public:
  // Blocks until the token is free, then takes it; false (token not taken) once *cancel becomes
  // true and WakeAll() is called (the agent does both when it cancels a slot).
  bool Acquire(const std::atomic<bool>* cancel);
  void Release();
  // Wakes every waiter so that it re-checks its cancel flag.
  void WakeAll();
  int64_t acquisitions() const { return acquisitions_.load(); }
  // Slots that share this device (TimingGates::Share). With one, nothing else can time beside
  // its holder: a session may then hold the gate through prepare too (docs/executors.md).
  int sharers() const { return sharers_.load(); }
  void AddSharer() { sharers_.fetch_add(1); }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false;  // GUARDED_BY(mu_)
  std::atomic<int64_t> acquisitions_{0};
  std::atomic<int> sharers_{0};
};

// Holds a gate for a scope (Release on destruction when taken).
class TimingHold {
 public:
  TimingHold(TimingGate* gate, const std::atomic<bool>* cancel)
      : gate_(gate), held_(gate == nullptr || gate->Acquire(cancel)) {}
  ~TimingHold() {
    if (gate_ && held_) gate_->Release();
  }
  TimingHold(const TimingHold&) = delete;
  TimingHold& operator=(const TimingHold&) = delete;
  bool held() const { return held_; }

 private:
  TimingGate* gate_;
  bool held_;
};

class TimingGates {
 public:
  TimingGate* ForDevice(const std::string& device);
  // A slot on `device` will use its gate (counted in sharers()); returns the gate.
  TimingGate* Share(const std::string& device);
  void WakeAll();

 private:
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<TimingGate>> gates_;  // GUARDED_BY(mu_)
};

}  // namespace fleetsweep
