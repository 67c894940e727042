// Median polish: exact recovery of additive tables, robustness to an outlier, missing cells.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "common/stats/stats.h"

namespace fleetsweep::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// overall + row[r] + col[c]; with effects centred (median zero) so the decomposition is unique.
std::vector<std::vector<double>> Additive(double overall, const std::vector<double>& rows,
                                          const std::vector<double>& cols) {
  std::vector<std::vector<double>> t(rows.size(), std::vector<double>(cols.size()));
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t c = 0; c < cols.size(); ++c) t[r][c] = overall + rows[r] + cols[c];
  }
  return t;
}

TEST(MedianPolish, RecoversAdditiveTableExactly) {
  // 5 configurations x 4 nodes; effects with median 0 (rows) and 0 (cols, even count: mean of
  // the middle two) so the fit must return them as given.
  const std::vector<double> rows = {-2.0, -0.5, 0.0, 1.25, 4.0};
  const std::vector<double> cols = {-0.75, -0.25, 0.25, 3.0};
  const auto table = Additive(10.0, rows, cols);
  const auto r = MedianPolish(table);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->converged);
  EXPECT_DOUBLE_EQ(r->overall, 10.0);
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_DOUBLE_EQ(r->row_effects[i], rows[i]);
  for (size_t j = 0; j < cols.size(); ++j) EXPECT_DOUBLE_EQ(r->col_effects[j], cols[j]);
  for (const auto& row : r->residuals) {
    for (double v : row) EXPECT_NEAR(v, 0.0, 1e-12);
  }
}

TEST(MedianPolish, FitPlusResidualsReproducesTable) {
  const std::vector<std::vector<double>> table = {
      {14, 15, 14}, {7, 4, 7}, {8, 2, 10}, {15, 9, 10}, {0, 2, 0}};
  const auto r = MedianPolish(table);
  ASSERT_TRUE(r.ok());
  for (size_t i = 0; i < table.size(); ++i) {
    for (size_t j = 0; j < table[i].size(); ++j) {
      EXPECT_NEAR(r->overall + r->row_effects[i] + r->col_effects[j] + r->residuals[i][j],
                  table[i][j], 1e-12);
    }
  }
}

TEST(MedianPolish, NodeEffectRobustToOneOutlierAndMissingCells) {
  // Node 2 is 0.5 slower everywhere; one cell is a wild outlier and two cells are missing.
  const std::vector<double> rows = {-1.0, -0.5, 0.0, 0.5, 1.0, 2.0};
  const std::vector<double> cols = {0.0, 0.0, 0.5};
  auto table = Additive(3.0, rows, cols);
  table[1][0] = 500.0;
  table[3][2] = kNaN;
  table[4][1] = kNaN;
  const auto r = MedianPolish(table);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NEAR(r->col_effects[2] - r->col_effects[0], 0.5, 1e-9);
  EXPECT_NEAR(r->col_effects[1] - r->col_effects[0], 0.0, 1e-9);
  EXPECT_NEAR(r->residuals[1][0], 500.0 - (3.0 + rows[1] + cols[0]), 1e-9);  // outlier isolated
  EXPECT_TRUE(std::isnan(r->residuals[3][2]));
  EXPECT_TRUE(std::isnan(r->residuals[4][1]));
}

TEST(MedianPolish, StopsAtMaxIter) {
  const std::vector<std::vector<double>> table = {{1, 9, 2}, {8, 3, 7}, {4, 6, 0}, {5, 2, 9}};
  MedianPolishOptions opt;
  opt.max_iter = 1;
  opt.tol = 0;
  const auto r = MedianPolish(table, opt);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->iterations, 1);
  EXPECT_FALSE(r->converged);
}

TEST(MedianPolish, RejectsBadTables) {
  EXPECT_FALSE(MedianPolish({}).ok());
  EXPECT_FALSE(MedianPolish({{1, 2}, {3}}).ok());
  EXPECT_FALSE(MedianPolish({{1, kNaN}, {3, kNaN}}).ok());  // column 1 all missing
  EXPECT_FALSE(MedianPolish({{kNaN, kNaN}, {3, 4}}).ok());  // row 0 all missing
  EXPECT_FALSE(MedianPolish({{1, std::numeric_limits<double>::infinity()}}).ok());
  MedianPolishOptions bad;
  bad.max_iter = 0;
  EXPECT_FALSE(MedianPolish({{1, 2}}, bad).ok());
}

}  // namespace
}  // namespace fleetsweep::stats
