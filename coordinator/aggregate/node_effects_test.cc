#include "coordinator/aggregate/node_effects.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/stats/rng.h"

namespace fleetsweep {
namespace {

v1::Attempt Att(const std::string& key, const std::string& node, bool reference, double base,
                int64_t when, stats::Rng* rng, int n = 8) {
  v1::Attempt a;
  a.set_config_key(key);
  a.set_attempt_id(key + node + std::to_string(when) + (reference ? "r" : ""));
  a.set_node(node);
  a.set_ok(true);
  a.set_reference(reference);
  a.set_started_unix_ms(when);
  for (int i = 0; i < n; ++i) {
    auto* s = a.add_samples();
    s->set_metric("time_ms");
    s->set_value(base * (1 + 0.004 * (rng->Uniform01() - 0.5)));
  }
  return a;
}

TEST(NodeEffects, TwentyPercentSlowerNodeIsEstimatedAndApplied) {
  stats::Rng rng(3);
  std::vector<v1::Attempt> as;
  for (int t = 0; t < 3; ++t) {
    as.push_back(Att("ref", "n0", true, 10.0, t * 100, &rng));
    as.push_back(Att("ref", "n1", true, 12.0, t * 100 + 1, &rng));
  }
  as.push_back(Att("c1", "n0", false, 20.0, 5, &rng));
  as.push_back(Att("c1", "n1", false, 24.0, 6, &rng));
  auto r = EstimateNodeEffects(as, "time_ms", 1);
  ASSERT_EQ(r.nodes.size(), 2u);
  EXPECT_TRUE(r.applied);
  EXPECT_EQ(r.method, "all_data");
  const NodeEffect& n0 = r.nodes[0];
  const NodeEffect& n1 = r.nodes[1];
  EXPECT_EQ(n0.node, "n0");
  EXPECT_NEAR(n1.effect / n0.effect, 1.2, 0.01);
  EXPECT_LT(n1.ci_low, n1.effect);
  EXPECT_GT(n1.ci_high, n1.effect);
  EXPECT_GT(n1.ci_low, 1.0);  // clearly slower than the pooled reference
  EXPECT_EQ(n1.reference_samples, 24);
  EXPECT_EQ(n1.reference_attempts, 3);
  EXPECT_EQ(n1.executions, 4);  // 3 reference + c1: every multi-node configuration counts
  EXPECT_NEAR(r.divisors.at("n1") / r.divisors.at("n0"), 1.2, 0.01);
  // The reference alone agrees (the consistency check).
  ASSERT_TRUE(std::isfinite(n0.reference_effect));
  EXPECT_NEAR(n1.reference_effect / n0.reference_effect, 1.2, 0.01);
  EXPECT_TRUE(n0.drift_tested);
  EXPECT_FALSE(n0.drift);
}

TEST(NodeEffects, EqualNodesAreNotCorrected) {
  stats::Rng rng(4);
  std::vector<v1::Attempt> as;
  for (int t = 0; t < 3; ++t) {
    as.push_back(Att("ref", "n0", true, 10.0, t, &rng));
    as.push_back(Att("ref", "n1", true, 10.0, t, &rng));
  }
  auto r = EstimateNodeEffects(as, "time_ms", 1);
  EXPECT_FALSE(r.applied);
  EXPECT_NE(r.note.find("distinguishable"), std::string::npos) << r.note;
  EXPECT_EQ(r.divisors.at("n0"), 1.0);
  EXPECT_EQ(r.divisors.at("n1"), 1.0);
  EXPECT_NEAR(r.nodes[1].effect, 1.0, 0.01);
}

TEST(NodeEffects, DriftBetweenEarlyAndLateReferenceIsFlagged) {
  stats::Rng rng(5);
  std::vector<v1::Attempt> as;
  as.push_back(Att("ref", "n0", true, 10.0, 1, &rng, 10));
  as.push_back(Att("ref", "n0", true, 10.0, 2, &rng, 10));
  as.push_back(Att("ref", "n0", true, 11.0, 3, &rng, 10));  // late: 10% slower (thermal)
  as.push_back(Att("ref", "n0", true, 11.0, 4, &rng, 10));
  auto r = EstimateNodeEffects(as, "time_ms", 1);
  ASSERT_EQ(r.nodes.size(), 1u);
  EXPECT_TRUE(r.nodes[0].drift_tested);
  EXPECT_TRUE(r.nodes[0].drift);
  EXPECT_NEAR(r.nodes[0].drift_change, 0.1, 0.01);
  EXPECT_LT(r.nodes[0].drift_p, 0.01);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings[0].find("drifted"), std::string::npos);
}

TEST(NodeEffects, TooFewLinkingExecutionsAreNotEstimated) {
  stats::Rng rng(6);
  std::vector<v1::Attempt> as = {Att("c", "n0", false, 10, 1, &rng),
                                 Att("c", "n1", false, 12, 2, &rng)};
  auto r = EstimateNodeEffects(as, "time_ms", 1);
  EXPECT_FALSE(r.applied);
  EXPECT_FALSE(r.warnings.empty());
  EXPECT_TRUE(std::isnan(r.nodes[0].effect));
}

// No reference at all: configurations measured on both nodes (the randomised assignment) carry
// the node effect; occasional 1.5x slow executions do not move the robust fit.
TEST(NodeEffects, EstimatedFromAllDataWithoutReference) {
  stats::Rng rng(8);
  std::vector<v1::Attempt> as;
  int64_t t = 0;
  for (int c = 0; c < 6; ++c) {
    for (int e = 0; e < 4; ++e) {
      const std::string node = e % 2 ? "slow" : "fast";
      double base = (10 + c) * (node == "slow" ? 1.2 : 1.0) * (1 + 0.01 * (rng.Uniform01() - 0.5));
      if (c == 2 && e == 1) base *= 1.5;  // one execution hit by a noisy neighbour
      as.push_back(Att("c" + std::to_string(c), node, false, base, ++t, &rng));
    }
  }
  auto r = EstimateNodeEffects(as, "time_ms", 1);
  ASSERT_EQ(r.nodes.size(), 2u);
  EXPECT_TRUE(r.applied) << r.note;
  EXPECT_NEAR(r.nodes[1].effect / r.nodes[0].effect, 1.2, 0.012);
  EXPECT_LT(r.nodes[1].ci_low, r.nodes[1].effect);
  EXPECT_GT(r.nodes[1].ci_high, r.nodes[1].effect);
  EXPECT_TRUE(std::isnan(r.nodes[1].reference_effect));
}

// The reference says n1 is slower, every other configuration says it is faster: not applied.
TEST(NodeEffects, InconsistentReferenceIsNotApplied) {
  stats::Rng rng(9);
  std::vector<v1::Attempt> as;
  int64_t t = 0;
  as.push_back(Att("ref", "n0", true, 10, ++t, &rng));
  as.push_back(Att("ref", "n1", true, 12, ++t, &rng));
  for (int c = 0; c < 5; ++c) {
    for (int e = 0; e < 4; ++e) {
      const std::string node = e % 2 ? "n1" : "n0";
      as.push_back(Att("c" + std::to_string(c), node, false, (10 + c) * (node == "n1" ? 0.8 : 1.0),
                       ++t, &rng));
    }
  }
  auto r = EstimateNodeEffects(as, "time_ms", 1);
  EXPECT_FALSE(r.applied);
  EXPECT_NE(r.note.find("inconsistent"), std::string::npos) << r.note;
  EXPECT_LT(r.nodes[1].effect, 1.0);
  EXPECT_GT(r.nodes[1].reference_effect, 1.0);
}

}  // namespace
}  // namespace fleetsweep
