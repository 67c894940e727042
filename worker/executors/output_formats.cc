#include "worker/executors/output_formats.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string_view>

namespace fleetsweep {
namespace {

// The measurements in a `vllm bench serve` result (vllm/benchmarks/serve.py): throughputs and
// the mean/median/std/percentiles of ttft, tpot, itl, e2el. The rest (num_prompts, duration,
// completed, total_input_tokens, request_rate, ...) describes the run.
bool IsVllmMeasurement(const std::string& key) {
  static const std::set<std::string> kThroughputs = {
      "request_throughput",     "request_goodput",         "output_throughput",
      "total_token_throughput", "max_output_tokens_per_s", "max_concurrent_requests"};
  static const std::regex kLatency(
      R"((mean|median|std|p[0-9]+(\.[0-9]+)?)_(ttft|tpot|itl|e2el)_ms)");
  return kThroughputs.count(key) > 0 || std::regex_match(key, kLatency);
}

Status ParseVllmBench(const std::string& name, const std::string& contents, ProtocolState* state) {
  using Json = nlohmann::json;
  try {
    Json obj = Json::parse(contents, nullptr, /*allow_exceptions=*/false);
    if (obj.is_discarded() || !obj.is_object()) {
      return Status::InvalidArgument(name + ": not a JSON object (vllm-bench format)");
    }
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      const Json& v = it.value();
      if (v.is_number() && !v.is_boolean() && IsVllmMeasurement(it.key())) {
        double d = v.get<double>();
        if (std::isfinite(d)) state->AddSample(it.key(), d);
      } else if (v.is_string() || v.is_number() || v.is_boolean()) {
        ProtocolRecord rec;
        rec.kind = ProtocolKind::kInfo;
        rec.key = it.key();
        rec.text = v.is_string() ? v.get<std::string>() : v.dump();
        state->Add(rec);
      }
    }
    return Status::Ok();
  } catch (const std::exception& e) {
    return Status::InvalidArgument(name + ": " + e.what());
  }
}

}  // namespace

Status ParseOutputFile(const std::string& format, const std::string& name,
                       const std::string& contents, ProtocolState* state) {
  if (format == "protocol") {
    std::string_view rest(contents);
    while (!rest.empty()) {
      size_t nl = rest.find('\n');
      state->Feed(rest.substr(0, nl));
      if (nl == std::string_view::npos) break;
      rest.remove_prefix(nl + 1);
    }
    return Status::Ok();
  }
  if (format == "vllm-bench") return ParseVllmBench(name, contents, state);
  return Status::InvalidArgument(name + ": unknown output format '" + format + "'");
}

}  // namespace fleetsweep
