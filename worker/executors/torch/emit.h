// Emitter: writes the benchmark stdout protocol, one JSON object per line (docs/torch-executor.md).
//
//   {"type":"sample","metric":"time_ms","value":1.23}
//   {"type":"fingerprint","value":"<16 hex>"}
//   {"type":"check","passed":true,"max_rel_error":1e-3,"tolerance":2e-2,"detail":"..."}
//   {"type":"info","key":"torch_version","value":"..."}
//   {"type":"error","class":"not_implemented","detail":"..."}
//
// Every line is flushed at once so that a crash after it cannot lose it. Never throws.
// In a persistent session (serve.h) the lines of a prepared execution are captured (Capture) and
// written when its run request arrives, so that `prepare` is answered by `prepared` alone.
// Thread-safety: not thread-safe; the bench is single-threaded.
#pragma once

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace fleetsweep::torchbench {

// Exit codes of fleetsweep-torch-bench (the worker classifies failures by them and by the
// error line).
enum ExitCode : int {
  kExitOk = 0,
  kExitRuntimeError =
      1,             // exception inside a kernel (error line class runtime_error/out_of_memory)
  kExitInvalid = 2,  // bad flag, shape or parameter (class invalid_argument)
  kExitNotImplemented = 3,  // the platform surface does not implement this path (not_implemented)
  kExitWrongResult = 4,     // the check against the reference failed (check line passed=false)
};

// A failed execution as the bench reports it: the error line (class, detail) and the exit code a
// one-shot process ends with. exit_code kExitOk means no error.
struct ExecError {
  int exit_code = kExitOk;
  std::string error_class;
  std::string detail;

  bool ok() const { return exit_code == kExitOk; }
  static ExecError Invalid(std::string detail) {
    return {kExitInvalid, "invalid_argument", std::move(detail)};
  }
  static ExecError NotImplemented(std::string detail) {
    return {kExitNotImplemented, "not_implemented", std::move(detail)};
  }
};

class Emitter {
 public:
  // Writes to `out` (not owned; stdout by default).
  explicit Emitter(std::FILE* out = stdout) : out_(out) {}

  void Sample(const std::string& metric, double value);
  void Fingerprint(const std::string& hex16);
  void Check(bool passed, double max_rel_error, double tolerance, const std::string& detail);
  void Info(const std::string& key, const std::string& value);
  void Error(const std::string& error_class, const std::string& detail);
  void Error(const ExecError& e) { Error(e.error_class, e.detail); }
  // Writes one already-serialised JSON object (a session control line) as a line.
  void Json(const std::string& json) { Line(json); }

  // While `sink` is non-null, lines are appended to it instead of being written (not owned).
  void Capture(std::vector<std::string>* sink) { capture_ = sink; }

 private:
  void Line(const std::string& json);
  std::FILE* out_;
  std::vector<std::string>* capture_ = nullptr;
};

}  // namespace fleetsweep::torchbench
