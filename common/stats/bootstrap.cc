#include "common/stats/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "common/stats/descriptive.h"
#include "common/stats/rng.h"

namespace fleetsweep::stats {
namespace {

// Adds n uniform draws from [0, n) to counts[], each exactly uniform by Lemire's multiply-shift
// method. For n < 2^8 a 64-bit output yields four 16-bit lanes, otherwise two 32-bit lanes; a
// lane whose low product bits fall below n might lie in the biased zone (probability
// < n / 2^16 resp. n / 2^32): it is checked against the exact threshold and, if biased, replaced
// by a fresh Rng::UniformIndex draw.
template <int kLaneBits>
inline void AddLane(Rng* rng, uint64_t lane, uint32_t n, uint32_t* counts) {
  constexpr uint64_t kMask = (uint64_t{1} << kLaneBits) - 1;
  const uint64_t m = lane * n;
  uint64_t index = m >> kLaneBits;
  if ((m & kMask) < n) {  // rare: only here can the lane lie in the biased zone
    const uint64_t threshold = ((kMask + 1) - n) % n;
    if ((m & kMask) < threshold) index = rng->UniformIndex(n);
  }
  ++counts[index];
}

template <int kLaneBits>
inline void DrawCountsLanes(Rng* rng, uint32_t n, uint32_t* counts) {
  constexpr uint32_t kLanes = 64 / kLaneBits;
  constexpr uint64_t kMask = (uint64_t{1} << kLaneBits) - 1;
  uint32_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const uint64_t r = rng->Next();
    for (uint32_t k = 0; k < kLanes; ++k) {  // unrolled by the compiler
      AddLane<kLaneBits>(rng, (r >> (k * kLaneBits)) & kMask, n, counts);
    }
  }
  if (i < n) {
    const uint64_t r = rng->Next();
    for (uint32_t k = 0; i < n; ++k, ++i) {
      AddLane<kLaneBits>(rng, (r >> (k * kLaneBits)) & kMask, n, counts);
    }
  }
}

// Draws `resamples` resamples of the sorted sample and calls emit(lo, hi) with the positions (in
// `sorted`) of the resample's lower and upper middle values (lo == hi for odd n).
template <typename Emit>
void ResampleMedianPositions(size_t n, int resamples, uint64_t seed, std::vector<uint32_t>* buf,
                             Emit emit) {
  Rng rng(seed);
  buf->resize(n);
  uint32_t* counts = buf->data();
  const uint32_t n32 = static_cast<uint32_t>(n);
  const bool odd = n % 2 == 1;
  const uint64_t upper_rank = n / 2;  // 0-based ranks of the middle draw(s)
  const uint64_t lower_rank = odd ? upper_rank : upper_rank - 1;
  for (int b = 0; b < resamples; ++b) {
    std::fill(counts, counts + n, 0u);
    if (n < 256) {
      DrawCountsLanes<16>(&rng, n32, counts);
    } else {
      DrawCountsLanes<32>(&rng, n32, counts);
    }
    // Branch-free scan: lo (hi) = number of positions whose inclusive prefix count is <= the
    // lower (upper) middle rank, i.e. the position holding that rank.
    uint64_t cum = 0;
    size_t lo = 0, hi = 0;
    for (size_t j = 0; j < n; ++j) {
      cum += counts[j];
      lo += cum <= lower_rank;
      hi += cum <= upper_rank;
    }
    emit(lo, hi);
  }
}

Status CheckArgs(const std::vector<double>& samples, double confidence, int resamples) {
  FS_RETURN_IF_ERROR(CheckSample(samples, "BootstrapMedianCI"));
  if (!(confidence > 0.0 && confidence < 1.0)) {
    return Status::InvalidArgument("BootstrapMedianCI: confidence must be in (0, 1), got " +
                                   std::to_string(confidence));
  }
  if (resamples < 1) {
    return Status::InvalidArgument("BootstrapMedianCI: resamples must be >= 1, got " +
                                   std::to_string(resamples));
  }
  if (samples.size() >= std::numeric_limits<uint32_t>::max()) {
    return Status::InvalidArgument("BootstrapMedianCI: too many samples");
  }
  return Status::Ok();
}

// Below this sample size the resampled medians are tallied per (lo, hi) position pair in an
// n x n table, and the two quantiles read from the few distinct values, instead of selecting
// among `resamples` doubles.
constexpr size_t kPairTableMaxN = 64;

// Type-7 quantiles at q_low and q_high of the multiset given by distinct (value, count) pairs
// sorted by value, with `total` = sum of counts.
Interval QuantilesOfTally(const std::vector<std::pair<double, uint32_t>>& tally, uint64_t total,
                          double q_low, double q_high) {
  auto order_stat = [&tally](uint64_t rank) {  // 0-based
    uint64_t cum = 0;
    for (const auto& [value, count] : tally) {
      cum += count;
      if (rank < cum) return value;
    }
    return tally.back().first;
  };
  auto quantile = [&](double q) {
    const double h = static_cast<double>(total - 1) * q;
    uint64_t lo = static_cast<uint64_t>(std::floor(h));
    if (lo > total - 1) lo = total - 1;
    const double pair[2] = {order_stat(lo), order_stat(std::min(lo + 1, total - 1))};
    // QuantileSorted on the two neighbours at q = h - lo interpolates exactly as it would on the
    // full sorted array (same Lerp, same weight).
    return QuantileSorted(pair, 2, h - static_cast<double>(lo));
  };
  return Interval{quantile(q_low), quantile(q_high)};
}

}  // namespace

StatusOr<Interval> BootstrapMedianCI(const std::vector<double>& samples, double confidence,
                                     int resamples, uint64_t seed, BootstrapWorkspace* workspace) {
  FS_RETURN_IF_ERROR(CheckArgs(samples, confidence, resamples));
  const size_t n = samples.size();
  if (n == 1) return Interval{samples[0], samples[0]};

  BootstrapWorkspace local;
  BootstrapWorkspace& ws = workspace != nullptr ? *workspace : local;
  ws.sorted.assign(samples.begin(), samples.end());
  std::sort(ws.sorted.begin(), ws.sorted.end());
  const double* sorted = ws.sorted.data();
  const double alpha = 1.0 - confidence;

  if (n > kPairTableMaxN) {
    ws.medians.resize(static_cast<size_t>(resamples));
    double* out = ws.medians.data();
    ResampleMedianPositions(n, resamples, seed, &ws.counts,
                            [&](size_t lo, size_t hi) { *out++ = (sorted[lo] + sorted[hi]) / 2; });
    Interval ci;
    ci.low = QuantileInPlace(&ws.medians, alpha / 2);
    ci.high = QuantileInPlace(&ws.medians, 1.0 - alpha / 2);
    return ci;
  }

  ws.pair_counts.assign(n * n, 0u);
  uint32_t* pair_counts = ws.pair_counts.data();
  ResampleMedianPositions(n, resamples, seed, &ws.counts,
                          [&](size_t lo, size_t hi) { ++pair_counts[lo * n + hi]; });
  ws.tally.clear();
  for (size_t key = 0; key < n * n; ++key) {
    if (pair_counts[key] != 0) {
      ws.tally.emplace_back((sorted[key / n] + sorted[key % n]) / 2, pair_counts[key]);
    }
  }
  std::sort(ws.tally.begin(), ws.tally.end());
  return QuantilesOfTally(ws.tally, static_cast<uint64_t>(resamples), alpha / 2, 1.0 - alpha / 2);
}

StatusOr<std::vector<double>> BootstrapMedians(const std::vector<double>& samples, int resamples,
                                               uint64_t seed) {
  FS_RETURN_IF_ERROR(CheckArgs(samples, 0.5, resamples));
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> medians;
  medians.reserve(static_cast<size_t>(resamples));
  if (samples.size() == 1) {
    medians.assign(static_cast<size_t>(resamples), samples[0]);
    return medians;
  }
  std::vector<uint32_t> counts;
  ResampleMedianPositions(samples.size(), resamples, seed, &counts, [&](size_t lo, size_t hi) {
    medians.push_back((sorted[lo] + sorted[hi]) / 2);
  });
  return medians;
}

double RelativeHalfWidth(const Interval& ci, double center) {
  const double half = (ci.high - ci.low) / 2;
  if (center == 0.0) {
    if (half == 0.0) return 0.0;
    return std::numeric_limits<double>::infinity();
  }
  return half / std::fabs(center);
}

}  // namespace fleetsweep::stats
