// Value and Config: one parameter value and one configuration (a point in the sweep space).
//
// A Value is an int64, a double, a bool or a string. Values are normalised on construction from
// text so that "64", 64 and 64.0 are the same value. A Config is a set of (name, Value) pairs kept
// sorted by name; its canonical key ("a=1;b=true;c=x") and its 64-bit FNV-1a hash (16 hex digits)
// are stable across runs, machines and builds, and are what the store and the scheduler dedupe on.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace fleetsweep {

class Value {
 public:
  enum class Type { kInt, kDouble, kBool, kString };

  Value() : v_(int64_t{0}) {}
  Value(int64_t i) : v_(i) {}       // NOLINT(runtime/explicit)
  Value(int i) : v_(int64_t{i}) {}  // NOLINT(runtime/explicit)
  Value(double d);                  // NOLINT(runtime/explicit) integral doubles become ints
  Value(bool b) : v_(b) {}          // NOLINT(runtime/explicit)
  Value(std::string s) : v_(std::move(s)) {}    // NOLINT(runtime/explicit)
  Value(const char* s) : v_(std::string(s)) {}  // NOLINT(runtime/explicit)

  // Parses YAML-like scalar text: true/false, integers, floats, otherwise a string.
  static Value FromText(const std::string& text);

  Type type() const { return static_cast<Type>(v_.index()); }
  bool is_number() const { return type() == Type::kInt || type() == Type::kDouble; }
  int64_t as_int() const { return std::get<int64_t>(v_); }
  double as_double() const;  // ints widen; bools are 0/1; strings abort
  bool as_bool() const { return std::get<bool>(v_); }
  const std::string& as_string() const { return std::get<std::string>(v_); }

  // Canonical text: ints in decimal, doubles in shortest round-trip form, true/false, raw strings.
  std::string ToString() const;
  const char* TypeName() const;

  // Numbers compare by value across int/double; other types compare within their type.
  bool operator==(const Value& o) const;
  bool operator!=(const Value& o) const { return !(*this == o); }
  bool operator<(const Value& o) const;

 private:
  std::variant<int64_t, double, bool, std::string> v_;
};

// A configuration: parameter name -> value, ordered by name.
using Config = std::map<std::string, Value>;

// "name=value;name=value" over sorted names. Names and values are emitted verbatim; ';' and '='
// inside string values are escaped with a backslash so distinct configs never share a key.
std::string CanonicalKey(const Config& config);

// FNV-1a 64-bit of CanonicalKey, as 16 lowercase hex digits.
std::string ConfigHash(const Config& config);
uint64_t Fnv1a64(const std::string& data, uint64_t seed = 14695981039346656037ULL);
std::string Hex16(uint64_t v);

// Human form: "a=1 b=true".
std::string ConfigToString(const Config& config);

// The environment variable a benchmark reads a parameter from: FLEETSWEEP_PARAM_<NAME>, the name
// upper-cased, every character outside [A-Z0-9] -> '_'. The spec parser rejects two parameters
// that map to the same variable.
std::string ParamEnvName(const std::string& param);

}  // namespace fleetsweep
