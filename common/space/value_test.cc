#include "common/space/value.h"

#include <gtest/gtest.h>

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
