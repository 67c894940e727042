#include "bench/verdict_claims.h"

#include <cmath>

#include "gtest/gtest.h"

namespace fleetsweep {
namespace {

// Reference values: exact sums with Python's math.comb (fractions of the binomial pmf).
TEST(BinomialTail, MatchesExactSums) {
  EXPECT_NEAR(BinomialUpperTail(11, 300, 0.01), 0.00026484370533220487, 1e-15);
  EXPECT_NEAR(BinomialUpperTail(29, 300, 0.05), 0.0006098213592616888, 1e-15);
  EXPECT_NEAR(BinomialLowerTail(255, 300, 0.9), 0.004055038066671216, 1e-14);
  EXPECT_NEAR(BinomialLowerTail(3, 10, 0.5), 0.171875, 1e-14);
}

TEST(BinomialTail, Edges) {
  EXPECT_EQ(BinomialUpperTail(0, 10, 0.2), 1);
  EXPECT_EQ(BinomialUpperTail(11, 10, 0.2), 0);
  EXPECT_EQ(BinomialLowerTail(10, 10, 0.2), 1);
  EXPECT_EQ(BinomialUpperTail(1, 10, 0.0), 0);
  EXPECT_EQ(BinomialLowerTail(9, 10, 1.0), 0);
  EXPECT_TRUE(std::isnan(BinomialUpperTail(1, 10, 1.5)));
}

TEST(ClaimCheck, FailsOnlyWhenTheCountContradictsTheBound) {
  ClaimCheck check;
  check.AtMost("false winner", 10, 300, 0.01);  // p = 1.1e-3: consistent with 1%
  EXPECT_EQ(check.Failures(), 0);
  check.AtMost("false winner", 11, 300, 0.01);  // p = 2.6e-4
  EXPECT_EQ(check.Failures(), 1);
  check.AtLeast("found", 255, 300, 0.9);  // p = 4e-3
  EXPECT_EQ(check.Failures(), 1);
  check.AtLeast("found", 240, 300, 0.9);
  EXPECT_EQ(check.Failures(), 2);
  check.Equal("flagged", 3, 3);
  check.Equal("flagged", 3, 2);
  EXPECT_EQ(check.Failures(), 3);
  ASSERT_EQ(check.Rows().size(), 6u);
  EXPECT_NE(check.Rows()[1].find("FAIL"), std::string::npos);
  EXPECT_NE(check.Rows()[1].find("11/300"), std::string::npos);
}

}  // namespace
}  // namespace fleetsweep
