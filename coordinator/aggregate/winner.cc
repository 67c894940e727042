#include "coordinator/aggregate/winner.h"

#include <algorithm>
#include <cmath>

#include "common/stats/rank_tests.h"
#include "common/stats/t_test.h"
#include "coordinator/aggregate/session_fit.h"
#include "coordinator/aggregate/winner_units.h"

namespace fleetsweep {
namespace {

// The largest group of configurations the two-way session fit solves (O(k^3)); larger sweeps
// compare such pairs within their shared sessions or by session means.
constexpr size_t kMaxFitConfigs = 256;

struct Group {
  double n = 0, mean = NAN, var = 0;  // var: sample variance (0 with one value)
};

Group Describe(const std::vector<double>& xs) {
  Group g;
  g.n = static_cast<double>(xs.size());
  if (xs.empty()) return g;
  double s = 0;
  for (double x : xs) s += x;
  g.mean = s / g.n;
  if (xs.size() > 1) {
    double ss = 0;
    for (double x : xs) ss += (x - g.mean) * (x - g.mean);
    g.var = ss / (g.n - 1);
  }
  return g;
}

// Moderated Welch test (Smyth 2004): each side's variance is shrunk toward the variance pooled
// over all ranked configurations with prior df nu0 = min(pooled df, 20), on nu0 + n - 1 df; the
// Welch-Satterthwaite df of the difference. Two-sided p; 1 when it cannot be computed.
double PairP(const Group& a, const Group& b, double pooled_var, double pooled_df) {
  if (a.n < 2 || b.n < 2) return 1.0;
  const double nu0 = std::min(pooled_df, kWinnerPriorDfCap);
  auto moderated = [&](const Group& g, double* df) {
    *df = nu0 + g.n - 1;
    return (nu0 * pooled_var + (g.n - 1) * g.var) / *df;
  };
  double da = 0, db = 0;
  const double va = moderated(a, &da) / a.n, vb = moderated(b, &db) / b.n;
  const double se2 = va + vb;
  const double diff = a.mean - b.mean;
  if (!(se2 > 0)) return diff == 0 ? 1.0 : 0.0;
  const double df = se2 * se2 / (va * va / da + vb * vb / db);
  return std::min(1.0, 2.0 * stats::StudentTSf(std::fabs(diff) / std::sqrt(se2), df));
}

}  // namespace

double ComparisonP(const std::vector<double>& a, const std::vector<double>& b, double pooled_var,
                   double pooled_df) {
  const double t = PairP(Describe(a), Describe(b), pooled_var, pooled_df);
  double u = 1.0;
  if (a.size() >= 2 && b.size() >= 2) {
    auto mw = stats::MannWhitneyExactP(a, b);
    if (mw.ok()) u = *mw;
  }
  return std::min(1.0, 2.0 * std::min(t, u));
}

double ComparisonAlpha(double family_alpha, int configurations, int looks) {
  const double m = std::max(2, configurations);
  return 2 * family_alpha / (m * std::max(1, looks));
}

void DecideWinner(const std::vector<std::vector<double>>& log_exec_medians,
                  const std::vector<std::vector<int32_t>>& log_exec_sessions, size_t ranked,
                  bool minimize, const WinnerOptions& options, SweepResult* out) {
  out->tied.clear();
  out->winner = -1;
  ranked = std::min({ranked, log_exec_medians.size(), out->configs.size()});
  if (ranked == 0) return;
  out->tied.push_back(0);
  WinnerTest& t = out->winner_test;
  t = WinnerTest{};
  t.test = "t_on_log_execution_medians";
  t.family_alpha = options.family_alpha;
  t.looks = std::max(1, options.looks);
  t.best_key = out->configs[0].key;
  if (ranked < 2) return;
  const double m = static_cast<double>(ranked);
  t.comparisons = static_cast<int>(m);
  t.comparison_alpha = ComparisonAlpha(options.family_alpha, static_cast<int>(ranked), t.looks);
  double pooled_df = 0;
  const std::vector<std::vector<double>> groups(log_exec_medians.begin(),
                                                log_exec_medians.begin() + ranked);
  const double pooled_var = stats::PooledVariance(groups, &pooled_df);
  // Session units and the within-session prior (see winner.h), only when sessions were recorded.
  const bool sessions = log_exec_sessions.size() >= ranked;
  std::vector<std::vector<double>> units;
  double unit_pooled_var = 0, unit_pooled_df = 0;
  if (sessions) {
    for (size_t i = 0; i < ranked; ++i) {
      units.push_back(SessionMeans(log_exec_medians[i], log_exec_sessions[i]));
    }
    unit_pooled_var = stats::PooledVariance(units, &unit_pooled_df);
  }
  // The best configuration's design, once. The sweep's two-way fit and every ranked
  // configuration's within-session spread (a pair's prior is the spread of all the OTHER
  // configurations: winner_units.h), each when first needed.
  const SessionCounts best_counts =
      sessions ? CountSessions(log_exec_sessions[0]) : SessionCounts{};
  std::vector<CellSpread> spreads;
  CellSpread all_spread;
  SessionFit fit;
  bool fitted = false;
  const Group best = Describe(log_exec_medians[0]);
  bool all = true;
  t.max_p = 0;
  for (size_t j = 1; j < ranked; ++j) {
    const Group other = Describe(log_exec_medians[j]);
    const PairUnit unit = sessions
                              ? ChoosePairUnit(best_counts, CountSessions(log_exec_sessions[j]))
                              : PairUnit::kExecutions;
    const double diff = other.mean - best.mean;
    // `tested`: the direction of what was tested (the fit's difference, session means weighing
    // sessions equally, or the difference within shared sessions).
    double p = 1, tested = diff;
    if (unit != PairUnit::kExecutions && !fitted) {
      fit = FitSessions(log_exec_medians, log_exec_sessions, ranked, 0, kMaxFitConfigs);
      fitted = true;
    }
    if (unit != PairUnit::kExecutions && fit.ok && !std::isnan(fit.diff[j])) {
      p = SessionFitP(fit, j);
      tested = fit.diff[j];
      ++t.fit_comparisons;
    } else if (unit == PairUnit::kSessions) {
      p = ComparisonP(units[0], units[j], unit_pooled_var, unit_pooled_df);
      tested = Describe(units[j]).mean - Describe(units[0]).mean;
      ++t.session_comparisons;
    } else if (unit == PairUnit::kWithinSessions) {
      if (spreads.empty()) {
        for (size_t i = 0; i < ranked; ++i) {
          spreads.push_back(WithinSessionSpread(log_exec_medians[i], log_exec_sessions[i]));
          all_spread.ss += spreads.back().ss;
          all_spread.df += spreads.back().df;
        }
      }
      const double prior_df = all_spread.df - spreads[0].df - spreads[j].df;
      const double prior_var =
          prior_df > 0 ? std::max(0.0, all_spread.ss - spreads[0].ss - spreads[j].ss) / prior_df
                       : 0;
      p = WithinSessionsP(log_exec_medians[0], log_exec_sessions[0], log_exec_medians[j],
                          log_exec_sessions[j], prior_var, prior_df, &tested);
      ++t.within_session_comparisons;
    } else {
      p = ComparisonP(log_exec_medians[0], log_exec_medians[j], pooled_var, pooled_df);
    }
    ConfigResult& c = out->configs[j];
    c.p_vs_best = p;
    c.log_diff_vs_best = diff;
    const bool better = minimize ? tested > 0 : tested < 0;
    const bool separated = better && p <= t.comparison_alpha;
    if (j == 1) {
      t.runner_up_key = c.key;
      t.runner_up_p = p;
      t.runner_up_log_diff = diff;
    }
    if (p >= t.max_p) {
      t.max_p = p;
      t.weakest_key = c.key;
    }
    if (!separated) {
      all = false;
      out->tied.push_back(static_cast<int>(j));
    }
  }
  t.done = true;
  t.separated = all;
  if (all && out->valid) out->winner = 0;
}

}  // namespace fleetsweep
