#include "worker/executors/torch/serve.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <vector>

namespace fleetsweep::torchbench {

namespace {

using json = nlohmann::json;

// Reads one line (without its newline) into *line; false at end of input with nothing read.
// A line longer than kMaxRequestBytes is read to its end but not kept: *too_long is set.
bool ReadLine(std::FILE* in, std::string* line, bool* too_long) {
  line->clear();
  *too_long = false;
  char buf[64 * 1024];
  bool any = false;
  while (std::fgets(buf, sizeof(buf), in) != nullptr) {
    any = true;
    size_t n = std::strlen(buf);
    const bool complete = n > 0 && buf[n - 1] == '\n';
    if (complete) --n;
    if (!*too_long) {
      if (line->size() + n > kMaxRequestBytes) {
        *too_long = true;
        line->clear();
      } else {
        line->append(buf, n);
      }
    }
    if (complete) return true;
  }
  return any;
}

bool Blank(const std::string& s) { return s.find_first_not_of(" \t\r") == std::string::npos; }

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// A parsed request. `id` is the attempt_id as JSON text ("" when the request had none).
struct Request {
  std::string kind;
  std::string id;
  std::map<std::string, std::string> params;
};

// Empty on success, else what is wrong with the request (r->id is set whenever it could be).
std::string ParseRequest(const std::string& line, bool too_long, Request* r) {
  if (too_long) {
    return "request line longer than " + std::to_string(kMaxRequestBytes) + " bytes";
  }
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return "request line is not JSON: " + line.substr(0, 200);
  if (!j.is_object()) return "request is not a JSON object: " + line.substr(0, 200);
  auto id = j.find("attempt_id");
  if (id != j.end() && !id->is_null()) r->id = Dump(*id);
  auto kind = j.find("fleetsweep");
  if (kind == j.end() || !kind->is_string()) {
    return "request without a \"fleetsweep\" kind: " + line.substr(0, 200);
  }
  r->kind = kind->get<std::string>();
  if (r->kind != "prepare" && r->kind != "run" && r->kind != "device_granted") {
    return "unknown request kind '" + r->kind + "' (expected prepare or run)";
  }
  if (r->id.empty()) return r->kind + " request without attempt_id";
  if (r->kind != "prepare") return "";
  auto params = j.find("params");
  if (params == j.end() || params->is_null()) return "";
  if (!params->is_object()) return "prepare request: params is not a JSON object";
  for (const auto& [name, value] : params->items()) {
    if (value.is_string()) {
      r->params[name] = value.get<std::string>();
    } else if (value.is_number() || value.is_boolean()) {
      r->params[name] = Dump(value);  // tolerated: 64 -> "64", true -> "true"
    } else {
      return "prepare request: parameter '" + name + "' is not a string";
    }
  }
  return "";
}

// `status`: on an end line, the exit status one-shot would have had (omitted when 0).
std::string ControlLine(const char* kind, const std::string& id, int status = 0) {
  std::string s = std::string("{\"fleetsweep\":\"") + kind + "\"";
  if (!id.empty()) s += ",\"attempt_id\":" + id;
  if (status != 0) s += ",\"status\":" + std::to_string(status);
  return s + "}";
}

bool Contains(const std::string& s, const char* needle) {
  return s.find(needle) != std::string::npos;
}

// The answer AwaitDevice returns when the device was granted (any other value is an exit status).
constexpr int kDeviceGranted = -1;

// Asks the worker for the device (a "device" line naming attempt `id`; none for the session's
// start) and reads its answer: kDeviceGranted; kExitOk when stdin ended (the worker closed the
// session); kExitInvalid, after a bad_request error line, for anything but a device_granted (for
// an execution, one naming `id`).
int AwaitDevice(std::FILE* in, Emitter& out, const std::string& id) {
  out.Json(ControlLine("device", id));
  std::string line;
  bool too_long = false;
  if (!ReadLine(in, &line, &too_long)) return kExitOk;
  Request answer;
  const std::string wrong = ParseRequest(line, too_long, &answer);
  if (wrong.empty() && answer.kind == "device_granted" && (id.empty() || answer.id == id)) {
    return kDeviceGranted;
  }
  out.Error("bad_request", "expected device_granted " +
                               (id.empty() ? std::string("before ready") : "for " + id) +
                               ", got: " + (wrong.empty() ? line.substr(0, 200) : wrong));
  return kExitInvalid;
}

// Prepares each --prewarm set once (the options' values for every other parameter) through
// `guarded` (ServeSession's exception guard), dropping what the sets print and forgetting each;
// returns the `prewarm` info line's text: how long it took, and the sets that failed.
template <typename Guarded>
std::string PrewarmSets(ExecutionServer& server, const BenchOptions& options, Emitter& out,
                        Guarded& guarded) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> dropped;
  std::string failed;
  for (const auto& set : options.prewarm) {
    out.Capture(&dropped);
    const int rc = guarded([&] { return server.Prepare(WithParams(options, set)); });
    out.Capture(nullptr);
    server.Forget();
    dropped.clear();
    if (rc == kExitOk) continue;
    std::string text;
    for (const auto& [name, value] : set) text += (text.empty() ? "" : ",") + name + "=" + value;
    failed += (failed.empty() ? "" : "; ") + text + " (exit " + std::to_string(rc) + ")";
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  char b[96];
  std::snprintf(b, sizeof b, "%zu sets in %.1f ms", options.prewarm.size(), ms);
  return std::string(b) + (failed.empty() ? "" : ", failed: " + failed);
}

}  // namespace

ExceptionReport DescribeException(const std::exception& e) {
  ExceptionReport r;
  r.detail = e.what();
  auto nl = r.detail.find("\nException raised from");  // c10::Error appends a C++ backtrace
  if (nl != std::string::npos) r.detail.resize(nl);
  const bool oom = Contains(r.detail, "out of memory") || Contains(r.detail, "OutOfMemory");
  r.error_class = oom ? "out_of_memory" : "runtime_error";
  r.fatal =
      !oom &&
      (Contains(r.detail, "CUDA error") || Contains(r.detail, "CUDA kernel errors") ||
       Contains(r.detail, "device-side assert") || Contains(r.detail, "illegal memory access") ||
       Contains(r.detail, "unspecified launch failure") || Contains(r.detail, "CUBLAS_STATUS") ||
       Contains(r.detail, "CUDNN_STATUS") || Contains(r.detail, "cuDNN error"));
  return r;
}

int ServeSession(ExecutionServer& server, const BenchOptions& options, std::FILE* in,
                 Emitter& out) {
  std::vector<std::string> held;  // the prepared execution's lines, written at its run
  auto release = [&] {
    out.Capture(nullptr);
    for (const auto& l : held) out.Json(l);
    held.clear();
  };
  // Runs one phase; an exception becomes its error line (or ends the process).
  auto guarded = [&](auto&& phase) -> int {
    try {
      return phase();
    } catch (const std::exception& e) {
      ExceptionReport r = DescribeException(e);
      if (r.fatal) {
        release();
        out.Error(r.error_class,
                  r.detail + " (the CUDA context may be unusable: the session ends)");
        std::fflush(stdout);
        std::_Exit(kExitRuntimeError);
      }
      if (r.error_class == "out_of_memory") server.DropCaches();
      out.Error(r.error_class, r.detail);
      return kExitRuntimeError;
    } catch (...) {
      release();
      out.Error("runtime_error", "unknown exception (the session ends)");
      std::fflush(stdout);
      std::_Exit(kExitRuntimeError);
    }
  };

  // Before ready, the session prepares each --prewarm set once (untimed; a server that uses the
  // device first asks for it and waits for device_granted, the worker's timing gate held until
  // ready), with the options' values for every other parameter. Their kernels' first launches of
  // new shapes (cuBLAS chooses and loads per shape, 10-20 ms for a fused-MoE level on an H100,
  // docs/gpu-results.md) and the inputs they build are then paid by the session's start, once,
  // instead of by each configuration's first execution. What the sets print is dropped; the
  // `prewarm` info line (before ready: every execution of the session carries it) says how long
  // it took and names a set that failed.
  if (!options.prewarm.empty()) {
    if (server.UsesDevice()) {
      const int device = AwaitDevice(in, out, "");
      if (device != kDeviceGranted) return device;
    }
    out.Info("prewarm", PrewarmSets(server, options, out, guarded));
  }

  out.Json(ControlLine("ready", ""));
  std::string prepared_id;  // attempt id (JSON text) of the prepared execution, "" when none
  std::string line;
  bool too_long = false;
  while (ReadLine(in, &line, &too_long)) {
    if (!too_long && Blank(line)) continue;
    Request req;
    const std::string bad = ParseRequest(line, too_long, &req);
    if (!bad.empty()) {
      out.Error("bad_request", bad);
      out.Json(ControlLine("end", req.id));
      continue;
    }
    if (req.kind == "device_granted") {  // only valid as the answer to a device request
      out.Error("bad_request", "device_granted " + req.id + " without a device request");
      out.Json(ControlLine("end", req.id));
      continue;
    }
    if (req.kind == "prepare") {
      server.Forget();
      held.clear();
      prepared_id.clear();
      if (server.UsesDevice()) {
        const int device = AwaitDevice(in, out, req.id);
        if (device == kExitOk) break;  // the worker closed the session
        if (device != kDeviceGranted) return device;
      }
      const BenchOptions exec = WithParams(options, req.params);
      out.Capture(&held);
      const int rc = guarded([&] { return server.Prepare(exec); });
      out.Capture(nullptr);
      if (rc == kExitOk) {
        prepared_id = req.id;
        out.Json(ControlLine("prepared", req.id));
      } else {
        server.Forget();
        release();
        out.Json(ControlLine("end", req.id, rc));
      }
      continue;
    }
    // run
    if (prepared_id.empty() || req.id != prepared_id) {
      out.Error("bad_request", "run " + req.id + " without a successful prepare of it" +
                                   (prepared_id.empty() ? "" : " (prepared: " + prepared_id + ")"));
      out.Json(ControlLine("end", req.id));
      continue;
    }
    prepared_id.clear();
    release();
    const int rc = guarded([&] { return server.Run(); });
    server.Forget();
    out.Json(ControlLine("end", req.id, rc));
  }
  std::fflush(stdout);
  return kExitOk;
}

}  // namespace fleetsweep::torchbench
