#include "common/stats/rank_tests.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <utility>

#include "common/stats/descriptive.h"
#include "common/stats/distributions.h"
#include "common/stats/hodges_lehmann.h"

namespace fleetsweep::stats {
namespace {

// MannWhitneyExactCdf(n, m), computed once per (n, m) for the life of the process: the winner
// test compares the best configuration with every other one, mostly with the same numbers of
// executions, and the table costs O(n^2 m^2). At most 49 x 49 sizes (exact only below 50).
std::shared_ptr<const std::vector<double>> CachedExactCdf(int n, int m) {
  static std::mutex mu;
  static std::map<std::pair<int, int>, std::shared_ptr<const std::vector<double>>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = cache[{n, m}];
  if (!slot) slot = std::make_shared<const std::vector<double>>(MannWhitneyExactCdf(n, m));
  return slot;
}

}  // namespace

Ranking MidRanks(const std::vector<double>& values) {
  const size_t n = values.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(),
            [&values](size_t a, size_t b) { return values[a] < values[b]; });
  Ranking r;
  r.ranks.resize(n);
  size_t i = 0;
  while (i < n) {
    size_t j = i + 1;
    while (j < n && values[order[j]] == values[order[i]]) ++j;
    // Positions i..j-1 (0-based) hold ranks i+1..j; their average is (i + 1 + j) / 2.
    const double mid = 0.5 * static_cast<double>(i + 1 + j);
    for (size_t k = i; k < j; ++k) r.ranks[order[k]] = mid;
    const double t = static_cast<double>(j - i);
    r.tie_term += t * t * t - t;
    i = j;
  }
  return r;
}

StatusOr<MannWhitneyResult> MannWhitneyU(const std::vector<double>& x,
                                         const std::vector<double>& y) {
  FS_RETURN_IF_ERROR(CheckSample(x, "MannWhitneyU x"));
  FS_RETURN_IF_ERROR(CheckSample(y, "MannWhitneyU y"));
  std::vector<double> all;
  all.reserve(x.size() + y.size());
  all.insert(all.end(), x.begin(), x.end());
  all.insert(all.end(), y.begin(), y.end());
  const Ranking ranking = MidRanks(all);
  const double n1 = static_cast<double>(x.size());
  const double n2 = static_cast<double>(y.size());
  const double n = n1 + n2;
  double r1 = 0;
  for (size_t i = 0; i < x.size(); ++i) r1 += ranking.ranks[i];

  MannWhitneyResult res;
  res.u = r1 - n1 * (n1 + 1) / 2;
  const double u = std::max(res.u, n1 * n2 - res.u);
  const double mu = n1 * n2 / 2;
  const double sigma = std::sqrt(n1 * n2 / 12 * ((n + 1) - ranking.tie_term / (n * (n - 1))));
  if (!(sigma > 0)) return res;  // all values equal: z = 0, p = 1
  res.z = (u - mu - 0.5) / sigma;
  res.p_value = std::clamp(2.0 * NormalSf(res.z), 0.0, 1.0);
  return res;
}

StatusOr<double> MannWhitneyExactP(const std::vector<double>& x, const std::vector<double>& y) {
  FS_ASSIGN_OR_RETURN(MannWhitneyResult asymptotic, MannWhitneyU(x, y));
  std::vector<double> all(x);
  all.insert(all.end(), y.begin(), y.end());
  if (x.size() >= 50 || y.size() >= 50 || MidRanks(all).tie_term > 0) return asymptotic.p_value;
  const int n = static_cast<int>(x.size()), m = static_cast<int>(y.size());
  const std::shared_ptr<const std::vector<double>> table = CachedExactCdf(n, m);
  const std::vector<double>& cdf = *table;
  const double u = std::min(asymptotic.u, static_cast<double>(n) * m - asymptotic.u);
  const size_t k = static_cast<size_t>(std::llround(u));
  return std::min(1.0, 2.0 * cdf[std::min(k, cdf.size() - 1)]);
}

StatusOr<KruskalWallisResult> KruskalWallis(const std::vector<std::vector<double>>& groups) {
  if (groups.size() < 2) {
    return Status::InvalidArgument("KruskalWallis: need at least two groups, got " +
                                   std::to_string(groups.size()));
  }
  std::vector<double> all;
  for (size_t g = 0; g < groups.size(); ++g) {
    FS_RETURN_IF_ERROR(
        CheckSample(groups[g], "KruskalWallis").WithContext("group " + std::to_string(g)));
    all.insert(all.end(), groups[g].begin(), groups[g].end());
  }
  const Ranking ranking = MidRanks(all);
  const double n = static_cast<double>(all.size());
  double ssbn = 0;
  size_t offset = 0;
  for (const auto& group : groups) {
    double sum = 0;
    for (size_t i = 0; i < group.size(); ++i) sum += ranking.ranks[offset + i];
    ssbn += sum * sum / static_cast<double>(group.size());
    offset += group.size();
  }
  KruskalWallisResult res;
  res.df = static_cast<int>(groups.size()) - 1;
  const double correction = 1.0 - ranking.tie_term / (n * n * n - n);
  if (!(correction > 0)) return res;  // all values equal: h = 0, p = 1
  res.h = (12.0 / (n * (n + 1)) * ssbn - 3 * (n + 1)) / correction;
  res.p_value = ChiSquareSf(res.h, res.df);
  res.epsilon_squared = res.h / ((n * n - 1) / (n + 1));
  return res;
}

}  // namespace fleetsweep::stats
