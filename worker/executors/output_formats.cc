#include "worker/executors/output_formats.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <string_view>

namespace fleetsweep {
namespace {

Status ParseVllmBench(const std::string& name, const std::string& contents, ProtocolState* state) {
  using Json = nlohmann::json;
  try {
    Json obj = Json::parse(contents, nullptr, /*allow_exceptions=*/false);
    if (obj.is_discarded() || !obj.is_object()) {
      return Status::InvalidArgument(name + ": not a JSON object (vllm-bench format)");
    }
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      const Json& v = it.value();
      if (v.is_number() && !v.is_boolean()) {
        double d = v.get<double>();
        if (std::isfinite(d)) state->AddSample(it.key(), d);
      } else if (v.is_string()) {
        ProtocolRecord rec;
        rec.kind = ProtocolKind::kInfo;
        rec.key = it.key();
        rec.text = v.get<std::string>();
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
