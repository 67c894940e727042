// The all-data fit behind node_effects.h: log execution medians laid out as configurations (rows)
// x nodes (columns), fitted by alternating medians (row effect + column effect), with residual-
// bootstrap draws of the column effects for their CIs.
//
// Cost (issue 16: 10,000 configurations x 30 executions aggregate in well under a second):
//   - each fit stops once no column effect moves by more than 1e-7 (log scale), and a bootstrap
//     round starts from the fit, so a round takes a handful of sweeps, not `iterations`;
//   - a large column's median is found in one pass while the last median's neighbourhood holds
//     it (exact either way);
//   - rounds run on `threads` threads, each round with its own seeded stream (the same draws
//     for any thread count);
//   - past `max_bootstrap_executions` executions the bootstrap runs on a seeded subset of whole
//     rows (configurations) of about that many executions, chosen by a hash of the row index
//     (never by the values), and each draw's deviation from the subset's own fit is scaled by
//     sqrt(subset executions / executions): the m-out-of-n bootstrap with its square-root rate
//     (Bickel, Goetze and van Zwet 1997, Statistica Sinica 7), valid for these asymptotically
//     normal medians. The point estimates always use every execution. Tested for coverage in
//     node_effects_test.cc (NodeEffectsFit.SubsetBootstrapCoversTheTruth).
//
// Pure functions; deterministic for a given seed. Thread-safety: pure (BootstrapColumns starts
// and joins its own threads).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fleetsweep::node_fit {

// One execution: its row (configuration), column (node) and log median.
struct Obs {
  int row = 0, col = 0;
  double y = 0;
};

// Observations grouped by row: row r's are obs[offset[r]] .. obs[offset[r + 1] - 1].
struct Grid {
  std::vector<Obs> obs;
  std::vector<size_t> offset;  // rows + 1 entries
  int rows = 0, cols = 0;
};

// `obs` (rows in [0, rows), columns in [0, cols)) grouped by row, each row's in their order.
Grid ByRow(const std::vector<Obs>& obs, int rows, int cols);

// True when every column is linked to every other through rows observed in both.
bool Connected(const std::vector<Obs>& obs, int rows, int cols);

// Alternating medians over `y` (one value per g.obs, in its order): row[r] = median(y - col),
// col[c] = median(y - row), col centred on its median; from `start` column effects (empty: all
// 0) until no column effect moves by more than 1e-7 or after `iterations` sweeps. Returns the
// column effects; `row_out` (optional) receives the row effects. Each sweep's rows, then its
// columns, are split over `threads` threads (the same result for any count).
std::vector<double> FitColumns(const Grid& g, const std::vector<double>& y, int iterations,
                               std::vector<double>* row_out = nullptr,
                               const std::vector<double>& start = {}, int threads = 1);

struct BootstrapOptions {
  int rounds = 50;
  int iterations = 20;
  int threads = 1;
  size_t max_bootstrap_executions = 20000;  // above: the subset bootstrap (see above)
};

// draws[c]: `rounds` bootstrap draws of column c's effect around `fit` (the fit of g, y).
// Residuals are scaled by sqrt(E / (E - rows - cols + 1)); the caller has checked that E exceeds
// that count of parameters.
std::vector<std::vector<double>> BootstrapColumns(const Grid& g, const std::vector<double>& y,
                                                  const std::vector<double>& fit, uint64_t seed,
                                                  const BootstrapOptions& options);

}  // namespace fleetsweep::node_fit
