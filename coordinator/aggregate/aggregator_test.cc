#include "coordinator/aggregate/aggregator.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/stats/rng.h"
#include "coordinator/aggregate/results_writer.h"
#include "coordinator/aggregate/winner.h"

namespace fleetsweep {
namespace {

SweepSpec Spec(const std::string& params, const std::string& reference = "") {
  std::string text = "sweep: t\nparameters:\n" + params +
                     "metrics:\n  - {name: time_ms, goal: minimize}\n" + reference;
  auto s = ParseSpecText(text, "<test>");
  EXPECT_TRUE(s.ok()) << s.status().message();
  return *s;
}

v1::ConfigRecord Rec(const std::string& key, std::map<std::string, std::string> params,
                     v1::ConfigState st = v1::CONFIG_STATE_DONE) {
  v1::ConfigRecord r;
  r.set_config_key(key);
  for (const auto& [k, v] : params) (*r.mutable_params())[k] = v;
  r.set_state(st);
  return r;
}

v1::Attempt Att(const std::string& key, const std::string& node, double base, const std::string& fp,
                stats::Rng* rng, double noise = 0.004, int n = 10, bool reference = false) {
  static int seq = 0;
  v1::Attempt a;
  a.set_config_key(key);
  a.set_attempt_id(key + "-" + std::to_string(++seq));
  a.set_node(node);
  a.set_ok(true);
  a.set_reference(reference);
  a.set_fingerprint(fp);
  a.set_started_unix_ms(seq);
  for (int i = 0; i < n; ++i) {
    auto* s = a.add_samples();
    s->set_metric("time_ms");
    s->set_value(base * (1 + noise * (rng->Uniform01() - 0.5)));
  }
  return a;
}

// `n` executions of `samples` samples each, execution medians spread by `exec_noise`.
std::vector<v1::Attempt> Execs(const std::string& key, const std::string& node, double base,
                               const std::string& fp, stats::Rng* rng, int n = 5,
                               double exec_noise = 0.004, int samples = 10) {
  std::vector<v1::Attempt> out;
  for (int e = 0; e < n; ++e) {
    const double shift = 1 + exec_noise * (rng->Uniform01() - 0.5);
    out.push_back(Att(key, node, base * shift, fp, rng, 0.004, samples));
  }
  return out;
}

std::vector<v1::Attempt> Concat(std::vector<std::vector<v1::Attempt>> parts) {
  std::vector<v1::Attempt> out;
  for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

TEST(Aggregate, ClearWinnerBeatsEveryOther) {
  SweepSpec spec = Spec("  A: {values: [1, 2, 3]}\n");
  stats::Rng rng(1);
  auto r =
      Aggregate(spec, {Rec("k1", {{"A", "1"}}), Rec("k2", {{"A", "2"}}), Rec("k3", {{"A", "3"}})},
                Concat({Execs("k1", "n0", 10, "f1", &rng), Execs("k2", "n0", 12, "f2", &rng),
                        Execs("k3", "n0", 13, "f3", &rng)}),
                1);
  EXPECT_TRUE(r.valid);
  EXPECT_EQ(r.winner, 0);
  EXPECT_EQ(r.configs[0].key, "k1");
  EXPECT_EQ(r.configs[0].primary.n, 5);         // executions ...
  EXPECT_EQ(r.configs[0].primary.samples, 50);  // ... with their samples beside them
  EXPECT_TRUE(r.winner_test.done);
  EXPECT_TRUE(r.winner_test.separated);
  EXPECT_EQ(r.winner_test.comparisons, 3);
  EXPECT_EQ(r.winner_test.looks, 2);  // default repetitions: min 3 < max 10
  EXPECT_NEAR(r.winner_test.comparison_alpha, 2 * 0.01 / (3 * 2), 1e-15);
  EXPECT_LE(r.winner_test.max_p, r.winner_test.comparison_alpha);
  EXPECT_NEAR(r.configs[1].log_diff_vs_best, std::log(1.2), 0.01);
  EXPECT_FALSE(r.winner_rule.empty());
  auto j = ResultsToJson(r);
  EXPECT_EQ(j["valid"], true);
  EXPECT_EQ(j["winner"]["key"], "k1");
  EXPECT_EQ(j["winner_test"]["separated"], true);
  EXPECT_EQ(j["configurations"][0]["n"], 5);
  EXPECT_EQ(j["configurations"][0]["samples"], 50);
  EXPECT_FALSE(j["configurations"][0].contains("unit_vs_best"));    // the best
  EXPECT_EQ(j["configurations"][1]["unit_vs_best"], "executions");  // one-shot: no sessions
  EXPECT_EQ(j["audit"]["injection"][0]["verdict"], "injected");
  EXPECT_EQ(j["audit"]["inert"][0]["redealing"], "executions");  // a small sweep
  EXPECT_EQ(j["audit"]["inert"][0]["units"], 15);                // 3 configurations x 5
}

// One execution per configuration is one unit of evidence each, however many samples it holds:
// 20 samples that disagree by 20% do not make a winner (the old sample-level rule named one).
TEST(Aggregate, OneExecutionEachCannotDefendAWinner) {
  SweepSpec spec = Spec("  A: {values: [1, 2]}\n");
  stats::Rng rng(1);
  auto r = Aggregate(
      spec, {Rec("k1", {{"A", "1"}}), Rec("k2", {{"A", "2"}})},
      {Att("k1", "n0", 10, "f1", &rng, 0.004, 20), Att("k2", "n0", 12, "f2", &rng, 0.004, 20)}, 1);
  EXPECT_EQ(r.winner, -1);
  EXPECT_EQ(r.tied.size(), 2u);
  EXPECT_EQ(r.configs[0].primary.n, 1);
  EXPECT_DOUBLE_EQ(r.configs[1].p_vs_best, 1.0);
}

// The per-comparison level is Bonferroni over the m directional claims a false winner needs
// (winner.h), not over the C(m, 2) pairs: 2 alpha / (m looks); m = 2 gives the all-pairs level.
TEST(Winner, ComparisonAlphaIsBonferroniOverTheRankedConfigurations) {
  EXPECT_DOUBLE_EQ(ComparisonAlpha(0.01, 2, 1), 0.01);
  EXPECT_DOUBLE_EQ(ComparisonAlpha(0.01, 2, 2), 0.005);
  EXPECT_DOUBLE_EQ(ComparisonAlpha(0.01, 16, 2), 0.01 / 16);
  EXPECT_DOUBLE_EQ(ComparisonAlpha(0.01, 42, 1), 0.02 / 42);
  EXPECT_DOUBLE_EQ(ComparisonAlpha(0.01, 1, 0), 0.01);  // at least 2 configurations and 1 look
}

// A/A: the same configuration under two names is tied, and its executions' spread (not the
// samples') decides: executions that differ by 1% with tight samples inside do not separate.
TEST(Aggregate, SameThingUnderTwoNamesIsTied) {
  SweepSpec spec = Spec("  alias: {values: [a, b]}\n");
  stats::Rng rng(4);
  auto r = Aggregate(spec, {Rec("ka", {{"alias", "a"}}), Rec("kb", {{"alias", "b"}})},
                     Concat({Execs("ka", "n0", 10, "fa", &rng, 4, 0.02),
                             Execs("kb", "n0", 10, "fb", &rng, 4, 0.02)}),
                     1);
  EXPECT_EQ(r.winner, -1);
  EXPECT_EQ(r.tied.size(), 2u);
  EXPECT_GT(r.winner_test.runner_up_p, r.winner_test.comparison_alpha);
}

TEST(Aggregate, SameFingerprintEverywhereMakesTheSweepInvalid) {
  SweepSpec spec = Spec("  A: {values: [1, 2]}\n");
  stats::Rng rng(1);
  auto r = Aggregate(spec, {Rec("k1", {{"A", "1"}}), Rec("k2", {{"A", "2"}})},
                     {Att("k1", "n0", 10, "same", &rng), Att("k2", "n0", 12, "same", &rng)}, 1);
  EXPECT_FALSE(r.valid);
  ASSERT_EQ(r.invalid_reasons.size(), 1u);
  EXPECT_EQ(r.winner, -1);  // never a winner from an invalid sweep
  auto j = ResultsToJson(r);
  EXPECT_EQ(j["valid"], false);
  EXPECT_TRUE(j["winner"].is_null());
  std::string summary = SummaryTable(r);
  EXPECT_NE(summary.find("SWEEP RESULT INVALID"), std::string::npos);
  EXPECT_NE(summary.find("not_injected"), std::string::npos);
}

TEST(Aggregate, NodeEffectsAreRemovedBeforeRanking) {
  // Truth: k1 (10) < k2 (11). k1 only ran on the slow node (x1.2 -> 12), k2 on the fast one.
  SweepSpec spec = Spec("  A: {values: [1, 2]}\n", "reference: {A: 1}\n");
  stats::Rng rng(2);
  std::vector<v1::Attempt> as = {Att("k1", "slow", 10, "f1", &rng, 0.004, 10, true),
                                 Att("k1", "fast", 10 / 1.2, "f1", &rng, 0.004, 10, true),
                                 Att("k1", "slow", 10, "f1", &rng, 0.004, 10, true),
                                 Att("k1", "fast", 10 / 1.2, "f1", &rng, 0.004, 10, true),
                                 Att("k1", "slow", 10, "f1", &rng),
                                 Att("k1", "slow", 10, "f1", &rng),
                                 Att("k2", "fast", 11 / 1.2, "f2", &rng),
                                 Att("k2", "fast", 11 / 1.2, "f2", &rng)};
  auto r = Aggregate(spec, {Rec("k1", {{"A", "1"}}), Rec("k2", {{"A", "2"}})}, as, 1);
  EXPECT_TRUE(r.node_effects_applied);
  ASSERT_EQ(r.node_effects.size(), 2u);
  EXPECT_EQ(r.configs[0].key, "k1");
  EXPECT_NEAR(r.configs[1].primary.median / r.configs[0].primary.median, 1.1, 0.01);
  // Raw values are kept: raw says k2 looks faster.
  EXPECT_GT(r.configs[0].raw_primary.median, r.configs[1].raw_primary.median);
  auto j = ResultsToJson(r);
  EXPECT_EQ(j["node_effects"]["applied"], true);
  EXPECT_EQ(j["node_effects"]["nodes"].size(), 2u);
  EXPECT_TRUE(j["configurations"][0].contains("raw"));
  // Without removal the ranking is wrong.
  AggregateOptions raw;
  raw.remove_node_effects = false;
  EXPECT_EQ(
      Aggregate(spec, {Rec("k1", {{"A", "1"}}), Rec("k2", {{"A", "2"}})}, as, raw).configs[0].key,
      "k2");
}

TEST(Aggregate, InfeasibleRegionAndDeclaredInertReachTheJson) {
  SweepSpec spec = Spec(
      "  use_v1: {values: [true, false]}\n  B: {values: [1, 2]}\n"
      "  BLOCK_SIZE_N: {inert: true, reason: ignored by ixformer, values: [32, 64]}\n");
  stats::Rng rng(3);
  std::vector<v1::ConfigRecord> recs;
  std::vector<v1::Attempt> as;
  for (const char* v : {"true", "false"}) {
    for (const char* b : {"1", "2"}) {
      std::string key = std::string(v) + b;
      auto rec =
          Rec(key, {{"use_v1", v}, {"B", b}},
              std::string(v) == "true" ? v1::CONFIG_STATE_DONE : v1::CONFIG_STATE_INFEASIBLE);
      if (std::string(v) == "false") rec.set_last_failure(v1::FAILURE_CLASS_NOT_IMPLEMENTED);
      recs.push_back(rec);
      if (std::string(v) == "true") as.push_back(Att(key, "n0", 10 + std::stoi(b), key, &rng));
    }
  }
  auto j = ResultsToJson(Aggregate(spec, recs, as, 1));
  auto region = j["audit"]["infeasible_regions"][0];
  EXPECT_EQ(region["text"], "use_v1=false: 2 of 2 configurations infeasible (not_implemented)");
  EXPECT_EQ(region["whole"], true);
  EXPECT_EQ(j["audit"]["declared_inert"][0]["param"], "BLOCK_SIZE_N");
  EXPECT_EQ(j["audit"]["injection"].size(), 2u);
}

TEST(Aggregate, BoundViolationIsExplained) {
  std::string text =
      "sweep: t\nparameters:\n  A: {values: [1, 2]}\nmetrics:\n"
      "  - {name: time_ms, goal: minimize, max: 11}\n";
  auto spec = ParseSpecText(text, "<t>");
  ASSERT_TRUE(spec.ok());
  stats::Rng rng(1);
  auto r = Aggregate(*spec, {Rec("k1", {{"A", "1"}}), Rec("k2", {{"A", "2"}})},
                     {Att("k1", "n0", 10, "f1", &rng), Att("k2", "n0", 12, "f2", &rng)}, 1);
  EXPECT_FALSE(r.configs[0].violates_bound);
  ASSERT_TRUE(r.configs[1].violates_bound);
  EXPECT_NE(r.configs[1].bound_violations[0].find("> max 11"), std::string::npos);
}

// The sessions reach the effect test: each level of A ran in one persistent session of its own
// (A is in the session key), so a 20% difference between the levels cannot be told from the two
// sessions' own offsets: "inconclusive", sessions re-dealt. The same attempts without
// `session.id` (one-shot: a process each) are independent evidence: "active".
TEST(Aggregate, ALevelInASessionOfItsOwnIsTestedBySessions) {
  SweepSpec spec = Spec("  A: {values: [1, 2]}\n  B: {values: [1, 2, 3]}\n");
  std::vector<v1::ConfigRecord> recs;
  for (int a = 1; a <= 2; ++a) {
    for (int b = 1; b <= 3; ++b) {
      recs.push_back(Rec("a" + std::to_string(a) + "b" + std::to_string(b),
                         {{"A", std::to_string(a)}, {"B", std::to_string(b)}}));
    }
  }
  for (const bool sessions : {true, false}) {
    stats::Rng rng(3);
    std::vector<v1::Attempt> as;
    for (const auto& r : recs) {
      const int a = std::stoi(r.params().at("A")), b = std::stoi(r.params().at("B"));
      for (v1::Attempt& x : Execs(r.config_key(), "n0", 10 * (a == 2 ? 1.2 : 1) * (1 + 0.1 * b),
                                  "f" + r.config_key(), &rng)) {
        if (sessions) (*x.mutable_info())["session.id"] = "s0-" + std::to_string(a);
        as.push_back(std::move(x));
      }
    }
    const SweepResult res = Aggregate(spec, recs, as, 1);
    const InertVerdict& v = res.inert[0];
    ASSERT_EQ(v.param, "A");
    if (sessions) {
      EXPECT_EQ(v.redealing, "sessions");
      EXPECT_EQ(v.units, 2);
      EXPECT_EQ(v.verdict, Effect::kInconclusive);
      EXPECT_EQ(ResultsToJson(res)["audit"]["inert"][0]["redealing"], "sessions");
    } else {
      EXPECT_EQ(v.redealing, "executions");
      EXPECT_EQ(v.verdict, Effect::kActive);
    }
  }
}

}  // namespace
}  // namespace fleetsweep
