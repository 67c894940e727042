// libFuzzer target: the sweep-spec parser (common/space/spec.h). Any bytes must parse or fail
// with kInvalidArgument and a "SOURCE:LINE:COLUMN: ..." message; never crash, hang or leak.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/space/spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;  // specs are small; long inputs only slow the search down
  std::string text(reinterpret_cast<const char*>(data), size);
  auto spec = fleetsweep::ParseSpecText(text, "<fuzz>");
  if (!spec.ok()) {
    if (spec.status().code() != fleetsweep::StatusCode::kInvalidArgument) std::abort();
    if (spec.status().message().rfind("<fuzz>", 0) != 0) std::abort();
    return 0;
  }
  if (spec->metrics.empty()) std::abort();  // the parser promises at least one metric
  return 0;
}
