#include "worker/agent/pacing.h"

#include <algorithm>
#include <cmath>

namespace fleetsweep {

namespace {
constexpr double kWeight = 0.2;  // of the newest duration in the average
}  // namespace

void Pacing::Observed(double seconds) {
  if (!(seconds >= 0)) return;  // NaN or negative: not a duration
  average_ = average_ < 0 ? seconds : (1 - kWeight) * average_ + kWeight * seconds;
}

int Pacing::Prefetch() const {
  const int lo = std::max(0, o_.min_prefetch);
  const int hi = std::max(lo, o_.max_prefetch);
  if (average_ < 0) return lo;
  if (average_ <= 0) return hi;
  const double want = std::ceil(o_.hold_seconds / average_);
  return want >= hi ? hi : std::max(lo, static_cast<int>(want));
}

int Pacing::ToRequest(int capacity, int held_max, int slots) const {
  if (capacity <= 0) return 0;
  const int held = held_max - capacity;
  if (held < slots || 2 * capacity >= held_max) return capacity;
  return 0;
}

double Pacing::FlushSeconds() const {
  const double hi = std::max(o_.flush_seconds, o_.max_flush_seconds);
  return average_ < 0 ? o_.flush_seconds : std::clamp(2 * average_, o_.flush_seconds, hi);
}

bool Pacing::TakeNow(size_t waiting, double since, double now, bool urgent) const {
  if (waiting == 0) return false;
  const bool another_soon = average_ >= 0 && average_ <= std::max(1, o_.slots) * FlushSeconds();
  return urgent || !another_soon || waiting >= o_.flush_count || now >= TakeDue(since);
}

}  // namespace fleetsweep
