// libFuzzer target: what a benchmark prints (worker/executors/bench_protocol.h) and the result
// file formats (output_formats.h: protocol, vllm-bench). The first byte picks the path; the rest
// is the output. Never crashes; samples stay finite and bounded.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "worker/executors/bench_protocol.h"
#include "worker/executors/output_formats.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int mode = data[0] % 3;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  fleetsweep::ProtocolState state;
  if (mode == 0) {
    // stdout: line by line, as the exec executor feeds it.
    size_t start = 0;
    while (start <= text.size()) {
      size_t nl = text.find('\n', start);
      if (nl == std::string_view::npos) nl = text.size();
      std::string_view line = text.substr(start, nl - start);
      auto rec = fleetsweep::ParseProtocolLine(line);
      if (!rec.ok() && rec.status().code() != fleetsweep::StatusCode::kInvalidArgument) {
        std::abort();
      }
      state.Feed(line);
      start = nl + 1;
    }
  } else {
    const char* format = mode == 1 ? "vllm-bench" : "protocol";
    fleetsweep::Status s =
        fleetsweep::ParseOutputFile(format, "fuzz.json", std::string(text), &state);
    if (!s.ok() && s.code() != fleetsweep::StatusCode::kInvalidArgument) std::abort();
  }
  if (state.samples().size() > fleetsweep::ProtocolState::kMaxSamples) std::abort();
  for (const auto& s : state.samples()) {
    if (!std::isfinite(s.value)) std::abort();
  }
  return 0;
}
