#include "worker/executors/timing_gate.h"

namespace fleetsweep {

bool TimingGate::Acquire(const std::atomic<bool>* cancel) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return !held_ || (cancel && cancel->load()); });
  if (held_) return false;  // woken by a cancel while another slot times
  held_ = true;
  acquisitions_.fetch_add(1);
  return true;
}

void TimingGate::Release() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    held_ = false;
  }
  cv_.notify_all();
}

void TimingGate::WakeAll() {
  { std::lock_guard<std::mutex> lock(mu_); }
  cv_.notify_all();
}

TimingGate* TimingGates::ForDevice(const std::string& device) {
  std::lock_guard<std::mutex> lock(mu_);
  std::unique_ptr<TimingGate>& g = gates_[device];
  if (!g) g = std::make_unique<TimingGate>();
  return g.get();
}

TimingGate* TimingGates::Share(const std::string& device) {
  TimingGate* g = ForDevice(device);
  g->AddSharer();
  return g;
}

void TimingGates::WakeAll() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [device, gate] : gates_) gate->WakeAll();
}

}  // namespace fleetsweep
