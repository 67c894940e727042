#include "coordinator/aggregate/audit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>

#include "common/stats/rng.h"

namespace fleetsweep {
namespace {

ConfigResult Cfg(std::map<std::string, std::string> params, std::set<std::string> fps,
                 double median = 10, ConfigOutcome status = ConfigOutcome::kDone) {
  ConfigResult c;
  c.params = std::move(params);
  for (const auto& [k, v] : c.params) c.key += k + v;
  c.status = status;
  c.ok_attempts = status == ConfigOutcome::kDone ? 3 : 0;
  c.fingerprints = std::move(fps);
  if (status == ConfigOutcome::kDone) {
    c.primary.n = 3;
    c.primary.median = median;
  }
  return c;
}

std::map<std::string, InjectionVerdict> ByParam(const std::vector<InjectionVerdict>& v) {
  std::map<std::string, InjectionVerdict> m;
  for (const auto& x : v) m[x.param] = x;
  return m;
}

TEST(AuditInjection, SameFingerprintEverywhereIsNotInjectedAndInvalid) {
  std::vector<ConfigResult> cs;
  for (const char* a : {"1", "2"}) {
    for (const char* b : {"x", "y", "z"}) cs.push_back(Cfg({{"A", a}, {"B", b}}, {"same"}));
  }
  auto v = ByParam(AuditInjection(cs, {"A", "B"}));
  EXPECT_EQ(v["A"].verdict, Injection::kNotInjected);
  EXPECT_EQ(v["A"].pairs, 3);  // 3 blocks (B fixed) of one pair each
  EXPECT_EQ(v["B"].verdict, Injection::kNotInjected);
  EXPECT_EQ(v["B"].pairs, 6);  // 2 blocks of 3 pairs
  EXPECT_NE(InjectionInvalidReason(AuditInjection(cs, {"A", "B"})), "");
}

TEST(AuditInjection, OneIgnoredParameter) {
  std::vector<ConfigResult> cs;
  for (const char* a : {"1", "2"}) {
    for (const char* b : {"x", "y"})
      cs.push_back(Cfg({{"A", a}, {"B", b}}, {std::string("k") + a}));
  }
  auto all = AuditInjection(cs, {"A", "B"});
  auto v = ByParam(all);
  EXPECT_EQ(v["A"].verdict, Injection::kInjected);
  EXPECT_EQ(v["A"].differing_pairs, 2);
  EXPECT_EQ(v["B"].verdict, Injection::kNotInjected);
  EXPECT_EQ(InjectionInvalidReason(all), "");
}

TEST(AuditInjection, MissingFingerprintsAreNeverASilentPass) {
  std::vector<ConfigResult> cs = {Cfg({{"A", "1"}}, {}), Cfg({{"A", "2"}}, {"k2"})};
  auto all = AuditInjection(cs, {"A"});
  EXPECT_EQ(all[0].verdict, Injection::kNoFingerprint);
  EXPECT_EQ(all[0].pairs_without_fingerprint, 1);
  EXPECT_EQ(InjectionInvalidReason(all), "");  // nothing was compared: not invalid, but warned
}

TEST(AuditInjection, InfeasiblePartnersLeaveAParameterUntested) {
  std::vector<ConfigResult> cs = {Cfg({{"A", "1"}}, {"k"}),
                                  Cfg({{"A", "2"}}, {}, 0, ConfigOutcome::kInfeasible)};
  EXPECT_EQ(AuditInjection(cs, {"A"})[0].verdict, Injection::kUntested);
}

// The counting audit equals enumerating every pair (the rule as first written): random sweeps with
// repeated levels, missing fingerprints, multi-fingerprint sets and configurations without ok
// attempts; counts, verdicts and examples all equal.
TEST(AuditInjection, CountsAndExamplesEqualEnumeratingEveryPair) {
  auto enumerate = [](const std::vector<ConfigResult>& configs, const std::string& p) {
    InjectionVerdict v;
    std::map<std::string, std::vector<const ConfigResult*>> blocks;
    for (const auto& c : configs) {
      if (c.ok_attempts == 0 || !c.params.count(p)) continue;
      std::string others;
      for (const auto& [name, value] : c.params) {
        if (name != p) others += name + "=" + value + "\x1f";
      }
      blocks[others].push_back(&c);
    }
    std::string same_example, diff_example;
    for (const auto& [key, members] : blocks) {
      for (size_t i = 0; i < members.size(); ++i) {
        for (size_t j = i + 1; j < members.size(); ++j) {
          const ConfigResult& a = *members[i];
          const ConfigResult& b = *members[j];
          if (a.params.at(p) == b.params.at(p)) continue;
          if (a.fingerprints.empty() || b.fingerprints.empty()) {
            ++v.pairs_without_fingerprint;
            continue;
          }
          ++v.pairs;
          std::string ex = a.key + "|" + b.key;
          if (a.fingerprints != b.fingerprints) {
            ++v.differing_pairs;
            if (diff_example.empty()) diff_example = ex;
          } else if (same_example.empty()) {
            same_example = ex;
          }
        }
      }
    }
    v.example = v.differing_pairs > 0 ? diff_example : v.pairs > 0 ? same_example : "";
    return v;
  };
  std::mt19937 rng(20261204);
  for (int sweep = 0; sweep < 200; ++sweep) {
    std::vector<ConfigResult> cs;
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      std::set<std::string> fps;
      const int kinds = static_cast<int>(rng() % 4);  // 0: none; else up to 2 of 3 kernels
      for (int k = 0; k < std::min(kinds, 2); ++k) fps.insert("f" + std::to_string(rng() % 3));
      ConfigResult c =
          Cfg({{"A", std::to_string(rng() % 4)}, {"B", std::to_string(rng() % 2)}}, fps, 10,
              rng() % 8 == 0 ? ConfigOutcome::kInfeasible : ConfigOutcome::kDone);
      c.key += "#" + std::to_string(i);
      cs.push_back(std::move(c));
    }
    const auto got = AuditInjection(cs, {"A", "B"});
    ASSERT_EQ(got.size(), 2u);
    for (const auto& v : got) {
      const InjectionVerdict want = enumerate(cs, v.param);
      ASSERT_EQ(v.pairs, want.pairs) << "sweep " << sweep << " " << v.param;
      ASSERT_EQ(v.differing_pairs, want.differing_pairs) << "sweep " << sweep << " " << v.param;
      ASSERT_EQ(v.pairs_without_fingerprint, want.pairs_without_fingerprint) << "sweep " << sweep;
      if (want.example.empty()) continue;
      const size_t bar = want.example.find('|');
      const std::string a = want.example.substr(0, bar), b = want.example.substr(bar + 1);
      ASSERT_NE(v.example.find("(" + a + " vs " + b + ")"), std::string::npos)
          << "sweep " << sweep << ": " << v.example << " wanted " << want.example;
    }
  }
}

TEST(InfeasibleRegions, GroupsByValueWholeRegionFirst) {
  std::vector<ConfigResult> cs;
  for (const char* v1 : {"true", "false"}) {
    for (const char* b : {"16", "32"}) {
      auto c = Cfg({{"use_v1", v1}, {"BLOCK", b}}, {"k"}, 10,
                   std::string(v1) == "false" ? ConfigOutcome::kInfeasible : ConfigOutcome::kDone);
      if (c.status == ConfigOutcome::kInfeasible) c.failure_class = "not_implemented";
      cs.push_back(c);
    }
  }
  auto r = InfeasibleRegions(cs, {"use_v1", "BLOCK"});
  ASSERT_EQ(r.size(), 3u);  // use_v1=false, BLOCK=16, BLOCK=32
  EXPECT_EQ(r[0].param, "use_v1");
  EXPECT_EQ(r[0].value, "false");
  EXPECT_EQ(r[0].infeasible, 2);
  EXPECT_EQ(r[0].total, 2);
  EXPECT_TRUE(r[0].whole);
  EXPECT_EQ(r[0].classes.at("not_implemented"), 2);
  EXPECT_FALSE(r[1].whole);
  EXPECT_EQ(r[1].infeasible, 1);
  EXPECT_EQ(r[1].total, 2);
}

// Log execution medians of `n` executions around `base` (relative jitter `noise`, deterministic).
std::vector<double> Execs(double base, double noise, int n = 3) {
  std::vector<double> out;
  for (int e = 0; e < n; ++e) out.push_back(std::log(base * (1 + noise * (e - (n - 1) / 2.0))));
  return out;
}

// A: strong effect (x1.3 per level); B: none (identical executions); C: x1.5.
TEST(AuditEffects, SeparatesActiveFromNoEffect) {
  std::vector<ConfigResult> cs;
  std::vector<std::vector<double>> execs;
  for (int a = 1; a <= 3; ++a) {
    for (const char* b : {"x", "y"}) {
      for (int c = 1; c <= 2; ++c) {
        const double base = 10 * (1 + 0.3 * (a - 1)) * (1 + 0.5 * (c - 1));
        cs.push_back(Cfg({{"A", std::to_string(a)}, {"B", b}, {"C", std::to_string(c)}}, {}, base));
        execs.push_back(Execs(base, 0.01));
      }
    }
  }
  std::map<std::string, InertVerdict> v;
  for (auto& x : AuditEffects(cs, execs, {"A", "B", "C"})) v[x.param] = x;
  EXPECT_EQ(v["A"].verdict, Effect::kActive);
  EXPECT_EQ(v["A"].test, "block_permutation_ranks_log_execution_medians");
  EXPECT_EQ(v["A"].blocks, 4);
  EXPECT_EQ(v["A"].observations, 36);
  EXPECT_LT(v["A"].p_value, 0.01);
  EXPECT_NEAR(v["A"].spread, 1.6 / 1.0 - 1, 1e-9);
  EXPECT_EQ(v["B"].verdict, Effect::kNoEffect);
  EXPECT_DOUBLE_EQ(v["B"].spread, 0.0);
  EXPECT_GT(v["B"].p_value, 0.5);
  EXPECT_EQ(v["C"].verdict, Effect::kActive);
}

// Parameters tested on several threads give the same verdicts, in parameter order, as one
// thread (each parameter's test has its own seed); Monte Carlo and exact tests both.
TEST(AuditEffects, ThreadsGiveTheSameVerdicts) {
  std::vector<ConfigResult> cs;
  std::vector<std::vector<double>> execs;
  for (int a = 1; a <= 4; ++a) {
    for (int b = 1; b <= 3; ++b) {
      for (int c = 1; c <= 2; ++c) {
        const double base = 10 * (1 + 0.01 * (a - 1)) * (1 + 0.4 * (c - 1));
        cs.push_back(
            Cfg({{"A", std::to_string(a)}, {"B", std::to_string(b)}, {"C", std::to_string(c)}}, {},
                base));
        execs.push_back(Execs(base, 0.02, 3 + (a + b) % 3));
      }
    }
  }
  const std::vector<std::string> params = {"A", "B", "C"};
  EffectOptions one;
  one.resamples = 700;
  const auto want = AuditEffects(cs, execs, params, one);
  for (int threads : {2, 3, 8}) {
    EffectOptions many = one;
    many.threads = threads;
    const auto got = AuditEffects(cs, execs, params, many);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got[i].param, params[i]);
      EXPECT_EQ(got[i].verdict, want[i].verdict) << params[i];
      EXPECT_EQ(got[i].p_value, want[i].p_value) << params[i];
      EXPECT_EQ(got[i].statistic, want[i].statistic) << params[i];
      EXPECT_EQ(got[i].exact, want[i].exact) << params[i];
    }
  }
  EXPECT_EQ(want[2].verdict, Effect::kActive);
}

// One block of two configurations with three executions each: 20 arrangements, the smallest
// reachable p is 0.1 > 0.05, so even a perfect separation is inconclusive, never "no effect".
TEST(AuditEffects, TooFewArrangementsAreInconclusive) {
  std::vector<ConfigResult> cs = {Cfg({{"A", "1"}}, {}, 10), Cfg({{"A", "2"}}, {}, 12)};
  auto v = AuditEffects(cs, {Execs(10, 0.001), Execs(12, 0.001)}, {"A"});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].verdict, Effect::kInconclusive);
  EXPECT_TRUE(v[0].exact);
  EXPECT_DOUBLE_EQ(v[0].min_p, 0.1);
  EXPECT_NE(v[0].note.find("too few"), std::string::npos);
  // Five executions each: 252 arrangements, p = 2/252.
  auto v5 = AuditEffects(cs, {Execs(10, 0.001, 5), Execs(12, 0.001, 5)}, {"A"});
  EXPECT_EQ(v5[0].verdict, Effect::kActive);
  EXPECT_NEAR(v5[0].p_value, 2.0 / 252, 1e-12);
}

// A 3% difference with seven executions a side, one execution of the faster level slowed 1.5x
// (a shared machine). The test ranks within blocks, so the slow execution moves one rank instead
// of the level's mean by log 1.5: exact p = 90 / 3432 (enumerated in Python over the 3432
// re-dealings). On the values themselves the same data gave p = 1: the outlier cancelled the
// difference of means.
TEST(AuditEffects, OneSlowExecutionDoesNotHideADifference) {
  std::vector<ConfigResult> cs = {Cfg({{"A", "1"}}, {}, 10), Cfg({{"A", "2"}}, {}, 10.3)};
  std::vector<double> fast = Execs(10, 0.002, 7), slow = Execs(10.3, 0.002, 7);
  fast[2] = std::log(15.0);
  auto v = AuditEffects(cs, {fast, slow}, {"A"});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_TRUE(v[0].exact);
  EXPECT_NEAR(v[0].p_value, 90.0 / 3432, 1e-12);
  EXPECT_EQ(v[0].verdict, Effect::kActive);
}

TEST(AuditEffects, LargeButNoisyDifferenceIsInconclusive) {
  std::vector<ConfigResult> cs = {Cfg({{"A", "1"}}, {}, 10), Cfg({{"A", "2"}}, {}, 11)};
  auto v = AuditEffects(cs, {Execs(10, 0.2, 5), Execs(11, 0.2, 5)}, {"A"});
  EXPECT_EQ(v[0].verdict, Effect::kInconclusive);
  EXPECT_GT(v[0].p_value, 0.05);
}

TEST(AuditEffects, NoComparablePairIsUntested) {
  std::vector<ConfigResult> cs = {Cfg({{"A", "1"}}, {}, 10)};
  auto v = AuditEffects(cs, {{std::log(10.0)}}, {"A"});
  EXPECT_EQ(v[0].verdict, Effect::kUntested);
}

// A complete grid for the re-dealing tests: parameter A at `levels` levels x `blocks` values of
// B, `executions` executions per configuration; an execution's log median is
// 0.1 b + effect x a + offset_sd x Z_configuration + 0.01 x Z_execution (Z standard normal).
struct Grid {
  std::vector<ConfigResult> configs;
  std::vector<std::vector<double>> logs;
};

Grid MakeGrid(int blocks, int levels, int executions, double effect, double offset_sd,
              uint64_t seed) {
  stats::Rng rng(seed);
  Grid g;
  for (int b = 0; b < blocks; ++b) {
    for (int a = 0; a < levels; ++a) {
      const double centre = 0.1 * b + effect * a + offset_sd * rng.StandardNormal();
      g.configs.push_back(
          Cfg({{"A", std::to_string(a)}, {"B", std::to_string(b)}}, {}, std::exp(centre)));
      g.logs.emplace_back();
      for (int e = 0; e < executions; ++e)
        g.logs.back().push_back(centre + 0.01 * rng.StandardNormal());
    }
  }
  return g;
}

// The automatic choice reads the design alone: configurations are re-dealt only with more than
// kConfigurationRedealingMinExecutions executions AND at least kConfigurationRedealingMinPerLevel
// configurations per level (blocks, in a grid); one execution or one block fewer keeps the
// execution level. A real 0.1% difference (a tenth of the execution noise) is found at the
// configuration level.
TEST(AuditEffects, RedealsConfigurationsOnlyInLargeDesigns) {
  const int blocks = static_cast<int>(kConfigurationRedealingMinPerLevel);
  const int over = kConfigurationRedealingMinExecutions / (2 * blocks) + 1;
  const Grid large = MakeGrid(blocks, 2, over, 0.001, 0, 1);
  const InertVerdict v = AuditEffects(large.configs, large.logs, {"A"})[0];
  EXPECT_EQ(v.redealing, "configurations");
  EXPECT_EQ(v.test, "block_permutation_ranks_log_execution_medians_configurations_redealt");
  EXPECT_EQ(v.units, 2 * blocks);
  EXPECT_EQ(v.observations, 2 * blocks * over);
  EXPECT_GT(v.observations, kConfigurationRedealingMinExecutions);
  EXPECT_FALSE(v.exact);
  EXPECT_EQ(v.verdict, Effect::kActive);
  EXPECT_LT(v.p_value, 0.01);

  const Grid at_limit = MakeGrid(blocks, 2, over - 1, 0.001, 0, 2);
  const InertVerdict w = AuditEffects(at_limit.configs, at_limit.logs, {"A"})[0];
  EXPECT_LE(w.observations, kConfigurationRedealingMinExecutions);
  EXPECT_EQ(w.redealing, "executions");
  EXPECT_EQ(w.test, "block_permutation_ranks_log_execution_medians");
  EXPECT_EQ(w.units, w.observations);
  EXPECT_EQ(w.verdict, Effect::kActive);

  const Grid few = MakeGrid(blocks - 1, 2, over + 5, 0.001, 0, 3);
  const InertVerdict x = AuditEffects(few.configs, few.logs, {"A"})[0];
  EXPECT_GT(x.observations, kConfigurationRedealingMinExecutions);
  EXPECT_EQ(x.redealing, "executions");
  EXPECT_EQ(x.units, x.observations);
}

// A parameter that does nothing while every configuration's executions share a random offset
// (sd = the execution noise), 300 designs of 30 blocks x 2 levels x 5 executions: re-dealing
// configurations calls it active at about the 5% level (binomial sd ~4 around 15), re-dealing
// executions far more often (the offsets look like effects of the levels).
TEST(AuditEffects, ConfigurationRedealingHoldsItsLevelWithCorrelatedExecutions) {
  EffectOptions by_configuration, by_execution;
  by_configuration.redealing = Redealing::kConfigurations;
  by_execution.redealing = Redealing::kExecutions;
  by_configuration.resamples = by_execution.resamples = 1000;
  int active_c = 0, active_e = 0;
  const int designs = 300;
  for (int t = 0; t < designs; ++t) {
    const Grid g = MakeGrid(30, 2, 5, 0, 0.01, 100 + t);
    by_configuration.seed = by_execution.seed = t;
    const InertVerdict c = AuditEffects(g.configs, g.logs, {"A"}, by_configuration)[0];
    const InertVerdict e = AuditEffects(g.configs, g.logs, {"A"}, by_execution)[0];
    ASSERT_EQ(c.redealing, "configurations");
    ASSERT_EQ(c.units, 60);
    ASSERT_EQ(e.redealing, "executions");
    active_c += c.verdict == Effect::kActive;
    active_e += e.verdict == Effect::kActive;
  }
  EXPECT_LE(active_c, 27);
  EXPECT_GE(active_c, 5) << "far below the level: the test lost its power";
  EXPECT_GE(active_e, 60) << "the execution-level test should be anti-conservative here";
}

TEST(Contradictions, NotInjectedYetActiveIsFlagged) {
  InjectionVerdict inj;
  inj.param = "B";
  inj.verdict = Injection::kNotInjected;
  inj.pairs = 4;
  InertVerdict eff;
  eff.param = "B";
  eff.verdict = Effect::kActive;
  eff.p_value = 0.01;
  auto c = FindContradictions({inj}, {eff});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].param, "B");
  EXPECT_NE(c[0].text.find("not_injected"), std::string::npos);
  eff.verdict = Effect::kNoEffect;
  EXPECT_TRUE(FindContradictions({inj}, {eff}).empty());
  eff.verdict = Effect::kActive;
  inj.verdict = Injection::kInjected;
  EXPECT_TRUE(FindContradictions({inj}, {eff}).empty());
}

}  // namespace
}  // namespace fleetsweep
