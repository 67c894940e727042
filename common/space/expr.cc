// Evaluation of parsed constraint expressions (see expr.h; the parser is in expr_parse.cc).
#include "common/space/expr.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace fleetsweep {
namespace {

using Op = Expr::Op;

const char* OpName(Op op) {
  switch (op) {
    case Op::kNeg:
      return "unary -";
    case Op::kNot:
      return "not";
    case Op::kAdd:
      return "+";
    case Op::kSub:
      return "-";
    case Op::kMul:
      return "*";
    case Op::kDiv:
      return "/";
    case Op::kMod:
      return "%";
    case Op::kEq:
      return "==";
    case Op::kNe:
      return "!=";
    case Op::kLt:
      return "<";
    case Op::kLe:
      return "<=";
    case Op::kGt:
      return ">";
    case Op::kGe:
      return ">=";
    case Op::kAnd:
      return "and";
    case Op::kOr:
      return "or";
    case Op::kIn:
      return "in";
    case Op::kNotIn:
      return "not in";
    case Op::kMin:
      return "min()";
    case Op::kMax:
      return "max()";
    default:
      return "?";
  }
}

std::string Shown(const Value& v) {
  return std::string(v.TypeName()) + " " +
         (v.type() == Value::Type::kString ? "'" + v.ToString() + "'" : v.ToString());
}

bool TypeError(Op op, const Value& a, const Value* b, std::string* error) {
  *error = std::string("cannot apply '") + OpName(op) + "' to " + Shown(a) +
           (b ? " and " + Shown(*b) : std::string());
  return false;
}

// Arithmetic on numbers. Ints stay ints (overflow is an error); anything with a double is double.
bool Arith(Op op, const Value& a, const Value& b, Value* out, std::string* error) {
  if (!a.is_number() || !b.is_number()) return TypeError(op, a, &b, error);
  bool ints = a.type() == Value::Type::kInt && b.type() == Value::Type::kInt;
  if (op == Op::kMod) {
    if (!ints) {
      *error = "'%' needs integers, got " + Shown(a) + " and " + Shown(b);
      return false;
    }
    int64_t x = a.as_int(), y = b.as_int();
    if (y == 0) {
      *error = "modulo by zero";
      return false;
    }
    int64_t r = y == -1 ? 0 : x % y;
    if (r != 0 && ((r < 0) != (y < 0))) r += y;  // sign of the divisor, as in Python
    *out = Value(r);
    return true;
  }
  if (op == Op::kDiv) {
    double y = b.as_double();
    if (y == 0) {
      *error = "division by zero";
      return false;
    }
    double q = a.as_double() / y;
    if (!std::isfinite(q)) {
      *error = "division result is not finite";
      return false;
    }
    *out = Value(q);
    return true;
  }
  if (ints) {
    int64_t x = a.as_int(), y = b.as_int(), r = 0;
    bool overflow = op == Op::kAdd   ? __builtin_add_overflow(x, y, &r)
                    : op == Op::kSub ? __builtin_sub_overflow(x, y, &r)
                                     : __builtin_mul_overflow(x, y, &r);
    if (overflow) {
      *error = std::string("integer overflow in '") + OpName(op) + "'";
      return false;
    }
    *out = Value(r);
    return true;
  }
  double x = a.as_double(), y = b.as_double();
  double r = op == Op::kAdd ? x + y : op == Op::kSub ? x - y : x * y;
  if (!std::isfinite(r)) {
    *error = std::string("result of '") + OpName(op) + "' is not finite";
    return false;
  }
  *out = Value(r);
  return true;
}

// Three-way comparison; numbers across int/float, strings and bools within their type.
bool Compare(Op op, const Value& a, const Value& b, int* cmp, std::string* error) {
  bool same_kind = (a.is_number() && b.is_number()) || a.type() == b.type();
  if (!same_kind) {
    *error = std::string("cannot compare ") + Shown(a) + " with " + Shown(b) + " using '" +
             OpName(op) + "'";
    return false;
  }
  if (a.type() == Value::Type::kBool && op != Op::kEq && op != Op::kNe) {
    return TypeError(op, a, &b, error);
  }
  *cmp = a < b ? -1 : (b < a ? 1 : 0);
  return true;
}

bool Truth(Op op, const Value& v, bool* out, std::string* error) {
  if (v.type() != Value::Type::kBool) {
    *error = std::string("'") + OpName(op) + "' needs booleans, got " + Shown(v);
    return false;
  }
  *out = v.as_bool();
  return true;
}

// Equality used by `in`: different kinds are simply unequal.
bool LooseEqual(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) return a == b;
  return a.type() == b.type() && a == b;
}

}  // namespace

bool Expr::EvalNode(int index, const Value* const* slots, Value* out, std::string* error) const {
  const Node& n = nodes_[index];
  switch (n.op) {
    case Op::kLiteral:
      *out = n.literal;
      return true;
    case Op::kIdent:
      *out = *slots[n.slot];
      return true;
    case Op::kNeg: {
      Value v;
      if (!EvalNode(n.lhs, slots, &v, error)) return false;
      if (v.type() == Value::Type::kInt) {
        int64_t r = 0;
        if (__builtin_sub_overflow(int64_t{0}, v.as_int(), &r)) {
          *error = "integer overflow in unary '-'";
          return false;
        }
        *out = Value(r);
        return true;
      }
      if (v.type() == Value::Type::kDouble) {
        *out = Value(-v.as_double());
        return true;
      }
      return TypeError(n.op, v, nullptr, error);
    }
    case Op::kNot: {
      Value v;
      bool b = false;
      if (!EvalNode(n.lhs, slots, &v, error) || !Truth(n.op, v, &b, error)) return false;
      *out = Value(!b);
      return true;
    }
    case Op::kAnd:
    case Op::kOr: {
      Value v;
      bool b = false;
      if (!EvalNode(n.lhs, slots, &v, error) || !Truth(n.op, v, &b, error)) return false;
      if (b == (n.op == Op::kOr)) {  // short-circuit
        *out = Value(b);
        return true;
      }
      if (!EvalNode(n.rhs, slots, &v, error) || !Truth(n.op, v, &b, error)) return false;
      *out = Value(b);
      return true;
    }
    case Op::kAdd:
    case Op::kSub:
    case Op::kMul:
    case Op::kDiv:
    case Op::kMod: {
      Value a, b;
      if (!EvalNode(n.lhs, slots, &a, error) || !EvalNode(n.rhs, slots, &b, error)) return false;
      return Arith(n.op, a, b, out, error);
    }
    case Op::kEq:
    case Op::kNe:
    case Op::kLt:
    case Op::kLe:
    case Op::kGt:
    case Op::kGe: {
      Value a, b;
      int c = 0;
      if (!EvalNode(n.lhs, slots, &a, error) || !EvalNode(n.rhs, slots, &b, error) ||
          !Compare(n.op, a, b, &c, error)) {
        return false;
      }
      bool r = n.op == Op::kEq   ? c == 0
               : n.op == Op::kNe ? c != 0
               : n.op == Op::kLt ? c < 0
               : n.op == Op::kLe ? c <= 0
               : n.op == Op::kGt ? c > 0
                                 : c >= 0;
      *out = Value(r);
      return true;
    }
    case Op::kIn:
    case Op::kNotIn: {
      Value a, item;
      if (!EvalNode(n.lhs, slots, &a, error)) return false;
      bool found = false;
      for (int k : n.args) {
        if (!EvalNode(k, slots, &item, error)) return false;
        if (LooseEqual(a, item)) {
          found = true;
          break;
        }
      }
      *out = Value(found == (n.op == Op::kIn));
      return true;
    }
    case Op::kMin:
    case Op::kMax: {
      Value best, v;
      for (size_t i = 0; i < n.args.size(); ++i) {
        if (!EvalNode(n.args[i], slots, &v, error)) return false;
        if (!v.is_number()) return TypeError(n.op, v, nullptr, error);
        if (i == 0 || (n.op == Op::kMin ? v < best : best < v)) best = v;
      }
      *out = best;
      return true;
    }
  }
  *error = "internal: unknown expression node";
  return false;
}

StatusOr<Value> Expr::EvalSlots(const Value* const* slots) const {
  Value out;
  std::string error;
  if (root_ < 0) return Status::InvalidArgument("empty expression");
  if (!EvalNode(root_, slots, &out, &error)) return Status::InvalidArgument(error);
  return out;
}

StatusOr<bool> Expr::EvalBool(const Value* const* slots) const {
  Value out;
  std::string error;
  if (root_ < 0) return Status::InvalidArgument("empty expression");
  if (!EvalNode(root_, slots, &out, &error)) return Status::InvalidArgument(error);
  if (out.type() != Value::Type::kBool) {
    return Status::InvalidArgument("expected a boolean result, got " + Shown(out));
  }
  return out.as_bool();
}

StatusOr<Value> Expr::Eval(const Config& config) const {
  std::vector<const Value*> slots(identifiers_.size());
  for (size_t i = 0; i < identifiers_.size(); ++i) {
    auto it = config.find(identifiers_[i]);
    if (it == config.end()) {
      return Status::InvalidArgument("no value for parameter '" + identifiers_[i] + "'");
    }
    slots[i] = &it->second;
  }
  return EvalSlots(slots.data());
}

}  // namespace fleetsweep
