#include "coordinator/aggregate/metric_checks.h"

#include <gtest/gtest.h>

#include "coordinator/aggregate/aggregator.h"

namespace fleetsweep {
namespace {

SweepSpec Spec(const std::string& metrics) {
  auto s =
      ParseSpecText("sweep: t\nparameters:\n  A: {values: [1, 2]}\nmetrics:\n" + metrics, "<test>");
  EXPECT_TRUE(s.ok()) << s.status().message();
  return *s;
}

v1::ConfigRecord Rec(const std::string& key, const std::string& a) {
  v1::ConfigRecord r;
  r.set_config_key(key);
  (*r.mutable_params())["A"] = a;
  r.set_state(v1::CONFIG_STATE_DONE);
  return r;
}

// An ok attempt reporting `metrics` (name -> base value), 8 samples each.
v1::Attempt Att(const std::string& key, const std::map<std::string, double>& metrics) {
  static int seq = 0;
  v1::Attempt a;
  a.set_config_key(key);
  a.set_attempt_id(key + "-" + std::to_string(++seq));
  a.set_node("n0");
  a.set_ok(true);
  for (int i = 0; i < 8; ++i) {
    for (const auto& [name, base] : metrics) {
      auto* s = a.add_samples();
      s->set_metric(name);
      s->set_value(base + 0.01 * i);
    }
  }
  return a;
}

bool HasReason(const SweepResult& r, const std::string& needle) {
  for (const auto& why : r.invalid_reasons) {
    if (why.find(needle) != std::string::npos) return true;
  }
  return false;
}

TEST(MetricChecks, PrimaryMetricNeverReportedMakesTheSweepInvalid) {
  SweepSpec spec = Spec("  - {name: time_msec, goal: minimize}\n");
  auto r = Aggregate(spec, {Rec("k1", "1"), Rec("k2", "2")},
                     {Att("k1", {{"time_ms", 1}}), Att("k2", {{"time_ms", 2}})});
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.winner, -1);
  EXPECT_TRUE(HasReason(r,
                        "primary metric 'time_msec' was never reported by the benchmark; it "
                        "reported time_ms"));
}

TEST(MetricChecks, BoundOnAMetricThatNeverArrivesFailsLoudly) {
  SweepSpec spec = Spec(
      "  - {name: output_throughput, goal: maximize}\n"
      "  - {name: p99_e2el_ms, goal: minimize, max: 2000}\n");
  auto r =
      Aggregate(spec, {Rec("k1", "1"), Rec("k2", "2")},
                {Att("k1", {{"output_throughput", 100}}), Att("k2", {{"output_throughput", 200}})});
  EXPECT_FALSE(r.valid);
  EXPECT_TRUE(HasReason(r, "bound on 'p99_e2el_ms' (max 2000) was never enforced"));
  for (const auto& c : r.configs) {
    EXPECT_TRUE(c.violates_bound) << c.key;
    ASSERT_FALSE(c.bound_violations.empty());
    EXPECT_NE(c.bound_violations[0].find("p99_e2el_ms never reported"), std::string::npos);
  }
  EXPECT_EQ(r.winner, -1);
  EXPECT_TRUE(r.tied.empty());
}

TEST(MetricChecks, ConfigurationMissingABoundedMetricCannotWin) {
  SweepSpec spec = Spec(
      "  - {name: output_throughput, goal: maximize}\n"
      "  - {name: p99_e2el_ms, goal: minimize, max: 2000}\n");
  auto r = Aggregate(spec, {Rec("k1", "1"), Rec("k2", "2")},
                     {Att("k1", {{"output_throughput", 100}, {"p99_e2el_ms", 900}}),
                      Att("k2", {{"output_throughput", 500}})});
  EXPECT_TRUE(r.valid) << (r.invalid_reasons.empty() ? "" : r.invalid_reasons[0]);
  ASSERT_EQ(r.configs.size(), 2u);
  EXPECT_EQ(r.configs[0].key, "k1");  // k2 is faster but never reported the bounded metric
  EXPECT_FALSE(r.configs[0].violates_bound);
  EXPECT_TRUE(r.configs[1].violates_bound);
}

}  // namespace
}  // namespace fleetsweep
