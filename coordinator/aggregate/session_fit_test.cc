// The two-way configuration + session fit (session_fit.h): by hand, against the full least
// squares with configuration and session dummies on random designs, and against the
// within-session difference it generalises.
#include "coordinator/aggregate/session_fit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/stats/rng.h"
#include "coordinator/aggregate/winner_units.h"

namespace fleetsweep {
namespace {

// The fit by hand, without noise: c0 ran with c2 in session 0, c2 with c1 in session 1; the
// sessions' offsets (0.7, -0.4) cancel and the effects (c0 1.0, c1 1.25, c2 1.5) come out exactly,
// though c0 and c1 never shared a session. Replicates agree, so the variance is 0 and p is 0.
TEST(SessionFit, EffectsThroughAnotherConfiguration) {
  const std::vector<std::vector<double>> values = {{1.7, 1.7}, {0.85, 0.85, 0.85}, {2.2, 1.1, 1.1}};
  const std::vector<std::vector<int32_t>> sessions = {{0, 0}, {1, 1, 1}, {0, 1, 1}};
  const SessionFit fit = FitSessions(values, sessions, 3, 0, 16);
  ASSERT_TRUE(fit.ok);
  EXPECT_EQ(fit.connected, 3u);
  EXPECT_NEAR(fit.diff[1], 0.25, 1e-12);
  EXPECT_NEAR(fit.diff[2], 0.5, 1e-12);
  EXPECT_EQ(fit.df, 8 - 2 - 2);
  EXPECT_NEAR(fit.sigma2, 0, 1e-20);
  EXPECT_LT(SessionFitP(fit, 1), 1e-12);  // sigma2 is rounding, not 0
  // Above max_configs the fit gives up; unconnected configurations get no difference.
  EXPECT_FALSE(FitSessions(values, sessions, 3, 0, 2).ok);
  const SessionFit apart = FitSessions(values, {{0, 0}, {1, 1, 1}, {2, 2, 2}}, 3, 0, 16);
  EXPECT_FALSE(apart.ok);
  EXPECT_EQ(apart.connected, 1u);
  EXPECT_EQ(SessionFitP(apart, 1), 1.0);
}

// The full least squares by brute force: columns = the configurations but `best` (dummies) then
// every session (dummies, no intercept); normal equations solved by Gauss-Jordan with partial
// pivoting. Returns each configuration's coefficient (best: 0), the diagonal of the inverse for
// them, and the residual sum of squares.
struct Dense {
  std::vector<double> diff, scale;
  double ss = 0;
};

Dense DenseFit(const std::vector<std::vector<double>>& values,
               const std::vector<std::vector<int32_t>>& sessions, size_t best, int session_count) {
  const size_t k = values.size(), p = k - 1 + static_cast<size_t>(session_count);
  auto column = [&](size_t c) { return c < best ? c : c - 1; };
  std::vector<std::vector<double>> rows;
  std::vector<double> ys;
  for (size_t c = 0; c < k; ++c) {
    for (size_t e = 0; e < values[c].size(); ++e) {
      std::vector<double> x(p, 0.0);
      if (c != best) x[column(c)] = 1;
      x[k - 1 + static_cast<size_t>(sessions[c][e])] = 1;
      rows.push_back(x);
      ys.push_back(values[c][e]);
    }
  }
  // [X'X | I | X'y], reduced to [I | inverse | coefficients].
  std::vector<std::vector<double>> m(p, std::vector<double>(2 * p + 1, 0.0));
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t i = 0; i < p; ++i) {
      for (size_t j = 0; j < p; ++j) m[i][j] += rows[r][i] * rows[r][j];
      m[i][2 * p] += rows[r][i] * ys[r];
    }
  }
  for (size_t i = 0; i < p; ++i) m[i][p + i] = 1;
  for (size_t col = 0; col < p; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < p; ++r) {
      if (std::fabs(m[r][col]) > std::fabs(m[pivot][col])) pivot = r;
    }
    std::swap(m[col], m[pivot]);
    const double d = m[col][col];
    for (double& v : m[col]) v /= d;
    for (size_t r = 0; r < p; ++r) {
      if (r == col || m[r][col] == 0) continue;
      const double f = m[r][col];
      for (size_t j = 0; j <= 2 * p; ++j) m[r][j] -= f * m[col][j];
    }
  }
  Dense out;
  for (size_t c = 0; c < k; ++c) {
    out.diff.push_back(c == best ? 0 : m[column(c)][2 * p]);
    out.scale.push_back(c == best ? 0 : m[column(c)][p + column(c)]);
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    double fit = 0;
    for (size_t i = 0; i < p; ++i) fit += rows[r][i] * m[i][2 * p];
    out.ss += (ys[r] - fit) * (ys[r] - fit);
  }
  return out;
}

// On random connected designs (2-6 configurations, 2-6 sessions, 1-4 executions a cell, some
// cells empty) the fit with the sessions absorbed equals the full least squares: differences,
// their variance factors, the residual variance and its df.
TEST(SessionFit, EqualsTheFullLeastSquaresOnRandomDesigns) {
  stats::Rng rng(4242);
  int compared = 0;
  for (int t = 0; t < 400; ++t) {
    const size_t k = 2 + rng.UniformIndex(5);
    const int sessions = 2 + static_cast<int>(rng.UniformIndex(5));
    std::vector<std::vector<double>> values(k);
    std::vector<std::vector<int32_t>> ids(k);
    std::vector<bool> used(static_cast<size_t>(sessions), false);
    for (size_t c = 0; c < k; ++c) {
      for (int s = 0; s < sessions; ++s) {
        if (rng.Uniform01() < 0.4) continue;
        const size_t n = 1 + rng.UniformIndex(4);
        for (size_t e = 0; e < n; ++e) {
          values[c].push_back(0.1 * static_cast<double>(c) + 0.05 * s +
                              0.01 * rng.StandardNormal());
          ids[c].push_back(s);
          used[static_cast<size_t>(s)] = true;
        }
      }
    }
    const size_t best = rng.UniformIndex(k);
    const SessionFit fit = FitSessions(values, ids, k, best, 64);
    if (!fit.ok || fit.connected != k ||
        std::any_of(used.begin(), used.end(), [](bool u) { return !u; })) {
      continue;  // the dense reference needs every configuration and session in one design
    }
    ++compared;
    const Dense dense = DenseFit(values, ids, best, sessions);
    double n = 0;
    for (const auto& v : values) n += static_cast<double>(v.size());
    const double df = n - static_cast<double>(k - 1) - sessions;
    ASSERT_EQ(fit.df, df) << "trial " << t;
    for (size_t c = 0; c < k; ++c) {
      EXPECT_NEAR(fit.diff[c], dense.diff[c], 1e-9) << "trial " << t << " config " << c;
      EXPECT_NEAR(fit.scale[c], dense.scale[c], 1e-9) << "trial " << t << " config " << c;
    }
    if (df > 0) {
      EXPECT_NEAR(fit.sigma2, dense.ss / df, 1e-9) << "trial " << t;
    }
  }
  EXPECT_GT(compared, 100);
}

// Two configurations that shared one session: the fit is the within-session difference (the same
// estimate, residual and df), so both give the same p.
TEST(SessionFit, TwoConfigurationsEqualTheWithinSessionDifference) {
  const std::vector<std::vector<double>> values = {{1.0, 1.3, 5.0, 5.4}, {2.0, 2.1, 7.0, 7.7}};
  const std::vector<std::vector<int32_t>> sessions = {{0, 0, 1, 1}, {0, 0, 2, 2}};
  const SessionFit fit = FitSessions(values, sessions, 2, 0, 16);
  ASSERT_TRUE(fit.ok);
  double diff = 0;
  const double p = WithinSessionsP(values[0], sessions[0], values[1], sessions[1], 0, 0, &diff);
  EXPECT_NEAR(fit.diff[1], diff, 1e-12);
  EXPECT_NEAR(fit.diff[1], 0.9, 1e-12);
  EXPECT_EQ(fit.df, 4);
  EXPECT_NEAR(SessionFitP(fit, 1), p, 1e-12);
}

}  // namespace
}  // namespace fleetsweep
