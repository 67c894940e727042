// Wire framing: one ZeroMQ message carries one serialized v1::Envelope.
//
// Encode stamps kProtocolVersion. Decode rejects (never crashes on) empty, oversized, truncated or
// garbage input with kInvalidArgument, and a different protocol version with kFailedPrecondition;
// the message says which.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/status.h"
#include "fleetsweep/v1/wire.pb.h"

namespace fleetsweep {

constexpr uint32_t kProtocolVersion = 1;
constexpr size_t kMaxWireMessageBytes = 64u << 20;  // 64 MiB
// Leases a worker slot may ask for ahead (fleetsweep-worker --prefetch). A prefetched lease waits
// behind at most this many leases of its slot plus the running one, so a coordinator renews a
// waiting lease for at most (kMaxPrefetchPerSlot + 1) lease lengths after its grant.
constexpr int kMaxPrefetchPerSlot = 16;

std::string EncodeEnvelope(v1::Envelope envelope);
StatusOr<v1::Envelope> DecodeEnvelope(const void* data, size_t size);

// Name of the body case, for logs ("hello", "lease", ...).
const char* EnvelopeKind(const v1::Envelope& envelope);

}  // namespace fleetsweep
