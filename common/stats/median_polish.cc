#include "common/stats/median_polish.h"

#include <cmath>
#include <string>

#include "common/stats/descriptive.h"

namespace fleetsweep::stats {
namespace {

// Median of the non-NaN values of `values` (callers guarantee at least one), via `buf`.
double NanMedian(const std::vector<double>& values, std::vector<double>* buf) {
  buf->clear();
  for (double v : values) {
    if (!std::isnan(v)) buf->push_back(v);
  }
  return MedianInPlace(buf);
}

}  // namespace

StatusOr<MedianPolishResult> MedianPolish(const std::vector<std::vector<double>>& table,
                                          const MedianPolishOptions& options) {
  if (table.empty() || table[0].empty()) {
    return Status::InvalidArgument("MedianPolish: empty table");
  }
  if (options.max_iter < 1 || !(options.tol >= 0)) {
    return Status::InvalidArgument("MedianPolish: need max_iter >= 1 and tol >= 0");
  }
  const size_t rows = table.size(), cols = table[0].size();
  std::vector<size_t> row_seen(rows, 0), col_seen(cols, 0);
  for (size_t r = 0; r < rows; ++r) {
    if (table[r].size() != cols) {
      return Status::InvalidArgument("MedianPolish: row " + std::to_string(r) + " has " +
                                     std::to_string(table[r].size()) + " cells, row 0 has " +
                                     std::to_string(cols));
    }
    for (size_t c = 0; c < cols; ++c) {
      const double v = table[r][c];
      if (std::isinf(v)) {
        return Status::InvalidArgument("MedianPolish: infinite value at (" + std::to_string(r) +
                                       ", " + std::to_string(c) + ")");
      }
      if (!std::isnan(v)) ++row_seen[r], ++col_seen[c];
    }
  }
  for (size_t r = 0; r < rows; ++r) {
    if (row_seen[r] == 0) {
      return Status::InvalidArgument("MedianPolish: row " + std::to_string(r) + " is all missing");
    }
  }
  for (size_t c = 0; c < cols; ++c) {
    if (col_seen[c] == 0) {
      return Status::InvalidArgument("MedianPolish: column " + std::to_string(c) +
                                     " is all missing");
    }
  }

  MedianPolishResult res;
  res.residuals = table;
  res.row_effects.assign(rows, 0.0);
  res.col_effects.assign(cols, 0.0);
  std::vector<std::vector<double>>& z = res.residuals;
  std::vector<double> buf, column(rows);
  double old_sum = 0;
  for (int iter = 1; iter <= options.max_iter; ++iter) {
    res.iterations = iter;
    for (size_t r = 0; r < rows; ++r) {
      const double delta = NanMedian(z[r], &buf);
      for (double& v : z[r]) v -= delta;  // NaN stays NaN
      res.row_effects[r] += delta;
    }
    double delta = NanMedian(res.col_effects, &buf);
    for (double& c : res.col_effects) c -= delta;
    res.overall += delta;
    for (size_t c = 0; c < cols; ++c) {
      for (size_t r = 0; r < rows; ++r) column[r] = z[r][c];
      const double cdelta = NanMedian(column, &buf);
      for (size_t r = 0; r < rows; ++r) z[r][c] -= cdelta;
      res.col_effects[c] += cdelta;
    }
    delta = NanMedian(res.row_effects, &buf);
    for (double& r : res.row_effects) r -= delta;
    res.overall += delta;

    double new_sum = 0;
    for (const auto& zr : z) {
      for (double v : zr) {
        if (!std::isnan(v)) new_sum += std::fabs(v);
      }
    }
    res.converged = new_sum == 0 || std::fabs(new_sum - old_sum) < options.tol * new_sum;
    if (res.converged) break;
    old_sum = new_sum;
  }
  return res;
}

}  // namespace fleetsweep::stats
