// Tukey's median polish of a two-way table: value[r][c] ~ overall + row[r] + col[c] + residual.
//
// In fleetsweep the rows are configurations and the columns nodes: the column effects are the
// node effects that the aggregator removes before comparing configurations, and robust to a few
// outlying cells. The algorithm is R's stats::medpolish (na.rm = TRUE), step for step:
//   repeat up to max_iter times:
//     sweep row medians of the residuals into the row effects; move the median of the column
//     effects into overall; sweep column medians of the residuals into the column effects; move
//     the median of the row effects into overall;
//     stop when sum|residuals| == 0 or |sum - previous sum| < tol * sum.
// SciPy has no median polish; scripts/gen_stats_vectors.py carries an independent numpy version
// whose results tests/data/stats/vectors.json records.
//
// Missing cells are NaN: they are skipped by every median and stay NaN in the residuals. Every
// row and every column must hold at least one observed cell.
//
// Thread-safety: pure function; safe to call concurrently.
#pragma once

#include <vector>

#include "common/status.h"

namespace fleetsweep::stats {

struct MedianPolishOptions {
  int max_iter = 10;  // R's maxiter
  double tol = 0.01;  // R's eps: relative change of sum |residuals| that counts as converged
};

struct MedianPolishResult {
  double overall = 0;
  std::vector<double> row_effects;             // one per row
  std::vector<double> col_effects;             // one per column
  std::vector<std::vector<double>> residuals;  // rows x cols; NaN where the input is missing
  int iterations = 0;                          // sweeps done (1..max_iter)
  bool converged = false;
};

// `table` is rows x cols (every row the same length, at least 1 x 1); NaN marks a missing cell.
// Errors (InvalidArgument): empty table, ragged rows, infinite value, a row or column with no
// observed cell, max_iter < 1, tol < 0.
StatusOr<MedianPolishResult> MedianPolish(const std::vector<std::vector<double>>& table,
                                          const MedianPolishOptions& options = {});

}  // namespace fleetsweep::stats
