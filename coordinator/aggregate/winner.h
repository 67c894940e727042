// The winner rule: a configuration is named the winner only when it beats EVERY other ranked
// configuration, with the family-wise error rate held at `family_alpha` over the whole sweep
// (however many configurations, and across the scheduler's adaptive stages).
//
// Unit of evidence: one value per execution, the log of the execution's median of the primary
// metric (node effects removed). For the best configuration B and each other ranked j, p_j is the
// two-sided p of a moderated Welch t test of the difference of mean log execution medians
// (Smyth 2004, limma): each side's variance is shrunk toward the variance pooled over ALL ranked
// configurations, with prior df nu0 = min(pooled df, 20), on nu0 + n - 1 df, and the
// Welch-Satterthwaite df for the difference. This keeps Welch's protection when one side is
// noisier, without the useless tails of a 2-df Welch test for a configuration that stopped after
// 3 executions, and is not fooled by a configuration whose few executions happened to agree.
// Because occasional slow executions (a shared machine) inflate a t test's variance, p_j is
// min(1, 2 min(p_t, p_u)) with p_u the exact Mann-Whitney p of the same values (Bonferroni over
// the two tests, so still valid). B wins when every p_j <= 2 family_alpha / (m * looks) with B
// better in each, m the ranked configurations, looks the scheduler's looks (stage 1 at
// repetitions.min, stage 2 at repetitions.max for contenders). Why m and not the C(m, 2) pairs:
// fix one truly best configuration T. A false winner W != T must be declared better than T; a
// winner W = T is false only when another configuration T' ties it, and it must be declared
// better than T'. So every false winner makes one false DIRECTIONAL claim among m fixed pairs
// (each other configuration against T, and T against T'), whichever configuration the data
// ranked first. Under a pair's null (equal distributions of log execution medians, symmetric as
// medians are) reflecting the data flips the sign of the difference and keeps both tests' p, so
// "better and p <= a" has probability a / 2 (less when the claimed-better side is truly worse):
// P(false winner) <= m * (2 family_alpha / (m * looks)) / 2 per look = family_alpha. With m = 2
// this is the old all-pairs rule; with many configurations it is (m - 1) / 2 times less strict.
// The same bound gives the tied set: T is left out only if the ranked best was declared better.
// Configurations with fewer than two executions cannot be tested (they stay tied).
//
// Sessions: a persistent benchmark session can give all its executions an offset of its own
// (docs/honest-measurement.md section 2, "Sessions re-dealt"), so executions are independent
// evidence of a pair's difference only where the sessions' offsets cancel. The pair's design
// (winner_units.h, never its values) picks the units:
// - neither ran two executions in one session, or both ran only in sessions they shared and in
//   the same proportions (e.g. one session served both): executions, as above;
// - otherwise, when the sweep's ranked configurations that are connected to the best through
//   shared sessions number at most 256: the TWO-WAY FIT (session_fit.h), least squares of every
//   connected configuration's log execution medians on configuration + session effects, so each
//   session's offset cancels even between configurations that never shared one (they are
//   compared through those that did); the pair's t test uses the fit's residual variance and df
//   (the "fit_comparisons" count). Past 256 configurations, or for one outside the best's
//   connected group, the two rules below;
// - they never shared a session and one ran two executions in one: SESSIONS, each
//   configuration's values being the mean log execution median of each of its sessions (a
//   one-shot execution is a session of its own), compared by the same test with the variance
//   pooled over every ranked configuration's session means; one session a side cannot be tested
//   (p = 1: tied);
// - they shared sessions unevenly (some executions elsewhere, or other proportions): WITHIN the
//   shared sessions, the weighted mean over shared sessions of the difference of the two
//   configurations' means in that session (each session's offset cancels; executions outside
//   shared sessions are left out), a t test whose residual variance is moderated toward the
//   within-session variance pooled over every ranked configuration's sessions (no rank test).
//
// Pure function; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "coordinator/aggregate/sweep_result.h"

namespace fleetsweep {

// p_j for two configurations' log execution medians (see above); pooled_var / pooled_df from
// stats::PooledVariance over all ranked configurations (0, 0: plain Welch). 1 with fewer than two
// executions on a side.
double ComparisonP(const std::vector<double>& a, const std::vector<double>& b, double pooled_var,
                   double pooled_df);

// 2 family_alpha / (max(2, configurations) * max(1, looks)): the per-comparison level.
double ComparisonAlpha(double family_alpha, int configurations, int looks);

struct WinnerOptions {
  double family_alpha = 0.01;
  int looks = 2;  // adaptive stages of the repetition policy (1 when min == max)
};

// `configs` are ranked best first; `log_exec_medians[i]` holds configs[i]'s per-execution log
// medians; `ranked` = how many leading configs are rankable (samples, within bounds). Fills
// out->winner_test, out->tied, configs[i].p_vs_best / log_diff_vs_best; sets out->winner = 0
// when separated and out->valid. `minimize`: lower is better.
// `log_exec_sessions`: empty, or per configuration the session of each execution, parallel to
// log_exec_medians (-1: none); see "Sessions" above.
void DecideWinner(const std::vector<std::vector<double>>& log_exec_medians,
                  const std::vector<std::vector<int32_t>>& log_exec_sessions, size_t ranked,
                  bool minimize, const WinnerOptions& options, SweepResult* out);

}  // namespace fleetsweep
