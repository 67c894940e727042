#include "common/space/value.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace fleetsweep {
namespace {

TEST(ValueTest, FromTextTypes) {
  EXPECT_EQ(Value::FromText("64").type(), Value::Type::kInt);
  EXPECT_EQ(Value::FromText("-3").as_int(), -3);
  EXPECT_EQ(Value::FromText("1.5").type(), Value::Type::kDouble);
  EXPECT_EQ(Value::FromText("64.0").type(), Value::Type::kInt);  // integral doubles become ints
  EXPECT_EQ(Value::FromText("true"), Value(true));
  EXPECT_EQ(Value::FromText("False"), Value(false));
  EXPECT_EQ(Value::FromText("fp16").type(), Value::Type::kString);
  EXPECT_EQ(Value::FromText("nan").type(), Value::Type::kString);
  EXPECT_EQ(Value::FromText("0x10").type(), Value::Type::kString);
  EXPECT_EQ(Value::FromText("").type(), Value::Type::kString);
}

TEST(ValueTest, EqualityAndOrder) {
  EXPECT_EQ(Value(64), Value(64.0));
  EXPECT_NE(Value(1), Value(true));
  EXPECT_NE(Value("1"), Value(1));
  EXPECT_LT(Value(2), Value(2.5));
  EXPECT_LT(Value("a"), Value("b"));
  EXPECT_FALSE(Value(3) < Value(3.0));
}

TEST(ValueTest, ToStringRoundTrips) {
  EXPECT_EQ(Value(0.1).ToString(), "0.1");
  EXPECT_EQ(Value(1.0 / 3).ToString(), "0.3333333333333333");
  EXPECT_EQ(Value(int64_t{1} << 40).ToString(), "1099511627776");
  EXPECT_EQ(Value(false).ToString(), "false");
}

// The text keys are made of: the fewest %g digits (6 to 17) that read back as the value. The
// search that starts at the shortest round-trip digit count gives the same text as trying every
// precision from 6, on values of every magnitude, random bit patterns and the edge cases.
std::string EveryPrecisionFrom6(double d) {
  char buf[64];
  for (int prec = 6; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  return buf;
}

TEST(ValueTest, DoubleTextIsTheFewestDigitsThatReadBack) {
  std::vector<double> xs = {0.1,
                            1.0 / 3,
                            2.5,
                            1e-300,
                            5e-324,
                            1.7976931348623157e308,
                            1e21,
                            1e22,
                            0.3,
                            123456.7,
                            9.0e15 + 0.5,
                            -0.000123456789,
                            1e-5,
                            4.35,
                            2.0 / 3,
                            std::nextafter(1.0, 2.0),
                            -2.2250738585072014e-308};
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int i = 0; i < 20000; ++i) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (std::isfinite(d)) xs.push_back(d);
    xs.push_back(unit(rng) * std::pow(10.0, static_cast<int>(rng() % 40) - 20));
    xs.push_back(std::round(unit(rng) * 1e6) / 1e3);  // few digits: the 6-digit floor
  }
  int doubles = 0;
  for (double d : xs) {
    const Value v(d);
    if (v.type() != Value::Type::kDouble) continue;
    ++doubles;
    ASSERT_EQ(v.ToString(), EveryPrecisionFrom6(d)) << d;
  }
  EXPECT_GT(doubles, 50000);
  EXPECT_EQ(Value(std::nan("")).ToString(), EveryPrecisionFrom6(std::nan("")));
  EXPECT_EQ(Value(-INFINITY).ToString(), "-inf");
}

TEST(ValueTest, CanonicalKeyAndHashAreStable) {
  Config c = {{"b", 2}, {"a", Value("x;y=z")}};
  EXPECT_EQ(CanonicalKey(c), "a=x\\;y\\=z;b=2");
  // Pinned by value: changing the key or hash format breaks stored results.
  EXPECT_EQ(ConfigHash({{"BM", 16}}), Hex16(Fnv1a64("BM=16")));
  EXPECT_EQ(Hex16(Fnv1a64("")), "cbf29ce484222325");
  EXPECT_EQ(Hex16(Fnv1a64("a")), "af63dc4c8601ec8c");
  // Distinct configurations that would collide without escaping.
  EXPECT_NE(CanonicalKey({{"a", Value("1;b=2")}}), CanonicalKey({{"a", 1}, {"b", 2}}));
  EXPECT_EQ(ConfigToString({{"a", 1}, {"b", true}}), "a=1 b=true");
}

}  // namespace
}  // namespace fleetsweep
