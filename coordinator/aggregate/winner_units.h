// The units a pair of configurations is compared on in the winner test (winner.h, "Sessions"):
// the design of the pair (which sessions ran which executions) picks the comparison, never the
// values, so the choice cannot favour a significant answer.
//
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace fleetsweep {

// The cap on the prior df of the moderated variances (Smyth 2004) in every comparison.
constexpr double kWinnerPriorDfCap = 20;

enum class PairUnit {
  kExecutions,      // executions are independent evidence of the pair's difference
  kSessions,        // the pair never shared a session: each session's mean is one unit
  kWithinSessions,  // shared sessions, unevenly: differences within each shared session
};

// How one configuration's executions fall into sessions (the design, not the values).
struct SessionCounts {
  std::map<int32_t, int> per_session;  // executions per session (sessions >= 0)
  int loose = 0;                       // executions without a session (-1: one-shot)
  size_t total = 0;
  bool clustered = false;  // some session ran two of its executions
};

// `sessions`: the session of each execution (-1: none).
SessionCounts CountSessions(const std::vector<int32_t>& sessions);

// kExecutions when neither ran two executions in one session, or when every
// execution of both lies in sessions they shared, in the same proportions (then every session's
// offset weighs equally on both means and cancels in their difference: one shared session is the
// common case); kSessions when they shared no session; else kWithinSessions.
PairUnit ChoosePairUnit(const SessionCounts& a, const SessionCounts& b);

// The mean of each session's values, in first-seen order; an execution without a session (-1) is
// a unit of its own.
std::vector<double> SessionMeans(const std::vector<double>& values,
                                 const std::vector<int32_t>& sessions);

// The within-session spread of one configuration: the sum of squared deviations from their
// session's mean over its sessions with two or more executions, and its df (sum of n - 1).
struct CellSpread {
  double ss = 0, df = 0;
};
CellSpread WithinSessionSpread(const std::vector<double>& values,
                               const std::vector<int32_t>& sessions);

// The difference of b from a within the sessions both ran in (executions elsewhere are left out
// of it): the weighted mean over shared sessions of (mean b - mean a) in the session, weights
// n_a n_b / (n_a + n_b), so each session's offset cancels. Its variance: the two configurations'
// within-session spread (all their sessions) shrunk toward `prior_var` with prior df
// min(prior_df, 20) (as the execution test moderates), on that many plus their df. The prior must
// come from OTHER configurations (the caller's job): pooling the pair's own spread into it would
// count its df twice and make the test liberal. *diff receives the estimate (NAN without a shared
// session); returns the two-sided t p (1 when there is no shared session or no df; 0 or 1 when the
// variance is 0).
double WithinSessionsP(const std::vector<double>& a_values, const std::vector<int32_t>& a_sessions,
                       const std::vector<double>& b_values, const std::vector<int32_t>& b_sessions,
                       double prior_var, double prior_df, double* diff);

}  // namespace fleetsweep
