// The benchmark stdout protocol: JSON lines a benchmark prints to report what it measured.
//
// A protocol line is one JSON object on one line, whose "type" (or "fleetsweep" marker) names
// the kind of record:
//   {"type":"sample","metric":"time_ms","value":1.23}          one sample
//   {"type":"sample","metric":"time_ms","values":[1.2,1.3]}    several samples
//   {"type":"fingerprint","value":"9f0c..."}                   hash of what really ran
//   {"type":"check","passed":true,"max_rel_error":1e-6,"tolerance":1e-3,"detail":"..."}
//   {"type":"info","key":"torch_version","value":"1.13"}
//   {"type":"error","class":"not_implemented","detail":"V2"}
// `{"fleetsweep":"sample", ...}` is the same as `{"type":"sample", ...}`. A JSON object with a
// "fleetsweep" key is always a protocol line (an unknown kind is a bad line); a JSON object
// with only a "type" key is a protocol line when the type is one of the five kinds above (so
// that foreign JSON logs are ignored). Every other line is not protocol and is ignored.
// Numbers must be finite. See docs/executors.md.
//
// ParseProtocolLine is a pure function: it never throws, never aborts, on any input.
// ProtocolState accumulates the records of one execution with bounded memory.
//
// Thread-safety: ProtocolState is not thread-safe; use one per execution.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace fleetsweep {

enum class ProtocolKind { kNone, kSample, kFingerprint, kCheck, kInfo, kError };

struct ProtocolRecord {
  ProtocolKind kind = ProtocolKind::kNone;  // kNone: not a protocol line (ignore it)
  std::string metric;                       // sample
  std::vector<double> values;               // sample (finite, at least one)
  std::string text;           // fingerprint value; info value; error detail; check detail
  std::string key;            // info key; error class
  bool passed = false;        // check
  double max_rel_error = -1;  // check; -1 when absent
  double tolerance = -1;      // check; -1 when absent
};

// Parses one line (without its newline). Returns a record with kind kNone for a line that is
// not protocol, and kInvalidArgument naming the problem for a protocol line that is malformed
// (missing or mistyped field, non-finite number, unknown kind with the "fleetsweep" marker).
StatusOr<ProtocolRecord> ParseProtocolLine(std::string_view line);

// Everything the protocol lines of one execution said.
class ProtocolState {
 public:
  static constexpr size_t kMaxSamples = 100000;
  static constexpr size_t kMaxInfo = 256;
  static constexpr size_t kMaxText = 1024;  // info values, details, fingerprints are cut here

  ProtocolState() = default;

  // Parses `line` and records it. Malformed lines are counted, never fatal.
  void Feed(std::string_view line);
  // Records an already-parsed record (used by the file output formats).
  void Add(const ProtocolRecord& record);
  void AddSample(const std::string& metric, double value);

  struct Sample {
    std::string metric;
    double value;
  };
  const std::vector<Sample>& samples() const { return samples_; }
  uint64_t samples_dropped() const { return samples_dropped_; }  // beyond kMaxSamples
  // Distinct fingerprints in order of appearance, joined with '+'; "" when none.
  const std::string& fingerprint() const { return fingerprint_; }
  bool check_present() const { return check_present_; }
  // All checks passed; max_rel_error is the worst one; tolerance and detail of the worst.
  bool check_passed() const { return check_passed_; }
  double check_max_rel_error() const { return check_max_rel_error_; }
  double check_tolerance() const { return check_tolerance_; }
  const std::string& check_detail() const { return check_detail_; }
  const std::map<std::string, std::string>& info() const { return info_; }
  // Error records: the first one's class and detail, and how many there were.
  bool has_error() const { return errors_ > 0; }
  const std::string& error_class() const { return error_class_; }
  const std::string& error_detail() const { return error_detail_; }
  uint64_t protocol_lines() const { return protocol_lines_; }
  uint64_t bad_lines() const { return bad_lines_; }
  const std::string& first_bad_line_error() const { return first_bad_error_; }

 private:
  std::vector<Sample> samples_;
  uint64_t samples_dropped_ = 0;
  std::string fingerprint_;
  std::vector<std::string> fingerprints_;
  bool check_present_ = false;
  bool check_passed_ = true;
  double check_max_rel_error_ = -1;
  double check_tolerance_ = -1;
  std::string check_detail_;
  std::map<std::string, std::string> info_;
  uint64_t errors_ = 0;
  std::string error_class_;
  std::string error_detail_;
  uint64_t protocol_lines_ = 0;
  uint64_t bad_lines_ = 0;
  std::string first_bad_error_;
};

}  // namespace fleetsweep
