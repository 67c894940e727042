// Recursive-descent parser of the constraint language (see expr.h); the lexer is expr_lex.cc.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "common/space/expr.h"
#include "common/space/expr_lex.h"

namespace fleetsweep {

using expr_internal::Describe;
using expr_internal::Lex;
using expr_internal::Tok;
using expr_internal::Token;

// Builds an Expr from tokens. Every Parse* returns a node index, or -1 with error_ set.
class ExprParser {
 public:
  ExprParser(std::vector<Token> tokens, Expr* expr) : toks_(std::move(tokens)), expr_(expr) {}

  bool Run() {
    int root = ParseOr();
    if (root < 0) return false;
    if (Peek().kind != Tok::kEnd) {
      return Fail(Peek(), "expected an operator or the end of the expression, found " +
                              Describe(Peek())) >= 0;
    }
    expr_->root_ = root;
    return true;
  }
  const std::string& error() const { return error_; }
  int error_column() const { return error_column_; }

 private:
  const Token& Peek(size_t ahead = 0) const {
    size_t i = pos_ + ahead;
    return i < toks_.size() ? toks_[i] : toks_.back();
  }
  bool IsPunct(const char* p, size_t ahead = 0) const {
    return Peek(ahead).kind == Tok::kPunct && Peek(ahead).text == p;
  }
  int Fail(const Token& at, std::string message) {
    if (error_.empty()) {
      error_ = std::move(message);
      error_column_ = at.column;
    }
    return -1;
  }
  // Appends a node whose children are `kids`; enforces the depth limit.
  int Add(Expr::Node node, const Token& at) {
    int depth = 1;
    auto visit = [&](int k) {
      if (k >= 0) depth = std::max(depth, depths_[k] + 1);
    };
    visit(node.lhs);
    visit(node.rhs);
    for (int k : node.args) visit(k);
    if (depth > Expr::kMaxDepth) {
      return Fail(at, "expression nested too deeply (more than " + std::to_string(Expr::kMaxDepth) +
                          " levels)");
    }
    expr_->nodes_.push_back(std::move(node));
    depths_.push_back(depth);
    return static_cast<int>(expr_->nodes_.size()) - 1;
  }
  int Binary(Expr::Op op, int lhs, int rhs, const Token& at) {
    Expr::Node n;
    n.op = op;
    n.lhs = lhs;
    n.rhs = rhs;
    return Add(std::move(n), at);
  }
  // Guards recursion: every nesting construct passes through here.
  struct DepthGuard {
    explicit DepthGuard(int* d) : d_(d) { ++*d_; }
    ~DepthGuard() { --*d_; }
    int* d_;
  };
  bool TooDeep() {
    if (recursion_ <= Expr::kMaxDepth) return false;
    Fail(Peek(),
         "expression nested too deeply (more than " + std::to_string(Expr::kMaxDepth) + " levels)");
    return true;
  }

  int ParseOr() {
    DepthGuard g(&recursion_);
    if (TooDeep()) return -1;
    int lhs = ParseAnd();
    while (lhs >= 0 && IsPunct("or")) {
      const Token& op = toks_[pos_++];
      int rhs = ParseAnd();
      if (rhs < 0) return -1;
      lhs = Binary(Expr::Op::kOr, lhs, rhs, op);
    }
    return lhs;
  }
  int ParseAnd() {
    int lhs = ParseNot();
    while (lhs >= 0 && IsPunct("and")) {
      const Token& op = toks_[pos_++];
      int rhs = ParseNot();
      if (rhs < 0) return -1;
      lhs = Binary(Expr::Op::kAnd, lhs, rhs, op);
    }
    return lhs;
  }
  int ParseNot() {
    if (IsPunct("not") && !IsPunct("in", 1)) {
      DepthGuard g(&recursion_);
      if (TooDeep()) return -1;
      const Token& op = toks_[pos_++];
      int operand = ParseNot();
      if (operand < 0) return -1;
      return Binary(Expr::Op::kNot, operand, -1, op);
    }
    return ParseComparison();
  }
  int ParseComparison() {
    int lhs = ParseSum();
    if (lhs < 0) return -1;
    static const std::pair<const char*, Expr::Op> kOps[] = {
        {"==", Expr::Op::kEq}, {"!=", Expr::Op::kNe}, {"<", Expr::Op::kLt},
        {"<=", Expr::Op::kLe}, {">", Expr::Op::kGt},  {">=", Expr::Op::kGe}};
    for (const auto& [text, op] : kOps) {
      if (!IsPunct(text)) continue;
      const Token& at = toks_[pos_++];
      int rhs = ParseSum();
      if (rhs < 0) return -1;
      int node = Binary(op, lhs, rhs, at);
      for (const auto& other : kOps) {
        if (IsPunct(other.first)) {
          return Fail(Peek(), "comparisons cannot be chained; combine them with 'and'");
        }
      }
      return node;
    }
    bool negated = IsPunct("not") && IsPunct("in", 1);
    if (negated || IsPunct("in")) {
      const Token& at = toks_[pos_];
      pos_ += negated ? 2 : 1;
      Expr::Node n;
      n.op = negated ? Expr::Op::kNotIn : Expr::Op::kIn;
      n.lhs = lhs;
      if (!ParseList(&n.args)) return -1;
      return Add(std::move(n), at);
    }
    return lhs;
  }
  // '[' item (',' item)* ','? ']'
  bool ParseList(std::vector<int>* items) {
    if (!IsPunct("[")) {
      Fail(Peek(), "expected '[' to start the list after 'in', found " + Describe(Peek()));
      return false;
    }
    ++pos_;
    while (!IsPunct("]")) {
      int item = ParseOr();
      if (item < 0) return false;
      items->push_back(item);
      if (IsPunct(",")) {
        ++pos_;
      } else if (!IsPunct("]")) {
        Fail(Peek(), "expected ',' or ']' in the list, found " + Describe(Peek()));
        return false;
      }
    }
    ++pos_;
    return true;
  }
  int ParseSum() {
    int lhs = ParseTerm();
    while (lhs >= 0 && (IsPunct("+") || IsPunct("-"))) {
      const Token& op = toks_[pos_++];
      int rhs = ParseTerm();
      if (rhs < 0) return -1;
      lhs = Binary(op.text == "+" ? Expr::Op::kAdd : Expr::Op::kSub, lhs, rhs, op);
    }
    return lhs;
  }
  int ParseTerm() {
    int lhs = ParseUnary();
    while (lhs >= 0 && (IsPunct("*") || IsPunct("/") || IsPunct("%"))) {
      const Token& op = toks_[pos_++];
      int rhs = ParseUnary();
      if (rhs < 0) return -1;
      Expr::Op kind = op.text == "*"   ? Expr::Op::kMul
                      : op.text == "/" ? Expr::Op::kDiv
                                       : Expr::Op::kMod;
      lhs = Binary(kind, lhs, rhs, op);
    }
    return lhs;
  }
  int ParseUnary() {
    if (IsPunct("-") || IsPunct("+")) {
      DepthGuard g(&recursion_);
      if (TooDeep()) return -1;
      const Token& op = toks_[pos_++];
      int operand = ParseUnary();
      if (operand < 0) return -1;
      if (op.text == "+") return operand;
      return Binary(Expr::Op::kNeg, operand, -1, op);
    }
    return ParsePrimary();
  }
  int ParsePrimary() {
    const Token& t = Peek();
    switch (t.kind) {
      case Tok::kInt:
      case Tok::kFloat:
      case Tok::kString:
      case Tok::kBool: {
        ++pos_;
        Expr::Node n;
        n.op = Expr::Op::kLiteral;
        n.literal = t.value;
        return Add(std::move(n), t);
      }
      case Tok::kIdent: {
        ++pos_;
        if (IsPunct("(")) return ParseCall(t);
        Expr::Node n;
        n.op = Expr::Op::kIdent;
        n.slot = SlotOf(t.text);
        return Add(std::move(n), t);
      }
      case Tok::kPunct:
        if (t.text == "(") {
          ++pos_;
          int inner = ParseOr();
          if (inner < 0) return -1;
          if (!IsPunct(")")) return Fail(Peek(), "expected ')', found " + Describe(Peek()));
          ++pos_;
          return inner;
        }
        break;
      case Tok::kEnd:
        break;
    }
    return Fail(t, "expected a value, a parameter name or '(', found " + Describe(t));
  }
  int ParseCall(const Token& name) {
    if (name.text != "min" && name.text != "max") {
      return Fail(name, "unknown function '" + name.text + "' (known: min, max)");
    }
    ++pos_;  // '('
    Expr::Node n;
    n.op = name.text == "min" ? Expr::Op::kMin : Expr::Op::kMax;
    while (!IsPunct(")")) {
      int arg = ParseOr();
      if (arg < 0) return -1;
      n.args.push_back(arg);
      if (IsPunct(",")) {
        ++pos_;
      } else if (!IsPunct(")")) {
        return Fail(Peek(), "expected ',' or ')' in the call of " + name.text + "(), found " +
                                Describe(Peek()));
      }
    }
    ++pos_;
    if (n.args.empty()) return Fail(name, name.text + "() needs at least one argument");
    return Add(std::move(n), name);
  }
  int SlotOf(const std::string& name) {
    auto& ids = expr_->identifiers_;
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] == name) return static_cast<int>(i);
    }
    ids.push_back(name);
    return static_cast<int>(ids.size()) - 1;
  }

  std::vector<Token> toks_;
  Expr* expr_;
  size_t pos_ = 0;
  int recursion_ = 0;
  std::vector<int> depths_;
  std::string error_;
  int error_column_ = 1;
};

StatusOr<std::shared_ptr<const Expr>> Expr::Parse(const std::string& text, int* error_column) {
  auto fail = [&](int column, const std::string& message) -> Status {
    if (error_column) *error_column = column;
    return Status::InvalidArgument("column " + std::to_string(column) + ": " + message);
  };
  if (text.size() > kMaxTextLength) {
    return fail(1, "expression longer than " + std::to_string(kMaxTextLength) + " characters");
  }
  std::vector<Token> tokens;
  std::string error;
  int column = 1;
  if (!Lex(text, &tokens, &error, &column)) return fail(column, error);
  if (tokens.size() == 1) return fail(1, "empty expression");
  std::shared_ptr<Expr> expr(new Expr());
  expr->text_ = text;
  ExprParser parser(std::move(tokens), expr.get());
  if (!parser.Run()) return fail(parser.error_column(), parser.error());
  return std::shared_ptr<const Expr>(std::move(expr));
}

}  // namespace fleetsweep
