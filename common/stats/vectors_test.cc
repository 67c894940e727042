// Compares common/stats with reference values from numpy/SciPy (and the independent Python
// implementations in scripts/gen_stats_vectors.py), read from tests/data/stats/vectors.json.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/stats/packed_indices.h"
#include "common/stats/stats.h"

namespace fleetsweep::stats {
namespace {

using nlohmann::json;

const json& Vectors() {
  static const json* vectors = [] {
    // $FLEETSWEEP_SRC (set by ctest) wins; the configure-time source dir is the fallback.
    const char* src = std::getenv("FLEETSWEEP_SRC");
#ifdef FLEETSWEEP_SOURCE_DIR
    const std::string root = src != nullptr ? src : FLEETSWEEP_SOURCE_DIR;
#else
    const std::string root = src != nullptr ? src : ".";
#endif
    const std::string path = root + "/tests/data/stats/vectors.json";
    std::ifstream in(path);
    if (!in) {
      ADD_FAILURE() << "cannot open " << path << " (set FLEETSWEEP_SRC to the repository root)";
      return new json(json::object());
    }
    return new json(json::parse(in));
  }();
  return *vectors;
}

std::vector<double> Doubles(const json& j) { return j.get<std::vector<double>>(); }

// NaN cells are stored as null.
std::vector<std::vector<double>> Table(const json& j) {
  std::vector<std::vector<double>> t;
  for (const auto& row : j) {
    std::vector<double> r;
    for (const auto& v : row) {
      r.push_back(v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>());
    }
    t.push_back(r);
  }
  return t;
}

// |actual - expected| <= rel * |expected| + abs.
::testing::AssertionResult Close(double actual, double expected, double rel, double abs = 0) {
  if (std::isnan(expected) && std::isnan(actual)) return ::testing::AssertionSuccess();
  if (actual == expected) return ::testing::AssertionSuccess();
  const double err = std::fabs(actual - expected);
  if (err <= rel * std::fabs(expected) + abs) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "actual " << actual << " expected " << expected
                                       << " (rel err " << err / std::fabs(expected) << ")";
}

constexpr double kExact = 1e-12;  // quantities computed by the same arithmetic as numpy
constexpr double kPValue = 1e-9;

TEST(StatsVectors, FileLoaded) {
  ASSERT_TRUE(Vectors().contains("descriptive"));
  EXPECT_GE(Vectors()["descriptive"].size(), 10u);
}

TEST(StatsVectors, RngMatchesPythonTranscription) {
  for (const auto& c : Vectors()["rng"]) {
    Rng rng(c["seed"].get<uint64_t>());
    for (const auto& v : c["u64"]) EXPECT_EQ(rng.Next(), v.get<uint64_t>());
    Rng idx_rng(c["seed"].get<uint64_t>());
    const auto ns = c["index_n"].get<std::vector<uint32_t>>();
    const auto want = c["index"].get<std::vector<uint32_t>>();
    for (size_t i = 0; i < ns.size(); ++i) EXPECT_EQ(idx_rng.UniformIndex(ns[i]), want[i]);
  }
}

// Packed draws (packed_indices.h): Python decodes each group's U by divmod, C++ by successive
// multiplication; the sequences run one after another on one stream.
TEST(StatsVectors, PackedIndicesMatchPythonTranscription) {
  ASSERT_GE(Vectors()["rng"].size(), 4u);
  for (const auto& c : Vectors()["rng"]) {
    Rng rng(c["seed"].get<uint64_t>());
    const auto& cases = c["packed_ranges"];
    ASSERT_EQ(cases.size(), c["packed"].size());
    ASSERT_GE(cases.size(), 4u);
    for (size_t k = 0; k < cases.size(); ++k) {
      const auto ranges = cases[k].get<std::vector<uint32_t>>();
      const auto want = c["packed"][k].get<std::vector<uint32_t>>();
      std::vector<uint32_t> got(ranges.size());
      DrawPackedInto(PlanPacked(ranges), &rng, got.data());
      EXPECT_EQ(got, want) << "seed " << c["seed"] << " case " << k;
    }
  }
}

TEST(StatsVectors, Descriptive) {
  for (const auto& c : Vectors()["descriptive"]) {
    const std::vector<double> x = Doubles(c["x"]);
    SCOPED_TRACE("n=" + std::to_string(x.size()));
    EXPECT_TRUE(Close(*Median(x), c["median"].get<double>(), kExact));
    const auto qs = Doubles(c["q"]);
    const auto want = Doubles(c["quantile"]);
    for (size_t i = 0; i < qs.size(); ++i) {
      EXPECT_TRUE(Close(*Quantile(x, qs[i]), want[i], kExact)) << "q=" << qs[i];
    }
    EXPECT_TRUE(Close(*Mad(x), c["mad"].get<double>(), kExact));
    EXPECT_TRUE(Close(*Mad(x, /*scaled=*/true), c["mad_normal"].get<double>(), kExact));
    EXPECT_TRUE(Close(*Mean(x), c["mean"].get<double>(), 1e-12));
    EXPECT_TRUE(Close(*StdDev(x, 0), c["std_ddof0"].get<double>(), 1e-10, 1e-12));
    if (!c["std_ddof1"].is_null()) {
      EXPECT_TRUE(Close(*StdDev(x, 1), c["std_ddof1"].get<double>(), 1e-10, 1e-12));
    }
    const Summary s = *Summarize(x);
    EXPECT_EQ(s.median, *Median(x));
    EXPECT_EQ(s.mad, *Mad(x));
    EXPECT_EQ(s.mad_normal, *Mad(x, true));
  }
}

TEST(StatsVectors, MannWhitney) {
  for (const auto& c : Vectors()["mannwhitneyu"]) {
    const auto r = MannWhitneyU(Doubles(c["x"]), Doubles(c["y"]));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(Close(r->u, c["u"].get<double>(), kExact));
    EXPECT_TRUE(Close(r->p_value, c["p"].get<double>(), kPValue));
  }
}

TEST(StatsVectors, KruskalWallis) {
  for (const auto& c : Vectors()["kruskal"]) {
    std::vector<std::vector<double>> groups;
    for (const auto& g : c["groups"]) groups.push_back(Doubles(g));
    const auto r = KruskalWallis(groups);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(Close(r->h, c["h"].get<double>(), 1e-11));
    EXPECT_EQ(r->df, c["df"].get<int>());
    EXPECT_TRUE(Close(r->p_value, c["p"].get<double>(), kPValue));
    EXPECT_TRUE(Close(r->epsilon_squared, c["epsilon_squared"].get<double>(), 1e-11));
  }
}

TEST(StatsVectors, NormalFunctions) {
  for (const auto& c : Vectors()["norm_ppf"]) {
    const double p = c["p"].get<double>();
    EXPECT_TRUE(Close(NormalQuantile(p), c["x"].get<double>(), 1e-13, 1e-15)) << "p=" << p;
  }
  for (const auto& c : Vectors()["norm_cdf"]) {
    const double x = c["x"].get<double>();
    // Far tails: SciPy flushes Phi(-38) = 2.9e-316 (subnormal) to 0 and its erfc differs from
    // libm's by ~2e-13 relative near 1e-300; both are inside this tolerance.
    EXPECT_TRUE(Close(NormalCdf(x), c["cdf"].get<double>(), 1e-12, 1e-300)) << "x=" << x;
    EXPECT_TRUE(Close(NormalSf(x), c["sf"].get<double>(), 1e-12, 1e-300)) << "x=" << x;
  }
}

TEST(StatsVectors, IncompleteGammaAndChiSquare) {
  for (const auto& c : Vectors()["gamma"]) {
    const double a = c["a"].get<double>(), x = c["x"].get<double>();
    EXPECT_TRUE(Close(RegularizedGammaP(a, x), c["p"].get<double>(), 1e-11, 1e-300))
        << "a=" << a << " x=" << x;
    EXPECT_TRUE(Close(RegularizedGammaQ(a, x), c["q"].get<double>(), 1e-11, 1e-300))
        << "a=" << a << " x=" << x;
  }
  for (const auto& c : Vectors()["chi2_sf"]) {
    const double x = c["x"].get<double>(), df = c["df"].get<double>();
    EXPECT_TRUE(Close(ChiSquareSf(x, df), c["sf"].get<double>(), 1e-11, 1e-300))
        << "x=" << x << " df=" << df;
  }
}

TEST(StatsVectors, MedianPolish) {
  for (const auto& c : Vectors()["median_polish"]) {
    MedianPolishOptions opt;
    opt.tol = c["tol"].get<double>();
    opt.max_iter = c["max_iter"].get<int>();
    const auto r = MedianPolish(Table(c["table"]), opt);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(Close(r->overall, c["overall"].get<double>(), 1e-12, 1e-12));
    const auto rows = Doubles(c["row"]), cols = Doubles(c["col"]);
    ASSERT_EQ(r->row_effects.size(), rows.size());
    ASSERT_EQ(r->col_effects.size(), cols.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_TRUE(Close(r->row_effects[i], rows[i], 1e-12, 1e-12));
    }
    for (size_t i = 0; i < cols.size(); ++i) {
      EXPECT_TRUE(Close(r->col_effects[i], cols[i], 1e-12, 1e-12));
    }
    const auto resid = Table(c["residuals"]);
    for (size_t i = 0; i < resid.size(); ++i) {
      for (size_t j = 0; j < resid[i].size(); ++j) {
        EXPECT_TRUE(Close(r->residuals[i][j], resid[i][j], 1e-12, 1e-12)) << i << "," << j;
      }
    }
    EXPECT_EQ(r->iterations, c["iterations"].get<int>());
    EXPECT_EQ(r->converged, c["converged"].get<bool>());
  }
}

TEST(StatsVectors, HodgesLehmann) {
  for (const auto& c : Vectors()["hodges_lehmann"]) {
    const auto r =
        HodgesLehmannShift(Doubles(c["x"]), Doubles(c["y"]), c["confidence"].get<double>());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(Close(r->estimate, c["estimate"].get<double>(), kExact));
    EXPECT_EQ(r->ci.low, c["low"].get<double>());
    EXPECT_EQ(r->ci.high, c["high"].get<double>());
    EXPECT_TRUE(Close(r->achieved_confidence, c["achieved_confidence"].get<double>(), 1e-9));
    EXPECT_EQ(r->exact, c["exact"].get<bool>());
  }
}

TEST(StatsVectors, MannWhitneyExact) {
  ASSERT_GE(Vectors()["mannwhitneyu_exact"].size(), 4u);
  for (const auto& c : Vectors()["mannwhitneyu_exact"]) {
    const auto p = MannWhitneyExactP(Doubles(c["x"]), Doubles(c["y"]));
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_TRUE(Close(*p, c["p"].get<double>(), kPValue)) << c["method"];
  }
}

TEST(StatsVectors, TTests) {
  const json& v = Vectors()["t_tests"];
  ASSERT_GE(v["cases"].size(), 5u);
  for (const auto& c : v["cases"]) {
    const auto x = Doubles(c["x"]), y = Doubles(c["y"]);
    const auto w = WelchTTest(x, y);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    EXPECT_TRUE(Close(w->t, c["welch_t"].get<double>(), 1e-11));
    EXPECT_TRUE(Close(w->p_value, c["welch_p"].get<double>(), kPValue));
    double df = 0;
    const double var = PooledVariance({x, y}, &df);
    EXPECT_TRUE(Close(var, c["pooled_var"].get<double>(), 1e-11));
    EXPECT_EQ(df, c["pooled_df"].get<double>());
    const auto p = PooledVarianceT(x, y, var, df);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_TRUE(Close(p->t, c["pooled_t"].get<double>(), 1e-11));
    EXPECT_TRUE(Close(p->p_value, c["pooled_p"].get<double>(), kPValue));
  }
  for (const auto& c : v["t_sf"]) {
    EXPECT_TRUE(Close(StudentTSf(c["t"].get<double>(), c["df"].get<double>()),
                      c["sf"].get<double>(), kPValue))
        << "t " << c["t"] << " df " << c["df"];
  }
  for (const auto& c : v["betainc"]) {
    EXPECT_TRUE(Close(
        RegularizedIncompleteBeta(c["a"].get<double>(), c["b"].get<double>(), c["x"].get<double>()),
        c["i"].get<double>(), 1e-11, 1e-300))
        << "a " << c["a"] << " b " << c["b"] << " x " << c["x"];
  }
}

TEST(StatsVectors, HierarchicalBootstrapReplaysPythonStream) {
  ASSERT_GE(Vectors()["hierarchical_bootstrap"].size(), 3u);
  for (const auto& c : Vectors()["hierarchical_bootstrap"]) {
    const auto execs = c["executions"].get<std::vector<std::vector<double>>>();
    const int resamples = c["resamples"].get<int>();
    const uint64_t seed = c["seed"].get<uint64_t>();
    const auto meds = HierarchicalBootstrapMedians(execs, resamples, seed);
    ASSERT_TRUE(meds.ok()) << meds.status().ToString();
    const auto first = Doubles(c["first_medians"]);
    for (size_t i = 0; i < first.size(); ++i) EXPECT_TRUE(Close((*meds)[i], first[i], kExact));
    const auto ci =
        HierarchicalBootstrapMedianCI(execs, c["confidence"].get<double>(), resamples, seed);
    ASSERT_TRUE(ci.ok()) << ci.status().ToString();
    EXPECT_TRUE(Close(ci->low, c["low"].get<double>(), kExact));
    EXPECT_TRUE(Close(ci->high, c["high"].get<double>(), kExact));
  }
}

TEST(StatsVectors, BlockPermutationMatchesEnumeration) {
  ASSERT_GE(Vectors()["block_permutation"].size(), 4u);
  for (const auto& c : Vectors()["block_permutation"]) {
    std::vector<std::vector<std::pair<int, double>>> blocks;
    for (const auto& b : c["blocks"]) {
      std::vector<std::pair<int, double>> blk;
      for (const auto& o : b) blk.emplace_back(o[0].get<int>(), o[1].get<double>());
      blocks.push_back(blk);
    }
    const auto r = BlockPermutationTest(blocks, c["levels"].get<int>(), c["resamples"].get<int>(),
                                        c["seed"].get<uint64_t>(), c["exact_limit"].get<double>());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(Close(r->statistic, c["statistic"].get<double>(), 1e-11));
    EXPECT_TRUE(Close(r->p_value, c["p"].get<double>(), kExact));
    EXPECT_TRUE(Close(r->min_p, c["min_p"].get<double>(), kExact));
    EXPECT_EQ(r->exact, c["exact"].get<bool>());
    EXPECT_TRUE(Close(r->arrangements, c["arrangements"].get<double>(), 1e-9));
  }
}

}  // namespace
}  // namespace fleetsweep::stats
