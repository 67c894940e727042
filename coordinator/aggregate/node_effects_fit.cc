#include "coordinator/aggregate/node_effects_fit.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <thread>
#include <utility>

#include "common/stats/descriptive.h"
#include "common/stats/rng.h"
#include "common/stats/seeded_subset.h"

namespace fleetsweep::node_fit {
namespace {

// The exact median of a column, in one pass over it when the last median's neighbourhood still
// holds it: the values in [lo, hi] (kWindowRanks ranks either side of the last median) are
// gathered and only they are partially sorted; otherwise (the first call, or the median left the
// window) the whole column is.
class ColumnMedian {
 public:
  double operator()(std::vector<double>* v) {
    const size_t n = v->size(), mid = n / 2, first = n % 2 == 1 ? mid : mid - 1;
    if (known_) {
      size_t below = 0;
      buf_.clear();
      for (double x : *v) {
        if (x < lo_) {
          ++below;
        } else if (x <= hi_) {
          buf_.push_back(x);
        }
      }
      if (below <= first && below + buf_.size() > mid) {
        return Select(&buf_, mid - below, n % 2 == 0);
      }
    }
    return Select(v, mid, n % 2 == 0);
  }

 private:
  static constexpr size_t kWindowRanks = 512;

  // The value of rank r of *b (with `even`, its mean with rank r - 1's value), remembering the
  // values kWindowRanks ranks either side as the next window (-inf / inf past the ends).
  double Select(std::vector<double>* b, size_t r, bool even) {
    double* f = b->data();
    const size_t n = b->size();
    std::nth_element(f, f + r, f + n);
    const double upper = f[r];
    const double median = even ? (*std::max_element(f, f + r) + upper) / 2 : upper;
    lo_ = -INFINITY;
    hi_ = INFINITY;
    if (r >= kWindowRanks) {
      std::nth_element(f, f + (r - kWindowRanks), f + r);
      lo_ = f[r - kWindowRanks];
    }
    if (r + kWindowRanks < n) {
      std::nth_element(f + r + 1, f + r + kWindowRanks, f + n);
      hi_ = f[r + kWindowRanks];
    }
    known_ = true;
    return median;
  }

  bool known_ = false;
  double lo_ = -INFINITY, hi_ = INFINITY;
  std::vector<double> buf_;
};

// Row r's position in a seeded order that ignores the data.
uint64_t RowHash(size_t r, uint64_t seed) {
  uint64_t state = seed ^ (0xD1B54A32D192ED03ULL * (r + 1));
  return stats::SplitMix64(&state);
}

// Whole rows of g in RowHash order until about `target` executions, renumbered 0, 1, ... in
// their order in g; *y_out gets their values. False when the subset does not link every column
// (the caller then bootstraps all of g).
bool SubsetRows(const Grid& g, const std::vector<double>& y, size_t target, uint64_t seed,
                Grid* out, std::vector<double>* y_out) {
  std::vector<uint64_t> hashes;
  std::vector<size_t> sizes;
  for (size_t r = 0; r < static_cast<size_t>(g.rows); ++r) {
    hashes.push_back(RowHash(r, seed));
    sizes.push_back(g.offset[r + 1] - g.offset[r]);
  }
  const std::vector<bool> keep = stats::SeededSubset(hashes, sizes, static_cast<double>(target));
  std::vector<Obs> obs;
  y_out->clear();
  int rows = 0;
  for (size_t r = 0; r < keep.size(); ++r) {
    if (!keep[r]) continue;
    for (size_t i = g.offset[r]; i < g.offset[r + 1]; ++i) {
      obs.push_back({rows, g.obs[i].col, g.obs[i].y});
      y_out->push_back(y[i]);
    }
    ++rows;
  }
  std::vector<int> per_col(static_cast<size_t>(g.cols), 0);
  for (const Obs& o : obs) ++per_col[static_cast<size_t>(o.col)];
  if (std::count(per_col.begin(), per_col.end(), 0) > 0 || !Connected(obs, rows, g.cols)) {
    return false;
  }
  *out = ByRow(obs, rows, g.cols);
  return true;
}

// `rounds` residual-bootstrap fits of (g, y) around its fit `fit`, split over threads.
std::vector<std::vector<double>> Rounds(const Grid& g, const std::vector<double>& y,
                                        const std::vector<double>& fit, uint64_t seed,
                                        const BootstrapOptions& options) {
  std::vector<double> row_fit;
  const std::vector<double> refit = FitColumns(g, y, options.iterations, &row_fit, fit);
  std::vector<double> resid(y.size());
  for (size_t i = 0; i < y.size(); ++i) {
    resid[i] = y[i] - row_fit[static_cast<size_t>(g.obs[i].row)] -
               refit[static_cast<size_t>(g.obs[i].col)];
  }
  const double e = static_cast<double>(y.size()), p = g.rows + g.cols - 1;
  const double scale = e > p ? std::sqrt(e / (e - p)) : 1.0;
  std::vector<std::vector<double>> by_round(static_cast<size_t>(std::max(1, options.rounds)));
  auto run = [&](size_t first, size_t step) {
    std::vector<double> star(y.size());
    for (size_t b = first; b < by_round.size(); b += step) {
      stats::Rng rng(seed + 0x9E3779B97F4A7C15ULL * (b + 1));
      for (size_t i = 0; i < y.size(); ++i) {
        star[i] =
            y[i] - resid[i] + scale * resid[rng.UniformIndex(static_cast<uint32_t>(resid.size()))];
      }
      std::vector<double> c = FitColumns(g, star, options.iterations, nullptr, refit);
      for (size_t j = 0; j < c.size(); ++j) c[j] -= refit[j];  // the deviation from the fit
      by_round[b] = std::move(c);
    }
  };
  const size_t threads =
      std::min(by_round.size(), static_cast<size_t>(std::max(1, options.threads)));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(run, t, threads);
  run(0, threads);
  for (auto& th : pool) th.join();
  return by_round;
}

}  // namespace

Grid ByRow(const std::vector<Obs>& obs, int rows, int cols) {
  Grid g;
  g.rows = rows;
  g.cols = cols;
  g.offset.assign(static_cast<size_t>(rows) + 1, 0);
  for (const Obs& o : obs) ++g.offset[static_cast<size_t>(o.row) + 1];
  for (size_t r = 1; r < g.offset.size(); ++r) g.offset[r] += g.offset[r - 1];
  std::vector<size_t> next(g.offset.begin(), g.offset.end() - 1);
  g.obs.resize(obs.size());
  for (const Obs& o : obs) g.obs[next[static_cast<size_t>(o.row)]++] = o;
  return g;
}

bool Connected(const std::vector<Obs>& obs, int rows, int cols) {
  std::vector<int> parent(static_cast<size_t>(cols));
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::vector<int> first(static_cast<size_t>(rows), -1);
  for (const auto& o : obs) {
    if (first[o.row] < 0) first[o.row] = o.col;
    parent[find(o.col)] = find(first[o.row]);
  }
  for (int c = 1; c < cols; ++c) {
    if (find(c) != find(0)) return false;
  }
  return true;
}

std::vector<double> FitColumns(const Grid& g, const std::vector<double>& y, int iterations,
                               std::vector<double>* row_out, const std::vector<double>& start,
                               int threads) {
  std::vector<double> row(static_cast<size_t>(g.rows), 0.0), col(static_cast<size_t>(g.cols), 0.0);
  if (start.size() == col.size()) col = start;
  std::vector<double> prev = col, buf(y.size());
  std::vector<std::vector<double>> by_col(col.size());
  std::vector<ColumnMedian> col_median(col.size());
  const size_t parts = static_cast<size_t>(std::max(1, threads));
  // fn(part) for part = 0 .. parts - 1, on parts threads (this one included).
  auto in_parallel = [parts](const auto& fn) {
    std::vector<std::thread> pool;
    for (size_t t = 1; t < parts; ++t) pool.emplace_back(fn, t);
    fn(size_t{0});
    for (auto& th : pool) th.join();
  };
  const size_t rows = static_cast<size_t>(g.rows);
  for (int it = 0; it < iterations; ++it) {
    in_parallel([&](size_t part) {  // rows [rows * part / parts, rows * (part + 1) / parts)
      for (size_t r = rows * part / parts; r < rows * (part + 1) / parts; ++r) {
        if (g.offset[r + 1] == g.offset[r]) continue;
        for (size_t i = g.offset[r]; i < g.offset[r + 1]; ++i) {
          buf[i] = y[i] - col[static_cast<size_t>(g.obs[i].col)];
        }
        row[r] = stats::MedianInPlace(buf.data() + g.offset[r], buf.data() + g.offset[r + 1]);
      }
    });
    in_parallel([&](size_t part) {  // columns part, part + parts, ...: one pass over y each
      for (size_t c = part; c < col.size(); c += parts) by_col[c].clear();
      for (size_t i = 0; i < y.size(); ++i) {
        const size_t c = static_cast<size_t>(g.obs[i].col);
        if (c % parts == part) by_col[c].push_back(y[i] - row[static_cast<size_t>(g.obs[i].row)]);
      }
      for (size_t c = part; c < col.size(); c += parts) {
        if (!by_col[c].empty()) col[c] = col_median[c](&by_col[c]);
      }
    });
    std::vector<double> tmp = col;
    const double centre = stats::MedianInPlace(&tmp);
    double moved = 0;
    for (size_t c = 0; c < col.size(); ++c) {
      moved = std::max(moved, std::fabs(col[c] - centre - prev[c]));
      col[c] -= centre;
    }
    prev = col;
    if (moved < 1e-7) break;  // converged (1e-7 in log: far below any reported digit)
  }
  if (row_out) *row_out = row;
  return col;
}

std::vector<std::vector<double>> BootstrapColumns(const Grid& g, const std::vector<double>& y,
                                                  const std::vector<double>& fit, uint64_t seed,
                                                  const BootstrapOptions& options) {
  const Grid* grid = &g;
  const std::vector<double>* values = &y;
  double rate = 1;  // sqrt(bootstrapped executions / executions)
  Grid subset;
  std::vector<double> subset_y;
  if (y.size() > options.max_bootstrap_executions &&
      SubsetRows(g, y, options.max_bootstrap_executions, seed, &subset, &subset_y) &&
      subset_y.size() < y.size()) {
    grid = &subset;
    values = &subset_y;
    rate = std::sqrt(static_cast<double>(subset_y.size()) / static_cast<double>(y.size()));
  }
  const auto deviations = Rounds(*grid, *values, fit, seed, options);
  std::vector<std::vector<double>> draws(fit.size());
  for (const auto& d : deviations) {
    for (size_t j = 0; j < fit.size(); ++j) draws[j].push_back(fit[j] + rate * d[j]);
  }
  return draws;
}

}  // namespace fleetsweep::node_fit
