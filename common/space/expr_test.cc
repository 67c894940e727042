#include "common/space/expr.h"

#include <gtest/gtest.h>

#include <string>

namespace fleetsweep {
namespace {

StatusOr<Value> EvalText(const std::string& text, const Config& config = {}) {
  auto expr = Expr::Parse(text);
  if (!expr.ok()) return expr.status();
  return (*expr)->Eval(config);
}

Value MustEval(const std::string& text, const Config& config = {}) {
  auto v = EvalText(text, config);
  EXPECT_TRUE(v.ok()) << text << ": " << v.status().ToString();
  return v.ok() ? *v : Value(std::string("<error>"));
}

std::string EvalError(const std::string& text, const Config& config = {}) {
  auto v = EvalText(text, config);
  EXPECT_FALSE(v.ok()) << text << " unexpectedly gave " << (v.ok() ? v->ToString() : "");
  return v.ok() ? "" : v.status().message();
}

std::string ParseError(const std::string& text, int* column) {
  auto e = Expr::Parse(text, column);
  EXPECT_FALSE(e.ok()) << "'" << text << "' parsed";
  return e.ok() ? "" : e.status().message();
}

TEST(ExprTest, ArithmeticAndPrecedence) {
  EXPECT_EQ(MustEval("1 + 2 * 3"), Value(7));
  EXPECT_EQ(MustEval("(1 + 2) * 3"), Value(9));
  EXPECT_EQ(MustEval("10 - 4 - 3"), Value(3));  // left associative
  EXPECT_EQ(MustEval("-2 * -3"), Value(6));
  EXPECT_EQ(MustEval("7 / 2"), Value(3.5));  // true division
  EXPECT_EQ(MustEval("8 / 2").type(), Value::Type::kInt);
  EXPECT_EQ(MustEval("7 % 3"), Value(1));
  EXPECT_EQ(MustEval("-7 % 3"), Value(2));  // sign of the divisor
  EXPECT_EQ(MustEval("1.5 + 1"), Value(2.5));
  EXPECT_EQ(MustEval("2e3"), Value(2000));
  EXPECT_EQ(MustEval(".5 * 4"), Value(2));
}

TEST(ExprTest, ComparisonsAndLogic) {
  EXPECT_EQ(MustEval("1 < 2 and 2 <= 2 and 3 > 2 and 3 >= 3"), Value(true));
  EXPECT_EQ(MustEval("1 == 1.0"), Value(true));
  EXPECT_EQ(MustEval("'a' != \"b\""), Value(true));
  EXPECT_EQ(MustEval("'abc' < 'abd'"), Value(true));
  EXPECT_EQ(MustEval("not true or false"), Value(false));
  EXPECT_EQ(MustEval("!(1 > 2) && (true || false)"), Value(true));
  EXPECT_EQ(MustEval("true == True"), Value(true));
  // Short-circuit: the right side would fail.
  EXPECT_EQ(MustEval("false and 1 / 0 > 1"), Value(false));
  EXPECT_EQ(MustEval("true or 1 % 0 == 1"), Value(true));
}

TEST(ExprTest, MembershipAndFunctions) {
  Config c = {{"x", Value(4)}, {"s", Value("fp16")}};
  EXPECT_EQ(MustEval("x in [1, 2, 4]", c), Value(true));
  EXPECT_EQ(MustEval("x not in [1, 2, 4]", c), Value(false));
  EXPECT_EQ(MustEval("s in ['fp16', 'bf16']", c), Value(true));
  EXPECT_EQ(MustEval("x in ['4']", c), Value(false));  // a string is not a number
  EXPECT_EQ(MustEval("x in []", c), Value(false));
  EXPECT_EQ(MustEval("x in [1, 2, 4,]", c), Value(true));
  EXPECT_EQ(MustEval("min(x, 3, 9)", c), Value(3));
  EXPECT_EQ(MustEval("max(x, 2.5)", c), Value(4));
}

TEST(ExprTest, IdentifiersInOrderOfFirstUse) {
  auto e = Expr::Parse("BM % BN == 0 and BM >= max(BK, 16)");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->Identifiers(), (std::vector<std::string>{"BM", "BN", "BK"}));
  EXPECT_EQ((*e)->text(), "BM % BN == 0 and BM >= max(BK, 16)");
}

TEST(ExprTest, EvalSlotsMatchesEval) {
  auto e = Expr::Parse("a * b > 100 or c");
  ASSERT_TRUE(e.ok());
  Value a(20), b(6), c(false);
  const Value* slots[] = {&a, &b, &c};
  auto fast = (*e)->EvalBool(slots);
  ASSERT_TRUE(fast.ok());
  EXPECT_TRUE(*fast);
  b = Value(5);
  EXPECT_FALSE(*(*e)->EvalBool(slots));
  EXPECT_EQ(*(*e)->Eval({{"a", a}, {"b", b}, {"c", c}}), Value(false));
}

TEST(ExprTest, EvaluationErrors) {
  EXPECT_EQ(EvalError("1 / 0"), "division by zero");
  EXPECT_EQ(EvalError("5 % 0"), "modulo by zero");
  EXPECT_NE(EvalError("5.5 % 2").find("'%' needs integers"), std::string::npos);
  EXPECT_NE(EvalError("9223372036854775807 + 1").find("integer overflow"), std::string::npos);
  EXPECT_NE(EvalError("-(-9223372036854775807 - 1)").find("overflow"), std::string::npos);
  EXPECT_NE(EvalError("1 < 'a'").find("cannot compare int 1 with string 'a'"), std::string::npos);
  EXPECT_NE(EvalError("1 and true").find("'and' needs booleans"), std::string::npos);
  EXPECT_NE(EvalError("true < false").find("cannot apply '<'"), std::string::npos);
  EXPECT_NE(EvalError("-'a'").find("unary -"), std::string::npos);
  EXPECT_EQ(EvalError("x > 1"), "no value for parameter 'x'");
  auto e = Expr::Parse("1 + 1");
  Value dummy;
  const Value* none[] = {&dummy};
  EXPECT_NE((*e)->EvalBool(none).status().message().find("expected a boolean"), std::string::npos);
  // INT64_MIN % -1 is undefined behaviour in C++; here it is 0.
  EXPECT_EQ(MustEval("(-9223372036854775807 - 1) % -1"), Value(0));
}

TEST(ExprTest, ParseErrorsGiveColumns) {
  int col = 0;
  EXPECT_EQ(ParseError("BM % BN = 0", &col), "column 9: unexpected '='; use '==' to compare");
  EXPECT_EQ(col, 9);
  EXPECT_EQ(ParseError("BM >= (16", &col), "column 10: expected ')', found end of expression");
  EXPECT_EQ(col, 10);
  EXPECT_NE(ParseError("a < b < c", &col).find("cannot be chained"), std::string::npos);
  EXPECT_EQ(col, 7);
  EXPECT_NE(ParseError("'abc", &col).find("unterminated string"), std::string::npos);
  EXPECT_EQ(col, 1);
  EXPECT_NE(ParseError("foo(1)", &col).find("unknown function 'foo'"), std::string::npos);
  EXPECT_NE(ParseError("", &col).find("empty expression"), std::string::npos);
  EXPECT_NE(ParseError("1 2", &col).find("expected an operator"), std::string::npos);
  EXPECT_EQ(col, 3);
  EXPECT_NE(ParseError("x in 1", &col).find("expected '['"), std::string::npos);
  EXPECT_NE(ParseError("12abc", &col).find("malformed number"), std::string::npos);
  EXPECT_NE(ParseError("99999999999999999999", &col).find("out of range"), std::string::npos);
  EXPECT_NE(ParseError("a & b", &col).find("'and'"), std::string::npos);
  EXPECT_NE(ParseError("min()", &col).find("at least one argument"), std::string::npos);
  EXPECT_NE(ParseError("x @ 2", &col).find("unexpected character '@'"), std::string::npos);
  EXPECT_EQ(col, 3);
}

TEST(ExprTest, DeepNestingIsAnErrorNotACrash) {
  int col = 0;
  EXPECT_NE(
      ParseError(std::string(5000, '(') + "1" + std::string(5000, ')'), &col).find("too deeply"),
      std::string::npos);
  EXPECT_NE(ParseError(std::string(10000, '-') + "1", &col).find("too deeply"), std::string::npos);
  std::string chain = "1";
  for (int i = 0; i < 3000; ++i) chain += " + 1";
  EXPECT_NE(ParseError(chain, &col).find("too deeply"), std::string::npos);
  std::string nots;
  for (int i = 0; i < 3000; ++i) nots += "not ";
  EXPECT_NE(ParseError(nots + "true", &col).find("too deeply"), std::string::npos);
  EXPECT_NE(ParseError(std::string(100000, '('), &col).find("longer than"), std::string::npos);
  // Within the limit, it works.
  std::string ok = "1";
  for (int i = 0; i < 40; ++i) ok += " + 1";
  EXPECT_EQ(MustEval(ok), Value(41));
}

}  // namespace
}  // namespace fleetsweep
