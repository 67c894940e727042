#include "worker/executors/bench_protocol.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace fleetsweep {
namespace {

using Json = nlohmann::json;

constexpr int kMaxJsonDepth = 32;

std::string Cut(std::string s, size_t max) {
  if (s.size() > max) s.resize(max);
  return s;
}

// True when the bracket nesting of `text` (outside strings) stays within kMaxJsonDepth, so that
// parsing and destroying the JSON value cannot recurse deeply.
bool ShallowEnough(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxJsonDepth) return false;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return true;
}

StatusOr<double> FiniteNumber(const Json& obj, const char* field, bool required, double fallback) {
  auto it = obj.find(field);
  if (it == obj.end() || it->is_null()) {
    if (required) return Status::InvalidArgument(std::string("missing field '") + field + "'");
    return fallback;
  }
  if (!it->is_number()) {
    return Status::InvalidArgument(std::string("field '") + field + "' must be a number");
  }
  double v = it->get<double>();
  if (!std::isfinite(v)) {
    return Status::InvalidArgument(std::string("field '") + field + "' is not finite");
  }
  return v;
}

StatusOr<std::string> StringField(const Json& obj, const char* field, bool required) {
  auto it = obj.find(field);
  if (it == obj.end() || it->is_null()) {
    if (required) return Status::InvalidArgument(std::string("missing field '") + field + "'");
    return std::string();
  }
  if (!it->is_string()) {
    return Status::InvalidArgument(std::string("field '") + field + "' must be a string");
  }
  return it->get<std::string>();
}

Status ParseSample(const Json& obj, ProtocolRecord* rec) {
  FS_ASSIGN_OR_RETURN(rec->metric, StringField(obj, "metric", true));
  if (rec->metric.empty()) return Status::InvalidArgument("field 'metric' is empty");
  auto values = obj.find("values");
  if (values != obj.end()) {
    if (!values->is_array() || values->empty()) {
      return Status::InvalidArgument("field 'values' must be a non-empty list of numbers");
    }
    for (const Json& v : *values) {
      if (!v.is_number()) return Status::InvalidArgument("field 'values' holds a non-number");
      double d = v.get<double>();
      if (!std::isfinite(d)) return Status::InvalidArgument("field 'values' holds a non-finite");
      rec->values.push_back(d);
    }
  }
  if (obj.contains("value")) {
    FS_ASSIGN_OR_RETURN(double v, FiniteNumber(obj, "value", true, 0));
    rec->values.push_back(v);
  }
  if (rec->values.empty()) return Status::InvalidArgument("sample has no 'value' or 'values'");
  return Status::Ok();
}

Status ParseRecord(const Json& obj, const std::string& type, ProtocolRecord* rec) {
  if (type == "sample") {
    rec->kind = ProtocolKind::kSample;
    return ParseSample(obj, rec);
  }
  if (type == "fingerprint") {
    rec->kind = ProtocolKind::kFingerprint;
    FS_ASSIGN_OR_RETURN(rec->text, StringField(obj, "value", true));
    if (rec->text.empty()) return Status::InvalidArgument("field 'value' is empty");
    return Status::Ok();
  }
  if (type == "check") {
    rec->kind = ProtocolKind::kCheck;
    auto passed = obj.find("passed");
    if (passed == obj.end() || !passed->is_boolean()) {
      return Status::InvalidArgument("field 'passed' must be true or false");
    }
    rec->passed = passed->get<bool>();
    FS_ASSIGN_OR_RETURN(rec->max_rel_error, FiniteNumber(obj, "max_rel_error", false, -1));
    FS_ASSIGN_OR_RETURN(rec->tolerance, FiniteNumber(obj, "tolerance", false, -1));
    FS_ASSIGN_OR_RETURN(rec->text, StringField(obj, "detail", false));
    return Status::Ok();
  }
  if (type == "info") {
    rec->kind = ProtocolKind::kInfo;
    FS_ASSIGN_OR_RETURN(rec->key, StringField(obj, "key", true));
    if (rec->key.empty()) return Status::InvalidArgument("field 'key' is empty");
    auto value = obj.find("value");
    if (value == obj.end()) return Status::InvalidArgument("missing field 'value'");
    rec->text = value->is_string() ? value->get<std::string>()
                                   : value->dump(-1, ' ', false, Json::error_handler_t::replace);
    return Status::Ok();
  }
  if (type == "error") {
    rec->kind = ProtocolKind::kError;
    FS_ASSIGN_OR_RETURN(rec->key, StringField(obj, "class", true));
    FS_ASSIGN_OR_RETURN(rec->text, StringField(obj, "detail", false));
    return Status::Ok();
  }
  return Status::InvalidArgument("unknown record type '" + Cut(type, 64) + "'");
}

bool KnownType(const std::string& t) {
  return t == "sample" || t == "fingerprint" || t == "check" || t == "info" || t == "error";
}

// For a line that failed to parse: does it try to be a protocol line?
bool LooksLikeProtocol(std::string_view line) {
  if (line.find("\"fleetsweep\"") != std::string_view::npos) return true;
  if (line.find("\"type\"") == std::string_view::npos) return false;
  for (const char* kind : {"\"sample\"", "\"fingerprint\"", "\"check\"", "\"info\"", "\"error\""}) {
    if (line.find(kind) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

StatusOr<ProtocolRecord> ParseProtocolLine(std::string_view line) {
  ProtocolRecord rec;
  size_t start = line.find_first_not_of(" \t\r");
  if (start == std::string_view::npos || line[start] != '{') return rec;
  line.remove_prefix(start);
  // Cheap rejection before a JSON parse: a protocol line names a "type" or "fleetsweep".
  if (line.find("\"type\"") == std::string_view::npos &&
      line.find("\"fleetsweep\"") == std::string_view::npos) {
    return rec;
  }
  if (!ShallowEnough(line)) return rec;
  try {
    Json obj = Json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
    if (obj.is_discarded()) {
      if (LooksLikeProtocol(line)) {
        return Status::InvalidArgument(
            "protocol line is not valid JSON (NaN, Infinity and out-of-range numbers are not "
            "JSON)");
      }
      return rec;
    }
    if (!obj.is_object()) return rec;
    std::string type;
    auto marker = obj.find("fleetsweep");
    auto type_it = obj.find("type");
    bool marked = marker != obj.end();
    if (type_it != obj.end() && type_it->is_string()) {
      type = type_it->get<std::string>();
    } else if (marked && marker->is_string()) {
      type = marker->get<std::string>();
    }
    if (!marked && !KnownType(type)) return rec;  // foreign JSON
    if (type.empty()) return Status::InvalidArgument("protocol line without a record type");
    Status st = ParseRecord(obj, type, &rec);
    if (!st.ok()) return Status::InvalidArgument(type + " record: " + st.message());
    return rec;
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("protocol line: ") + e.what());
  }
}

void ProtocolState::Feed(std::string_view line) {
  StatusOr<ProtocolRecord> rec = ParseProtocolLine(line);
  if (!rec.ok()) {
    ++bad_lines_;
    if (first_bad_error_.empty()) first_bad_error_ = Cut(rec.status().message(), kMaxText);
    return;
  }
  if (rec->kind == ProtocolKind::kNone) return;
  Add(*rec);
}

void ProtocolState::AddSample(const std::string& metric, double value) {
  if (samples_.size() >= kMaxSamples) {
    ++samples_dropped_;
    return;
  }
  samples_.push_back({Cut(metric, 128), value});
}

void ProtocolState::Add(const ProtocolRecord& rec) {
  ++protocol_lines_;
  switch (rec.kind) {
    case ProtocolKind::kNone:
      --protocol_lines_;
      return;
    case ProtocolKind::kSample:
      for (double v : rec.values) AddSample(rec.metric, v);
      return;
    case ProtocolKind::kFingerprint: {
      std::string fp = Cut(rec.text, kMaxText);
      if (std::find(fingerprints_.begin(), fingerprints_.end(), fp) != fingerprints_.end()) return;
      if (fingerprints_.size() >= 16) return;
      fingerprints_.push_back(fp);
      fingerprint_ = fingerprint_.empty() ? fp : fingerprint_ + "+" + fp;
      return;
    }
    case ProtocolKind::kCheck: {
      bool worse = !check_present_ || (check_passed_ && !rec.passed) ||
                   (check_passed_ == rec.passed && rec.max_rel_error > check_max_rel_error_);
      check_present_ = true;
      if (worse) {
        check_max_rel_error_ = rec.max_rel_error;
        check_tolerance_ = rec.tolerance;
        check_detail_ = Cut(rec.text, kMaxText);
      }
      check_passed_ = check_passed_ && rec.passed;
      return;
    }
    case ProtocolKind::kInfo:
      if (info_.size() >= kMaxInfo && info_.find(rec.key) == info_.end()) return;
      info_[Cut(rec.key, 128)] = Cut(rec.text, kMaxText);
      return;
    case ProtocolKind::kError:
      if (errors_++ == 0) {
        error_class_ = Cut(rec.key, 128);
        error_detail_ = Cut(rec.text, kMaxText);
      }
      return;
  }
}

}  // namespace fleetsweep
