// Expr: the small constraint language of sweep specs (docs/spec.md, "Constraints").
//
//   literals     12  -3  1.5  2e3  true  false  'text'  "text"
//   identifiers  parameter names ([A-Za-z_][A-Za-z0-9_]*)
//   arithmetic   + - * /  %  unary -      (% on integers only; / is true division)
//   comparison   == != < <= > >=          (not chained: write `a < b and b < c`)
//   logic        and or not  (also && || !), short-circuit, operands must be booleans
//   membership   x in [1, 2, 4]   x not in ['a', 'b']
//   functions    min(a, b, ...)  max(a, b, ...)
//   grouping     ( ... )
//
// An expression is parsed once into an immutable AST (a flat node array) and evaluated many
// times. Parse and Eval never throw and never crash on any input: nesting deeper than
// kMaxDepth and text longer than kMaxTextLength are parse errors; division or modulo by zero,
// integer overflow and type mismatches are evaluation errors (kInvalidArgument).
//
// Thread-safety: an Expr is immutable after Parse; Eval may be called from any number of threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/space/value.h"
#include "common/status.h"

namespace fleetsweep {

class Expr {
 public:
  static constexpr int kMaxDepth = 64;
  static constexpr size_t kMaxTextLength = 16 * 1024;

  // Parses `text`. On error returns kInvalidArgument whose message is "column C: what is wrong"
  // (C is 1-based within `text`) and, when `error_column` is non-null, stores C there.
  static StatusOr<std::shared_ptr<const Expr>> Parse(const std::string& text,
                                                     int* error_column = nullptr);

  // Evaluates against a configuration. Errors (kInvalidArgument): an identifier with no value in
  // `config` ("no value for parameter 'x'"), or an evaluation error ("division by zero", ...).
  StatusOr<Value> Eval(const Config& config) const;

  // Fast path for hot loops: slots[i] points at the value of Identifiers()[i] (never null).
  // Allocates nothing unless a string value or an error is produced.
  StatusOr<Value> EvalSlots(const Value* const* slots) const;

  // Like EvalSlots but the result must be a boolean (else kInvalidArgument).
  StatusOr<bool> EvalBool(const Value* const* slots) const;

  // Distinct identifiers in order of first appearance (function names excluded).
  const std::vector<std::string>& Identifiers() const { return identifiers_; }
  const std::string& text() const { return text_; }

  enum class Op : uint8_t {
    kLiteral,
    kIdent,
    kNeg,
    kNot,
    kAdd,
    kSub,
    kMul,
    kDiv,
    kMod,
    kEq,
    kNe,
    kLt,
    kLe,
    kGt,
    kGe,
    kAnd,
    kOr,
    kIn,
    kNotIn,
    kMin,
    kMax,
  };
  struct Node {
    Op op = Op::kLiteral;
    int lhs = -1;           // child node index (unary operand or left side)
    int rhs = -1;           // right side
    int slot = -1;          // kIdent: index into Identifiers()
    std::vector<int> args;  // kIn/kNotIn: list items; kMin/kMax: arguments
    Value literal;          // kLiteral
  };

 private:
  friend class ExprParser;
  Expr() = default;
  bool EvalNode(int index, const Value* const* slots, Value* out, std::string* error) const;

  std::string text_;
  std::vector<Node> nodes_;  // children always precede their parent
  int root_ = -1;
  std::vector<std::string> identifiers_;
};

}  // namespace fleetsweep
