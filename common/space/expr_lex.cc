#include "common/space/expr_lex.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <utility>

namespace fleetsweep::expr_internal {

namespace {

bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c); }

}  // namespace

std::string Describe(const Token& t) {
  switch (t.kind) {
    case Tok::kEnd:
      return "end of expression";
    case Tok::kString:
      return "string '" + t.text + "'";
    case Tok::kPunct:
      return "'" + t.text + "'";
    default:
      return "'" + t.text + "'";
  }
}

// Splits text into tokens. Returns false with *error/*column on a lexical error.
bool Lex(const std::string& s, std::vector<Token>* out, std::string* error, int* column) {
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
      continue;
    }
    Token t;
    t.column = static_cast<int>(i) + 1;
    if (IsIdentStart(c)) {
      size_t j = i;
      while (j < s.size() && IsIdentChar(s[j])) ++j;
      t.text = s.substr(i, j - i);
      if (t.text == "true" || t.text == "True" || t.text == "false" || t.text == "False") {
        t.kind = Tok::kBool;
        t.value = Value(t.text[0] == 't' || t.text[0] == 'T');
      } else if (t.text == "and" || t.text == "or" || t.text == "not" || t.text == "in") {
        t.kind = Tok::kPunct;
      } else {
        t.kind = Tok::kIdent;
      }
      i = j;
    } else if (IsDigit(c) || (c == '.' && i + 1 < s.size() && IsDigit(s[i + 1]))) {
      size_t j = i;
      bool is_float = false;
      while (j < s.size() && IsDigit(s[j])) ++j;
      if (j < s.size() && s[j] == '.') {
        is_float = true;
        ++j;
        while (j < s.size() && IsDigit(s[j])) ++j;
      }
      if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
        size_t k = j + 1;
        if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
        if (k < s.size() && IsDigit(s[k])) {
          is_float = true;
          j = k;
          while (j < s.size() && IsDigit(s[j])) ++j;
        }
      }
      if (j < s.size() && IsIdentChar(s[j])) {
        *error = "malformed number '" + s.substr(i, j + 1 - i) + "'";
        *column = t.column;
        return false;
      }
      t.text = s.substr(i, j - i);
      errno = 0;
      if (is_float) {
        double d = std::strtod(t.text.c_str(), nullptr);
        if (errno != 0 || !std::isfinite(d)) {
          *error = "number '" + t.text + "' is out of range";
          *column = t.column;
          return false;
        }
        t.kind = Tok::kFloat;
        t.value = Value(d);
      } else {
        long long v = std::strtoll(t.text.c_str(), nullptr, 10);
        if (errno != 0) {
          *error = "integer '" + t.text + "' is out of range";
          *column = t.column;
          return false;
        }
        t.kind = Tok::kInt;
        t.value = Value(static_cast<int64_t>(v));
      }
      i = j;
    } else if (c == '\'' || c == '"') {
      size_t j = i + 1;
      std::string decoded;
      bool closed = false;
      while (j < s.size()) {
        char d = s[j];
        if (d == c) {
          closed = true;
          ++j;
          break;
        }
        if (d == '\\' && j + 1 < s.size()) {
          char e = s[j + 1];
          decoded.push_back(e == 'n' ? '\n' : e == 't' ? '\t' : e);
          j += 2;
          continue;
        }
        decoded.push_back(d);
        ++j;
      }
      if (!closed) {
        *error = "unterminated string (missing closing " + std::string(1, c) + ")";
        *column = t.column;
        return false;
      }
      t.kind = Tok::kString;
      t.text = decoded;
      t.value = Value(decoded);
      i = j;
    } else {
      static const char* kTwo[] = {"==", "!=", "<=", ">=", "&&", "||"};
      std::string two = s.substr(i, 2);
      bool matched = false;
      for (const char* p : kTwo) {
        if (two == p) {
          t.text = two == "&&" ? "and" : two == "||" ? "or" : two;
          i += 2;
          matched = true;
          break;
        }
      }
      if (!matched) {
        if (std::string("+-*/%<>()[],!").find(c) == std::string::npos || c == '\0') {
          *error = c == '=' ? std::string("unexpected '='; use '==' to compare")
                            : "unexpected character '" + std::string(1, c) + "' (byte " +
                                  std::to_string(static_cast<unsigned char>(c)) + ")";
          if (c == '&' || c == '|') *error += "; use 'and'/'or' (or '&&'/'||')";
          *column = t.column;
          return false;
        }
        t.text = c == '!' ? "not" : std::string(1, c);
        ++i;
      }
      t.kind = Tok::kPunct;
    }
    out->push_back(std::move(t));
  }
  Token end;
  end.kind = Tok::kEnd;
  end.column = static_cast<int>(s.size()) + 1;
  out->push_back(end);
  return true;
}

}  // namespace fleetsweep::expr_internal
