// Randomized robustness test of the constraint language: random bytes and random token sequences
// must parse or fail cleanly, and evaluate or fail cleanly, never crash. Deterministic seeds so a
// failure reproduces. (The libFuzzer target can call FuzzOneExpr below.)
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/space/expr.h"

namespace fleetsweep {

// Parses `text` and, when it parses, evaluates it on a fixed configuration. Returns true when it
// parsed. Never crashes (that is the property under test).
bool FuzzOneExpr(const std::string& text) {
  static const Config kConfig = {{"a", Value(3)},      {"b", Value(0)},
                                 {"c", Value(2.5)},    {"d", Value(true)},
                                 {"s", Value("fp16")}, {"big", Value(int64_t{1} << 62)}};
  int column = 0;
  auto expr = Expr::Parse(text, &column);
  if (!expr.ok()) {
    EXPECT_GE(column, 1);
    EXPECT_LE(column, static_cast<int>(text.size()) + 1);
    EXPECT_EQ(expr.status().code(), StatusCode::kInvalidArgument);
    return false;
  }
  auto v = (*expr)->Eval(kConfig);
  if (!v.ok()) {
    EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
  }
  return true;
}

namespace {

TEST(ExprFuzzTest, RandomBytesNeverCrash) {
  std::mt19937_64 rng(12345);
  for (int i = 0; i < 20000; ++i) {
    std::string text(rng() % 40, '\0');
    for (char& ch : text) ch = static_cast<char>(rng() % 256);
    FuzzOneExpr(text);
  }
}

TEST(ExprFuzzTest, RandomTokenSequencesNeverCrash) {
  static const std::vector<std::string> kTokens = {"a",
                                                   "b",
                                                   "c",
                                                   "d",
                                                   "s",
                                                   "big",
                                                   "x",
                                                   "0",
                                                   "1",
                                                   "-1",
                                                   "2.5",
                                                   "1e308",
                                                   "9223372036854775807",
                                                   "'q'",
                                                   "\"fp16\"",
                                                   "true",
                                                   "false",
                                                   "+",
                                                   "-",
                                                   "*",
                                                   "/",
                                                   "%",
                                                   "==",
                                                   "!=",
                                                   "<",
                                                   "<=",
                                                   ">",
                                                   ">=",
                                                   "and",
                                                   "or",
                                                   "not",
                                                   "&&",
                                                   "||",
                                                   "!",
                                                   "in",
                                                   "[",
                                                   "]",
                                                   ",",
                                                   "(",
                                                   ")",
                                                   "min",
                                                   "max",
                                                   "not in"};
  std::mt19937_64 rng(777);
  int parsed = 0;
  for (int i = 0; i < 50000; ++i) {
    std::string text;
    size_t n = 1 + rng() % 12;
    for (size_t k = 0; k < n; ++k) text += kTokens[rng() % kTokens.size()] + " ";
    if (FuzzOneExpr(text)) ++parsed;
  }
  // The generator must reach the evaluator, not only the parser's error paths.
  EXPECT_GT(parsed, 500);
}

TEST(ExprFuzzTest, MutatedValidExpressionsNeverCrash) {
  const std::string base =
      "a % 3 == 0 and (c > 1.5 or d) and s in ['fp16', 'bf16'] and min(a, b) >= 0";
  ASSERT_TRUE(FuzzOneExpr(base));
  std::mt19937_64 rng(99);
  for (int i = 0; i < 20000; ++i) {
    std::string text = base;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % (text.size() + 1);
      switch (rng() % 3) {
        case 0:
          text.insert(at, 1, "()[],'\"!=<>+-*/%. 0a"[rng() % 21]);
          break;
        case 1:
          if (at < text.size()) text.erase(at, 1);
          break;
        default:
          if (at < text.size()) text[at] = static_cast<char>(rng() % 128);
          break;
      }
    }
    FuzzOneExpr(text);
  }
}

}  // namespace
}  // namespace fleetsweep
