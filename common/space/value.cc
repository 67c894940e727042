#include "common/space/value.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "common/status.h"

namespace fleetsweep {

namespace {

// Significant digits of the shortest decimal that reads back as d (0 for NaN and infinities).
int ShortestDigits(double d) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  int digits = 0;
  for (const char* c = buf; c < r.ptr && *c != 'e'; ++c) digits += std::isdigit(*c) ? 1 : 0;
  return digits;
}

}  // namespace

Value::Value(double d) {
  if (std::isfinite(d) && std::nearbyint(d) == d && std::fabs(d) < 9.0e15) {
    v_ = static_cast<int64_t>(d);
  } else {
    v_ = d;
  }
}

Value Value::FromText(const std::string& text) {
  if (text == "true" || text == "True" || text == "TRUE") return Value(true);
  if (text == "false" || text == "False" || text == "FALSE") return Value(false);
  if (text.empty()) return Value(std::string());
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  long long i = std::strtoll(begin, &end, 10);
  if (errno == 0 && end && *end == '\0' && end != begin) return Value(static_cast<int64_t>(i));
  errno = 0;
  double d = std::strtod(begin, &end);
  if (errno == 0 && end && *end == '\0' && end != begin && std::isfinite(d) &&
      text.find_first_of("xXnN") == std::string::npos) {
    return Value(d);
  }
  return Value(text);
}

double Value::as_double() const {
  switch (type()) {
    case Type::kInt:
      return static_cast<double>(std::get<int64_t>(v_));
    case Type::kDouble:
      return std::get<double>(v_);
    case Type::kBool:
      return std::get<bool>(v_) ? 1.0 : 0.0;
    case Type::kString:
      break;
  }
  FS_CHECK(false && "as_double on a string Value");
  return 0;
}

std::string Value::ToString() const {
  switch (type()) {
    case Type::kInt:
      return std::to_string(std::get<int64_t>(v_));
    case Type::kDouble: {
      // The fewest %g digits (6 to 17) that read back as d. No decimal of fewer significant
      // digits than the shortest round-trip one (std::to_chars) reads back, so the search
      // starts there: one or two tries instead of up to twelve, the same text.
      double d = std::get<double>(v_);
      char buf[64];
      int prec = std::max(6, ShortestDigits(d));
      for (; prec <= 17; ++prec) {
        std::snprintf(buf, sizeof buf, "%.*g", prec, d);
        if (std::strtod(buf, nullptr) == d) break;
      }
      return buf;
    }
    case Type::kBool:
      return std::get<bool>(v_) ? "true" : "false";
    case Type::kString:
      return std::get<std::string>(v_);
  }
  return "";
}

const char* Value::TypeName() const {
  switch (type()) {
    case Type::kInt:
      return "int";
    case Type::kDouble:
      return "float";
    case Type::kBool:
      return "bool";
    case Type::kString:
      return "string";
  }
  return "?";
}

bool Value::operator==(const Value& o) const {
  if (is_number() && o.is_number()) return as_double() == o.as_double();
  if (type() != o.type()) return false;
  return v_ == o.v_;
}

bool Value::operator<(const Value& o) const {
  if (is_number() && o.is_number()) return as_double() < o.as_double();
  if (type() != o.type()) return static_cast<int>(type()) < static_cast<int>(o.type());
  return v_ < o.v_;
}

static void AppendEscaped(std::string* out, const std::string& s) {
  for (char c : s) {
    if (c == ';' || c == '=' || c == '\\') out->push_back('\\');
    out->push_back(c);
  }
}

std::string CanonicalKey(const Config& config) {
  std::string out;
  bool first = true;
  for (const auto& [name, value] : config) {
    if (!first) out.push_back(';');
    first = false;
    AppendEscaped(&out, name);
    out.push_back('=');
    AppendEscaped(&out, value.ToString());
  }
  return out;
}

uint64_t Fnv1a64(const std::string& data, uint64_t seed) {
  uint64_t h = seed;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string Hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string ConfigHash(const Config& config) { return Hex16(Fnv1a64(CanonicalKey(config))); }

std::string ConfigToString(const Config& config) {
  std::string out;
  for (const auto& [name, value] : config) {
    if (!out.empty()) out.push_back(' ');
    out += name + "=" + value.ToString();
  }
  return out;
}

std::string ParamEnvName(const std::string& param) {
  std::string out = "FLEETSWEEP_PARAM_";
  for (char c : param) {
    unsigned char u = static_cast<unsigned char>(c);
    out += std::isalnum(u) ? static_cast<char>(std::toupper(u)) : '_';
  }
  return out;
}

}  // namespace fleetsweep
