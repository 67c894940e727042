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

}  // namespace

StatusOr<std::vector<double>> HierarchicalBootstrapMedians(
    const std::vector<std::vector<double>>& executions, int resamples, uint64_t seed) {
  FS_RETURN_IF_ERROR(CheckExecutions(executions, resamples));
  // Each sample's position in the sorted pool of all samples: a round counts its draws per
  // position and finds its middle one(s) by a prefix scan, instead of copying the draw and
  // selecting in it (the same draws and the same median, several times cheaper).
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
  FS_ASSIGN_OR_RETURN(std::vector<double> medians,
                      HierarchicalBootstrapMedians(executions, resamples, seed));
  const double alpha = 1.0 - confidence;
  Interval ci;
  ci.low = QuantileInPlace(&medians, alpha / 2);
  ci.high = QuantileInPlace(&medians, 1.0 - alpha / 2);
  return ci;
}

}  // namespace fleetsweep::stats
