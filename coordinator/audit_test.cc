#include "coordinator/audit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace fleetsweep {
namespace {

ConfigResult Cfg(std::map<std::string, std::string> params, std::set<std::string> fps,
                 double median = 10, const std::string& status = "done") {
  ConfigResult c;
  c.params = std::move(params);
  for (const auto& [k, v] : c.params) c.key += k + v;
  c.status = status;
  c.ok_attempts = status == "done" ? 3 : 0;
  c.fingerprints = std::move(fps);
  if (status == "done") {
    c.primary.n = 5;
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
  EXPECT_EQ(v["A"].verdict, "not_injected");
  EXPECT_EQ(v["A"].pairs, 3);  // 3 blocks (B fixed) of one pair each
  EXPECT_EQ(v["B"].verdict, "not_injected");
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
  EXPECT_EQ(v["A"].verdict, "injected");
  EXPECT_EQ(v["A"].differing_pairs, 2);
  EXPECT_EQ(v["B"].verdict, "not_injected");
  EXPECT_EQ(InjectionInvalidReason(all), "");
}

TEST(AuditInjection, MissingFingerprintsAreNeverASilentPass) {
  std::vector<ConfigResult> cs = {Cfg({{"A", "1"}}, {}), Cfg({{"A", "2"}}, {"k2"})};
  auto all = AuditInjection(cs, {"A"});
  EXPECT_EQ(all[0].verdict, "no_fingerprint");
  EXPECT_EQ(all[0].pairs_without_fingerprint, 1);
  EXPECT_EQ(InjectionInvalidReason(all), "");  // nothing was compared: not invalid, but warned
}

TEST(AuditInjection, InfeasiblePartnersLeaveAParameterUntested) {
  std::vector<ConfigResult> cs = {Cfg({{"A", "1"}}, {"k"}), Cfg({{"A", "2"}}, {}, 0, "infeasible")};
  EXPECT_EQ(AuditInjection(cs, {"A"})[0].verdict, "untested");
}

TEST(InfeasibleRegions, GroupsByValueWholeRegionFirst) {
  std::vector<ConfigResult> cs;
  for (const char* v1 : {"true", "false"}) {
    for (const char* b : {"16", "32"}) {
      auto c = Cfg({{"use_v1", v1}, {"BLOCK", b}}, {"k"}, 10,
                   std::string(v1) == "false" ? "infeasible" : "done");
      if (c.status == "infeasible") c.failure_class = "not_implemented";
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

// A: strong effect (x1.3 per level); B: none (identical samples); 4 blocks per A level.
TEST(AuditInert, SeparatesActiveFromInert) {
  std::vector<ConfigResult> cs;
  std::vector<std::vector<double>> samples;
  for (int a = 1; a <= 3; ++a) {
    for (const char* b : {"x", "y"}) {
      for (int c = 1; c <= 2; ++c) {
        const double base = 10 * (1 + 0.3 * (a - 1)) * (1 + 0.5 * (c - 1));
        cs.push_back(Cfg({{"A", std::to_string(a)}, {"B", b}, {"C", std::to_string(c)}}, {}, base));
        samples.push_back({base * 0.99, base, base * 1.01});
      }
    }
  }
  std::map<std::string, InertVerdict> v;
  for (auto& x : AuditInert(cs, samples, {"A", "B", "C"})) v[x.param] = x;
  EXPECT_EQ(v["A"].verdict, "active");
  EXPECT_EQ(v["A"].test, "kruskal_wallis_block_normalized_medians");
  EXPECT_EQ(v["A"].blocks, 4);
  EXPECT_LT(v["A"].p_value, 0.01);
  EXPECT_NEAR(v["A"].spread, 1.6 / 1.0 - 1, 1e-9);
  EXPECT_EQ(v["B"].verdict, "inert");
  EXPECT_DOUBLE_EQ(v["B"].p_value, 1.0);
  EXPECT_DOUBLE_EQ(v["B"].spread, 0.0);
  EXPECT_EQ(v["C"].verdict, "active");
}

TEST(AuditInert, SingleBlockFallsBackToSamples) {
  std::vector<ConfigResult> cs = {Cfg({{"A", "1"}}, {}, 10), Cfg({{"A", "2"}}, {}, 12)};
  std::vector<std::vector<double>> samples = {{9.9, 10, 10.1, 10.05, 9.95},
                                              {11.9, 12, 12.1, 12.05, 11.95}};
  auto v = AuditInert(cs, samples, {"A"});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].test, "kruskal_wallis_block_normalized_samples");
  EXPECT_EQ(v[0].verdict, "active");
  EXPECT_EQ(v[0].observations, 10);
}

TEST(AuditInert, LargeButNoisyDifferenceIsInconclusive) {
  std::vector<ConfigResult> cs = {Cfg({{"A", "1"}}, {}, 10), Cfg({{"A", "2"}}, {}, 11)};
  std::vector<std::vector<double>> samples = {{5, 10, 15}, {6, 11, 16}};
  auto v = AuditInert(cs, samples, {"A"});
  EXPECT_EQ(v[0].verdict, "inconclusive");
  EXPECT_GT(v[0].p_value, 0.05);
}

TEST(AuditInert, NoComparablePairIsUntested) {
  std::vector<ConfigResult> cs = {Cfg({{"A", "1"}}, {}, 10)};
  auto v = AuditInert(cs, {{10}}, {"A"});
  EXPECT_EQ(v[0].verdict, "untested");
}

}  // namespace
}  // namespace fleetsweep
