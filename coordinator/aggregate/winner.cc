#include "coordinator/aggregate/winner.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "common/stats/rank_tests.h"
#include "common/stats/t_test.h"

namespace fleetsweep {
namespace {

constexpr double kPriorDfCap = 20;

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
  const double nu0 = std::min(pooled_df, kPriorDfCap);
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

// The mean log execution median of each session of one configuration, in first-seen order; an
// execution without a session (-1) is a unit of its own.
std::vector<double> SessionMeans(const std::vector<double>& logs,
                                 const std::vector<int32_t>& sessions) {
  std::map<int32_t, std::pair<double, int>> sums;
  std::vector<int32_t> order;
  std::vector<double> out;
  for (size_t e = 0; e < logs.size(); ++e) {
    const int32_t s = e < sessions.size() ? sessions[e] : int32_t{-1};
    if (s < 0) {
      out.push_back(logs[e]);
      continue;
    }
    auto [it, added] = sums.emplace(s, std::make_pair(0.0, 0));
    if (added) order.push_back(s);
    it->second.first += logs[e];
    ++it->second.second;
  }
  for (int32_t s : order) out.push_back(sums[s].first / sums[s].second);
  return out;
}

// True when some session appears twice in `s` (two executions of one process).
bool Clustered(const std::vector<int32_t>& s) {
  std::set<int32_t> seen;
  for (int32_t x : s) {
    if (x >= 0 && !seen.insert(x).second) return true;
  }
  return false;
}

bool ShareASession(const std::set<int32_t>& in_a, const std::vector<int32_t>& b) {
  for (int32_t x : b) {
    if (x >= 0 && in_a.count(x)) return true;
  }
  return false;
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
  // Session units (see winner.h), computed only when sessions were recorded.
  const bool sessions = log_exec_sessions.size() >= ranked;
  std::vector<std::vector<double>> units;
  double unit_pooled_var = 0, unit_pooled_df = 0;
  if (sessions) {
    for (size_t i = 0; i < ranked; ++i) {
      units.push_back(SessionMeans(log_exec_medians[i], log_exec_sessions[i]));
    }
    unit_pooled_var = stats::PooledVariance(units, &unit_pooled_df);
  }
  // The best configuration's sessions, once for every comparison.
  const std::set<int32_t> best_sessions =
      sessions ? std::set<int32_t>(log_exec_sessions[0].begin(), log_exec_sessions[0].end())
               : std::set<int32_t>{};
  const bool best_clustered = sessions && Clustered(log_exec_sessions[0]);
  const Group best = Describe(log_exec_medians[0]);
  bool all = true;
  t.max_p = 0;
  for (size_t j = 1; j < ranked; ++j) {
    const Group other = Describe(log_exec_medians[j]);
    const bool by_session = sessions && !ShareASession(best_sessions, log_exec_sessions[j]) &&
                            (best_clustered || Clustered(log_exec_sessions[j]));
    const double p =
        by_session ? ComparisonP(units[0], units[j], unit_pooled_var, unit_pooled_df)
                   : ComparisonP(log_exec_medians[0], log_exec_medians[j], pooled_var, pooled_df);
    t.session_comparisons += by_session;
    const double diff = other.mean - best.mean;
    ConfigResult& c = out->configs[j];
    c.p_vs_best = p;
    c.log_diff_vs_best = diff;
    // The direction of what was tested (session means weigh sessions, not executions, equally).
    const double tested = by_session ? Describe(units[j]).mean - Describe(units[0]).mean : diff;
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
