#include "common/stats/hodges_lehmann.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/stats/descriptive.h"
#include "common/stats/distributions.h"
#include "common/stats/rank_tests.h"

namespace fleetsweep::stats {
namespace {

constexpr size_t kMaxPairs = 50'000'000;
constexpr int kExactLimit = 50;  // exact when both sizes are below this (R's rule)

}  // namespace

std::vector<double> MannWhitneyExactCdf(int n, int m) {
  if (n < 1 || m < 1) return {};
  // row[a] holds f(a, b, .) for the current b: the number of orderings of a x's and b y's with
  // U = u (pairs x > y). Counts reach C(n+m, n), exact in a double up to ~2^53 and accurate to
  // rounding beyond; all terms are positive, so there is no cancellation.
  std::vector<std::vector<double>> row(static_cast<size_t>(n) + 1, std::vector<double>{1.0});
  for (int b = 1; b <= m; ++b) {
    std::vector<std::vector<double>> next(static_cast<size_t>(n) + 1);
    next[0] = {1.0};
    for (int a = 1; a <= n; ++a) {
      std::vector<double>& out = next[a];
      out.assign(static_cast<size_t>(a) * b + 1, 0.0);
      const std::vector<double>& x_largest = next[a - 1];  // f(a-1, b, u-b)
      for (size_t u = 0; u < x_largest.size(); ++u) out[u + b] += x_largest[u];
      const std::vector<double>& y_largest = row[a];  // f(a, b-1, u)
      for (size_t u = 0; u < y_largest.size(); ++u) out[u] += y_largest[u];
    }
    row.swap(next);
  }
  std::vector<double> cdf = std::move(row[n]);
  double total = 0;
  for (double c : cdf) total += c;
  double cum = 0;
  for (double& c : cdf) {
    cum += c;
    c = cum / total;
  }
  cdf.back() = 1.0;
  return cdf;
}

StatusOr<ShiftEstimate> HodgesLehmannShift(const std::vector<double>& x,
                                           const std::vector<double>& y, double confidence) {
  FS_RETURN_IF_ERROR(CheckSample(x, "HodgesLehmannShift x"));
  FS_RETURN_IF_ERROR(CheckSample(y, "HodgesLehmannShift y"));
  if (!(confidence > 0.0 && confidence < 1.0)) {
    return Status::InvalidArgument("HodgesLehmannShift: confidence must be in (0, 1), got " +
                                   std::to_string(confidence));
  }
  const size_t n = x.size(), m = y.size();
  if (n > kMaxPairs / m) {
    return Status::InvalidArgument("HodgesLehmannShift: too many pairs (" + std::to_string(n) +
                                   " x " + std::to_string(m) + ")");
  }
  const size_t pairs = n * m;
  const double half_alpha = (1.0 - confidence) / 2;

  ShiftEstimate res;
  size_t k = 0;  // 1-based rank of the lower bound
  if (n < kExactLimit && m < kExactLimit) {
    res.exact = true;
    const std::vector<double> cdf = MannWhitneyExactCdf(static_cast<int>(n), static_cast<int>(m));
    // Smallest q with P(U <= q) >= alpha/2 (a relative slack of 1e-12 absorbs rounding when the
    // two are equal in exact arithmetic).
    while (k < cdf.size() && cdf[k] < half_alpha * (1 - 1e-12)) ++k;
    if (k == 0) k = 1;
    res.achieved_confidence = 1.0 - 2.0 * cdf[k - 1];
  } else {
    std::vector<double> all(x);
    all.insert(all.end(), y.begin(), y.end());
    const double tie_term = MidRanks(all).tie_term;
    const double dn = static_cast<double>(n), dm = static_cast<double>(m), dt = dn + dm;
    const double mu = dn * dm / 2;
    const double sigma = std::sqrt(dn * dm / 12 * ((dt + 1) - tie_term / (dt * (dt - 1))));
    const double z = NormalQuantile(1.0 - half_alpha);
    const double q = std::ceil(mu - 0.5 - z * sigma - 1e-9);
    k = q < 1 ? 1 : static_cast<size_t>(q);
    k = std::min(k, (pairs + 1) / 2);
    res.achieved_confidence =
        sigma > 0 ? 1.0 - 2.0 * NormalCdf((static_cast<double>(k) - 1 + 0.5 - mu) / sigma) : 0.0;
  }
  res.achieved_confidence = std::max(0.0, res.achieved_confidence);

  std::vector<double> diffs;
  diffs.reserve(pairs);
  for (double xi : x) {
    for (double yj : y) diffs.push_back(xi - yj);
  }
  // Select the bounds first (nth_element keeps the multiset), then the median.
  std::nth_element(diffs.begin(), diffs.begin() + (k - 1), diffs.end());
  res.ci.low = diffs[k - 1];
  std::nth_element(diffs.begin(), diffs.begin() + (pairs - k), diffs.end());
  res.ci.high = diffs[pairs - k];
  res.estimate = MedianInPlace(&diffs);
  return res;
}

}  // namespace fleetsweep::stats
