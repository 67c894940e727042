#include "common/stats/hierarchical.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>

#include "common/stats/descriptive.h"
#include "common/stats/packed_indices.h"
#include "common/stats/rng.h"

namespace fleetsweep::stats {
namespace {

Status CheckExecutions(const std::vector<std::vector<double>>& executions, int resamples) {
  if (executions.empty()) {
    return Status::InvalidArgument("HierarchicalBootstrap: no executions");
  }
  for (size_t e = 0; e < executions.size(); ++e) {
    FS_RETURN_IF_ERROR(CheckSample(executions[e], "HierarchicalBootstrap")
                           .WithContext("execution " + std::to_string(e)));
  }
  if (resamples < 1) {
    return Status::InvalidArgument("HierarchicalBootstrap: resamples must be >= 1, got " +
                                   std::to_string(resamples));
  }
  return Status::Ok();
}

// True when every value has the same bits as the first (so -0.0 and 0.0 differ) and doubling
// it cannot overflow: then every resampled median is exactly that value.
bool AllSameBits(const std::vector<double>& xs) {
  if (xs.empty() || !(std::fabs(xs[0]) <= std::numeric_limits<double>::max() / 2)) return false;
  for (double x : xs) {
    if (std::memcmp(&x, &xs[0], sizeof x) != 0) return false;
  }
  return true;
}

// How a round draws (the stream; hierarchical.h states it). Combined: every execution holds the
// same n samples and R = k * n^n <= kCombinedLimit; each of the k draws is one index U in [0, R):
// execution U / n^n, its samples the base-n digits of U mod n^n (most significant first), and
// table[U * n + j] is the sorted-pool position of the j-th. Otherwise: k execution draws, then the
// drawn executions' sample draws (a second packed sequence).
struct HierarchicalDraw {
  bool combined = false;
  uint32_t n = 0;
  PackedPlan plan;              // combined: k ranges of R; otherwise: k ranges of k
  std::vector<uint32_t> table;  // combined only
};

constexpr uint64_t kCombinedLimit = 65536;

HierarchicalDraw PlanDraw(const std::vector<std::vector<double>>& executions,
                          const std::vector<uint32_t>& position) {
  HierarchicalDraw d;
  const uint32_t k = static_cast<uint32_t>(executions.size());
  const size_t n = executions[0].size();
  bool equal = true;
  for (const auto& ex : executions) equal = equal && ex.size() == n;
  uint64_t combos = 1;  // n^n, stopped once R is over the limit
  for (size_t j = 0; j < n && combos * k <= kCombinedLimit; ++j) combos *= n;
  if (!equal || combos * k > kCombinedLimit) {
    d.plan = PlanPacked(std::vector<uint32_t>(k, k));
    return d;
  }
  d.combined = true;
  d.n = static_cast<uint32_t>(n);
  const uint32_t range = static_cast<uint32_t>(combos * k);
  d.plan = PlanPacked(std::vector<uint32_t>(k, range));
  d.table.resize(static_cast<size_t>(range) * n);
  for (uint32_t u = 0; u < range; ++u) {
    const uint32_t e = static_cast<uint32_t>(u / combos);
    uint64_t c = u % combos;
    for (size_t j = n; j-- > 0;) {  // least significant digit last
      d.table[static_cast<size_t>(u) * n + j] = position[e * n + c % n];
      c /= n;
    }
  }
  return d;
}

// Cumulative rows, for combined draws of at most 255 values per round: row U holds, for every
// sorted position p (16 per vector, padded), how many of U's n samples sit at or below p. A round
// adds its k rows; the position holding 0-based rank r is the number of positions whose
// cumulative count is <= r (the sums are the prefix sums of the per-position counts, so the
// medians are those of the counting loop). The padding holds every sample (count n per row), so
// it is never <= a rank.
typedef uint8_t Bytes __attribute__((vector_size(16)));

constexpr size_t kRowsLimitBytes = 256 * 1024;

struct CumulativeRows {
  size_t width = 0;             // vectors per row
  std::vector<Bytes> rows;      // one per (execution, multiset of sample indices)
  std::vector<uint32_t> index;  // combined index U -> its row (orders of one multiset share it)
};

// Each sample-index combination c in [0, n^n) -> the id of its multiset (first seen first), and
// one combination per id.
void Multisets(uint32_t n, size_t combos, std::vector<uint32_t>* id, std::vector<size_t>* rep) {
  std::vector<uint32_t> id_of_sorted(combos, UINT32_MAX), digits(n);
  id->resize(combos);
  for (size_t c = 0; c < combos; ++c) {
    size_t rest = c;
    for (uint32_t j = n; j-- > 0; rest /= n) digits[j] = static_cast<uint32_t>(rest % n);
    std::sort(digits.begin(), digits.end());
    size_t sorted = 0;
    for (uint32_t x : digits) sorted = sorted * n + x;
    if (id_of_sorted[sorted] == UINT32_MAX) {
      id_of_sorted[sorted] = static_cast<uint32_t>(rep->size());
      rep->push_back(c);
    }
    (*id)[c] = id_of_sorted[sorted];
  }
}

// Empty when the rows do not apply (not combined, over 255 values a round, or over the limit).
CumulativeRows BuildRows(const HierarchicalDraw& d, uint32_t k, size_t total, size_t drawn) {
  CumulativeRows c;
  if (!d.combined || drawn > 255 || total > 255) return c;
  const size_t combos = d.table.size() / d.n / k;
  std::vector<uint32_t> id;
  std::vector<size_t> rep;
  Multisets(d.n, combos, &id, &rep);
  const size_t width = (total + 15) / 16, m = rep.size();
  if (k * m * width * sizeof(Bytes) > kRowsLimitBytes) return c;
  c.width = width;
  c.rows.assign(k * m * width, Bytes{});
  c.index.resize(k * combos);
  Bytes lane;
  for (int i = 0; i < 16; ++i) lane[i] = static_cast<uint8_t>(i);
  for (size_t e = 0; e < k; ++e) {
    for (size_t u = e * combos; u < (e + 1) * combos; ++u) c.index[u] = e * m + id[u - e * combos];
    for (size_t r = 0; r < m; ++r) {
      Bytes* row = c.rows.data() + (e * m + r) * width;
      const uint32_t* pos = d.table.data() + (e * combos + rep[r]) * d.n;
      for (uint32_t j = 0; j < d.n; ++j) {
        const uint8_t p = static_cast<uint8_t>(pos[j]);
        for (size_t v = 0; v < width; ++v) {
          const Bytes at = lane + static_cast<uint8_t>(16 * v);
          row[v] -= reinterpret_cast<Bytes>(at >= p);  // -(-1) per position at or past p
        }
      }
    }
  }
  return c;
}

// The number of positions whose cumulative count is <= rank (rank < 255).
size_t PositionOfRank(const Bytes* acc, size_t width, size_t rank) {
  Bytes below{};
  const uint8_t r = static_cast<uint8_t>(rank);
  for (size_t v = 0; v < width; ++v) below -= reinterpret_cast<Bytes>(acc[v] <= r);
  size_t n = 0;
  for (int i = 0; i < 16; ++i) n += below[i];
  return n;
}

// The rounds by rows (the same draws as the counting loop, from `rng`), for rows of W vectors:
// a fixed width keeps the round's sums in registers.
template <size_t W>
void MediansByRowsOf(const HierarchicalDraw& d, const CumulativeRows& c,
                     const std::vector<double>& sorted, size_t drawn, int resamples, Rng* rng,
                     std::vector<double>* medians) {
  const size_t mid = drawn / 2;
  const size_t lower_rank = drawn % 2 == 1 ? mid : mid - 1;
  const Bytes* rows = c.rows.data();
  const uint32_t* index = c.index.data();
  for (int b = 0; b < resamples; ++b) {
    Bytes sum[W] = {};
    DrawPacked(d.plan, rng, [&](size_t, uint32_t u) {
      const Bytes* row = rows + static_cast<size_t>(index[u]) * W;
#pragma GCC unroll 16
      for (size_t v = 0; v < W; ++v) sum[v] += row[v];
    });
    const double upper = sorted[PositionOfRank(sum, W, mid)];
    if (drawn % 2 == 1) {
      medians->push_back(upper);
    } else {
      medians->push_back((sorted[PositionOfRank(sum, W, lower_rank)] + upper) / 2);
    }
  }
}

// Calls MediansByRowsOf<c.width> (1 <= width <= 16: at most 255 positions).
template <size_t W = 1>
void MediansByRows(const HierarchicalDraw& d, const CumulativeRows& c,
                   const std::vector<double>& sorted, size_t drawn, int resamples, Rng* rng,
                   std::vector<double>* medians) {
  if (c.width == W) return MediansByRowsOf<W>(d, c, sorted, drawn, resamples, rng, medians);
  if constexpr (W < 16) MediansByRows<W + 1>(d, c, sorted, drawn, resamples, rng, medians);
}

}  // namespace

StatusOr<std::vector<double>> HierarchicalBootstrapMedians(
    const std::vector<std::vector<double>>& executions, int resamples, uint64_t seed) {
  FS_RETURN_IF_ERROR(CheckExecutions(executions, resamples));
  // Each sample's position in the sorted pool of all samples: a round counts its draws per
  // position and finds its middle one(s) by a prefix scan, instead of copying the draw and
  // selecting in it (the same draws and the same median, several times cheaper). With combined
  // draws of at most 255 values a round, cumulative rows (BuildRows) add each drawn execution's
  // samples in a few vector additions instead (the same medians again).
  const uint32_t k = static_cast<uint32_t>(executions.size());
  std::vector<size_t> offset(k + 1, 0);
  for (uint32_t e = 0; e < k; ++e) offset[e + 1] = offset[e] + executions[e].size();
  const size_t total = offset[k];
  std::vector<uint32_t> order(total);
  std::iota(order.begin(), order.end(), 0u);
  std::vector<double> flat;
  flat.reserve(total);
  for (const auto& ex : executions) flat.insert(flat.end(), ex.begin(), ex.end());
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return flat[a] < flat[b]; });
  std::vector<uint32_t> position(total);
  std::vector<double> sorted(total);
  for (size_t r = 0; r < total; ++r) {
    position[order[r]] = static_cast<uint32_t>(r);
    sorted[r] = flat[order[r]];
  }
  Rng rng(seed);
  std::vector<double> medians;
  medians.reserve(static_cast<size_t>(resamples));
  if (AllSameBits(flat)) {
    // Exact shortcut: every round's median is the one value (v, or (v + v) / 2 == v), so the
    // draws need not be made (the stream is local to this call).
    medians.assign(static_cast<size_t>(resamples), flat[0]);
    return medians;
  }
  std::vector<uint32_t> count(total);
  uint32_t* counts = count.data();
  const HierarchicalDraw draw = PlanDraw(executions, position);
  const CumulativeRows rows = BuildRows(draw, k, total, static_cast<size_t>(k) * draw.n);
  if (rows.width > 0) {
    MediansByRows(draw, rows, sorted, static_cast<size_t>(k) * draw.n, resamples, &rng, &medians);
    return medians;
  }
  std::vector<uint32_t> drawn_execs(k);
  for (int b = 0; b < resamples; ++b) {
    std::fill(count.begin(), count.end(), 0u);
    size_t drawn = 0;
    if (draw.combined) {
      const uint32_t n = draw.n;
      const uint32_t* table = draw.table.data();
      DrawPacked(draw.plan, &rng, [&](size_t, uint32_t u) {
        const uint32_t* row = table + static_cast<size_t>(u) * n;
        for (uint32_t j = 0; j < n; ++j) ++counts[row[j]];
      });
      drawn = static_cast<size_t>(k) * n;
    } else {
      DrawPackedInto(draw.plan, &rng, drawn_execs.data());
      std::vector<uint32_t> ranges;
      std::vector<const uint32_t*> owner;  // the drawn execution's positions, per sample draw
      for (uint32_t e : drawn_execs) {
        const uint32_t n = static_cast<uint32_t>(offset[e + 1] - offset[e]);
        ranges.insert(ranges.end(), n, n);
        owner.insert(owner.end(), n, position.data() + offset[e]);
      }
      drawn = ranges.size();
      DrawPacked(PlanPacked(ranges), &rng, [&](size_t i, uint32_t s) { ++counts[owner[i][s]]; });
    }
    // As MedianInPlace: the upper middle value; for an even count the mean with the lower one.
    // One prefix scan finds both: the first position whose inclusive prefix count exceeds the
    // wanted 0-based rank holds that rank (the draw has `drawn` > rank values, so it stops).
    const size_t mid = drawn / 2;
    const size_t lower_rank = drawn % 2 == 1 ? mid : mid - 1;
    size_t r = 0;
    size_t cum = counts[0];
    while (cum <= lower_rank) cum += counts[++r];
    const double lower = sorted[r];
    while (cum <= mid) cum += counts[++r];
    const double upper = sorted[r];
    medians.push_back(drawn % 2 == 1 ? upper : (lower + upper) / 2);
  }
  return medians;
}

StatusOr<Interval> HierarchicalBootstrapMedianCI(const std::vector<std::vector<double>>& executions,
                                                 double confidence, int resamples, uint64_t seed) {
  if (!(confidence > 0.0 && confidence < 1.0)) {
    return Status::InvalidArgument("HierarchicalBootstrap: confidence must be in (0, 1), got " +
                                   std::to_string(confidence));
  }
  if (resamples >= 1 && !executions.empty() && !executions.front().empty()) {
    const double x = executions.front().front();
    bool one_value = std::isfinite(x);
    for (size_t e = 0; e < executions.size() && one_value; ++e) {
      if (executions[e].empty()) one_value = false;
      for (size_t i = 0; i < executions[e].size() && one_value; ++i) {
        one_value = executions[e][i] == x;
      }
    }
    if (one_value) return Interval{x, x};
  }
  FS_ASSIGN_OR_RETURN(std::vector<double> medians,
                      HierarchicalBootstrapMedians(executions, resamples, seed));
  const double alpha = 1.0 - confidence;
  Interval ci;
  ci.low = QuantileInPlace(&medians, alpha / 2);
  ci.high = QuantileInPlace(&medians, 1.0 - alpha / 2);
  return ci;
}

}  // namespace fleetsweep::stats
