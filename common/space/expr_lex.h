// Lexer of the constraint language (internal to common/space; see expr.h for the language).
#pragma once

#include <string>
#include <vector>

#include "common/space/value.h"

namespace fleetsweep::expr_internal {

enum class Tok { kInt, kFloat, kString, kBool, kIdent, kPunct, kEnd };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;  // identifier, punctuation, keyword, or decoded string
  Value value;       // literals
  int column = 1;    // 1-based
};

// How a token is named in error messages ("end of expression", "'+'", "string 'x'").
std::string Describe(const Token& t);

// Splits text into tokens, ending with a kEnd token. Returns false with *error and *column
// (1-based) on a lexical error.
bool Lex(const std::string& s, std::vector<Token>* out, std::string* error, int* column);

}  // namespace fleetsweep::expr_internal
