// libFuzzer target: the wire decoder (common/wire/wire.h). Any bytes decode or fail with
// kInvalidArgument / kFailedPrecondition; a decoded envelope re-encodes and decodes again to the
// same kind.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/wire/wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto env = fleetsweep::DecodeEnvelope(data, size);
  if (!env.ok()) {
    auto code = env.status().code();
    if (code != fleetsweep::StatusCode::kInvalidArgument &&
        code != fleetsweep::StatusCode::kFailedPrecondition) {
      std::abort();
    }
    return 0;
  }
  const char* kind = fleetsweep::EnvelopeKind(*env);
  if (kind == nullptr) std::abort();
  std::string again = fleetsweep::EncodeEnvelope(*env);
  auto env2 = fleetsweep::DecodeEnvelope(again.data(), again.size());
  if (!env2.ok() || std::strcmp(fleetsweep::EnvelopeKind(*env2), kind) != 0) std::abort();
  return 0;
}
