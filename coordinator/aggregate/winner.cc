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

// The comparisons of the best (index 0) with configurations whose executions are not
// independent evidence (winner.h, "Sessions"). What they need is computed once, when first
// needed: the sweep's two-way fit, every configuration's session means (their pooled variance)
// and within-session spread (a pair's prior is the spread of all the OTHER configurations).
class SessionComparisons {
 public:
  SessionComparisons(const std::vector<std::vector<double>>& logs,
                     const std::vector<std::vector<int32_t>>& sessions, size_t ranked)
      : logs_(logs), sessions_(sessions), ranked_(ranked) {}

  // Sets *p and *tested (the estimate whose sign was tested), counts the kind in *t and returns
  // its name (ConfigResult::unit_vs_best).
  const char* Compare(size_t j, PairUnit unit, WinnerTest* t, double* p, double* tested) {
    if (!fitted_) {
      fit_ = FitSessions(logs_, sessions_, ranked_, 0, kMaxFitConfigs);
      fitted_ = true;
    }
    if (fit_.ok && !std::isnan(fit_.diff[j])) {
      *p = SessionFitP(fit_, j);
      *tested = fit_.diff[j];
      ++t->fit_comparisons;
      return "fit";
    }
    if (unit == PairUnit::kSessions) {
      ComputeUnits();
      *p = ComparisonP(units_[0], units_[j], unit_pooled_var_, unit_pooled_df_);
      *tested = Describe(units_[j]).mean - Describe(units_[0]).mean;
      ++t->session_comparisons;
      return "sessions";
    }
    ComputeSpreads();
    const double prior_df = all_spread_.df - spreads_[0].df - spreads_[j].df;
    const double prior_var =
        prior_df > 0 ? std::max(0.0, all_spread_.ss - spreads_[0].ss - spreads_[j].ss) / prior_df
                     : 0;
    *p = WithinSessionsP(logs_[0], sessions_[0], logs_[j], sessions_[j], prior_var, prior_df,
                         tested);
    ++t->within_session_comparisons;
    return "within_sessions";
  }

 private:
  void ComputeUnits() {
    if (!units_.empty()) return;
    for (size_t i = 0; i < ranked_; ++i) units_.push_back(SessionMeans(logs_[i], sessions_[i]));
    unit_pooled_var_ = stats::PooledVariance(units_, &unit_pooled_df_);
  }
  void ComputeSpreads() {
    if (!spreads_.empty()) return;
    for (size_t i = 0; i < ranked_; ++i) {
      spreads_.push_back(WithinSessionSpread(logs_[i], sessions_[i]));
      all_spread_.ss += spreads_.back().ss;
      all_spread_.df += spreads_.back().df;
    }
  }

  const std::vector<std::vector<double>>& logs_;
  const std::vector<std::vector<int32_t>>& sessions_;
  const size_t ranked_;
  bool fitted_ = false;
  SessionFit fit_;
  std::vector<std::vector<double>> units_;
  double unit_pooled_var_ = 0, unit_pooled_df_ = 0;
  std::vector<CellSpread> spreads_;
  CellSpread all_spread_;
};

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
  // Sessions (see winner.h) only when they were recorded.
  const bool sessions = log_exec_sessions.size() >= ranked;
  SessionComparisons by_sessions(log_exec_medians, log_exec_sessions, ranked);
  const SessionCounts best_counts =
      sessions ? CountSessions(log_exec_sessions[0]) : SessionCounts{};
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
    const char* used = "executions";
    if (unit == PairUnit::kExecutions) {
      p = ComparisonP(log_exec_medians[0], log_exec_medians[j], pooled_var, pooled_df);
    } else {
      used = by_sessions.Compare(j, unit, &t, &p, &tested);
    }
    ConfigResult& c = out->configs[j];
    c.unit_vs_best = used;
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
