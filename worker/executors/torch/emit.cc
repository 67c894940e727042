#include "worker/executors/torch/emit.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace fleetsweep::torchbench {

namespace {
// JSON has no NaN/Inf: write them as null so the line stays parseable.
nlohmann::ordered_json Number(double v) {
  if (std::isfinite(v)) return v;
  return nullptr;
}
}  // namespace

void Emitter::Line(const std::string& json) {
  if (capture_ != nullptr) {
    capture_->push_back(json);
    return;
  }
  std::fputs(json.c_str(), out_);
  std::fputc('\n', out_);
  std::fflush(out_);
}

void Emitter::Sample(const std::string& metric, double value) {
  Line(nlohmann::ordered_json{{"type", "sample"}, {"metric", metric}, {"value", Number(value)}}
           .dump());
}

void Emitter::Fingerprint(const std::string& hex16) {
  Line(nlohmann::ordered_json{{"type", "fingerprint"}, {"value", hex16}}.dump());
}

void Emitter::Check(bool passed, double max_rel_error, double tolerance,
                    const std::string& detail) {
  Line(nlohmann::ordered_json{{"type", "check"},
                              {"passed", passed},
                              {"max_rel_error", Number(max_rel_error)},
                              {"tolerance", tolerance},
                              {"detail", detail}}
           .dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

void Emitter::Info(const std::string& key, const std::string& value) {
  Line(nlohmann::ordered_json{{"type", "info"}, {"key", key}, {"value", value}}.dump(
      -1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

void Emitter::Error(const std::string& error_class, const std::string& detail) {
  Line(nlohmann::ordered_json{{"type", "error"}, {"class", error_class}, {"detail", detail}}.dump(
      -1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

}  // namespace fleetsweep::torchbench
