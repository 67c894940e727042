// The sweep's two-way fit of log execution medians (winner.h, "Sessions"): value = the
// configuration's effect + the session's offset + noise, by least squares with every session's
// offset estimated (fixed, not assumed small). A difference between two configurations is then
// estimated from every session that connects them, directly (they both ran in it) or through
// other configurations (a ran with c in one session, c with b in another), and each session's
// offset cancels. Executions without a session (-1, one-shot) carry no information here.
//
// Cost: dense in the configurations connected to the best (k): O(k^3) for the inverse's
// diagonal, so the fit gives up (ok = false) above `max_configs`; the caller falls back to a
// test that needs no fit.
//
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fleetsweep {

struct SessionFit {
  bool ok = false;            // false: nothing connected to the best, or too many configurations
  std::vector<double> diff;   // per configuration: its effect minus the best's (NAN: unconnected)
  std::vector<double> scale;  // var(diff[j]) = sigma2 * scale[j]
  double sigma2 = 0, df = 0;  // residual variance of the fit and its df (0 when saturated)
  size_t connected = 0;       // configurations connected to the best, the best included
};

// `values[c]` / `sessions[c]`: configuration c's log execution medians and each one's session
// (-1: none), for c < configs. `best` is the reference (diff 0).
SessionFit FitSessions(const std::vector<std::vector<double>>& values,
                       const std::vector<std::vector<int32_t>>& sessions, size_t configs,
                       size_t best, size_t max_configs);

// Two-sided t p of diff[j] on the fit's df; 1 when j is unconnected or there is no df; 0 or 1
// when the variance is 0.
double SessionFitP(const SessionFit& fit, size_t j);

}  // namespace fleetsweep
