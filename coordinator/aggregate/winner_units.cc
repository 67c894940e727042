#include "coordinator/aggregate/winner_units.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "common/stats/t_test.h"

namespace fleetsweep {
namespace {

// Every execution of both in shared sessions, n_a(s) / n_a == n_b(s) / n_b for every session.
bool Proportional(const SessionCounts& a, const SessionCounts& b) {
  if (a.loose > 0 || b.loose > 0 || a.per_session.size() != b.per_session.size()) return false;
  for (const auto& [session, n] : a.per_session) {
    auto it = b.per_session.find(session);
    if (it == b.per_session.end()) return false;
    if (static_cast<size_t>(n) * b.total != static_cast<size_t>(it->second) * a.total) {
      return false;
    }
  }
  return true;
}

// Values of one configuration grouped by session (sessions >= 0 only).
std::map<int32_t, std::vector<double>> BySession(const std::vector<double>& values,
                                                 const std::vector<int32_t>& sessions) {
  std::map<int32_t, std::vector<double>> out;
  for (size_t e = 0; e < values.size() && e < sessions.size(); ++e) {
    if (sessions[e] >= 0) out[sessions[e]].push_back(values[e]);
  }
  return out;
}

struct Cell {
  double n = 0, mean = 0, ss = 0;  // ss: sum of squared deviations from the mean
};

Cell Summarise(const std::vector<double>& xs) {
  Cell c;
  c.n = static_cast<double>(xs.size());
  for (double x : xs) c.mean += x;
  c.mean /= c.n;
  for (double x : xs) c.ss += (x - c.mean) * (x - c.mean);
  return c;
}

CellSpread SpreadOf(const std::map<int32_t, std::vector<double>>& by_session) {
  CellSpread spread;
  for (const auto& [session, xs] : by_session) {
    const Cell c = Summarise(xs);
    spread.ss += c.ss;
    spread.df += c.n - 1;
  }
  return spread;
}

}  // namespace

SessionCounts CountSessions(const std::vector<int32_t>& sessions) {
  SessionCounts c;
  c.total = sessions.size();
  for (int32_t x : sessions) {
    if (x < 0) {
      ++c.loose;
    } else if (++c.per_session[x] == 2) {
      c.clustered = true;
    }
  }
  return c;
}

PairUnit ChoosePairUnit(const SessionCounts& a, const SessionCounts& b) {
  if (!a.clustered && !b.clustered) return PairUnit::kExecutions;
  const bool shared = std::any_of(a.per_session.begin(), a.per_session.end(), [&](const auto& kv) {
    return b.per_session.count(kv.first) > 0;
  });
  if (!shared) return PairUnit::kSessions;
  if (Proportional(a, b)) return PairUnit::kExecutions;
  return PairUnit::kWithinSessions;
}

std::vector<double> SessionMeans(const std::vector<double>& values,
                                 const std::vector<int32_t>& sessions) {
  std::map<int32_t, std::pair<double, int>> sums;
  std::vector<int32_t> order;
  std::vector<double> out;
  for (size_t e = 0; e < values.size(); ++e) {
    const int32_t s = e < sessions.size() ? sessions[e] : int32_t{-1};
    if (s < 0) {
      out.push_back(values[e]);
      continue;
    }
    auto [it, added] = sums.emplace(s, std::make_pair(0.0, 0));
    if (added) order.push_back(s);
    it->second.first += values[e];
    ++it->second.second;
  }
  for (int32_t s : order) out.push_back(sums[s].first / sums[s].second);
  return out;
}

CellSpread WithinSessionSpread(const std::vector<double>& values,
                               const std::vector<int32_t>& sessions) {
  return SpreadOf(BySession(values, sessions));
}

double WithinSessionsP(const std::vector<double>& a_values, const std::vector<int32_t>& a_sessions,
                       const std::vector<double>& b_values, const std::vector<int32_t>& b_sessions,
                       double prior_var, double prior_df, double* diff) {
  const auto a = BySession(a_values, a_sessions);
  const auto b = BySession(b_values, b_sessions);
  double weights = 0, weighted = 0;
  for (const auto& [session, xs] : a) {
    auto it = b.find(session);
    if (it == b.end()) continue;
    const Cell ca = Summarise(xs), cb = Summarise(it->second);
    const double w = ca.n * cb.n / (ca.n + cb.n);
    weights += w;
    weighted += w * (cb.mean - ca.mean);
  }
  *diff = weights > 0 ? weighted / weights : NAN;
  const CellSpread sa = SpreadOf(a), sb = SpreadOf(b);
  const double nu0 = std::min(prior_df, kWinnerPriorDfCap), df = nu0 + sa.df + sb.df;
  if (!(weights > 0) || df <= 0) return 1.0;
  const double var = (nu0 * prior_var + sa.ss + sb.ss) / df / weights;
  if (!(var > 0)) return *diff == 0 ? 1.0 : 0.0;
  return std::min(1.0, 2.0 * stats::StudentTSf(std::fabs(*diff) / std::sqrt(var), df));
}

}  // namespace fleetsweep
