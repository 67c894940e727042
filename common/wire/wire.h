// Wire framing: one ZeroMQ message carries one serialized v1::Envelope (protocol version 2; the
// proto comments and docs/design.md "Wire protocol" describe the messages).
//
// Encode stamps kProtocolVersion. Decode rejects (never crashes on) empty, oversized, truncated or
// garbage input with kInvalidArgument, and another protocol version with kFailedPrecondition
// whose message names both versions (and the peer's Reject reason when the message is one); the
// version found is reported through `peer_version` when given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/status.h"
#include "fleetsweep/v1/wire.pb.h"

namespace fleetsweep {

constexpr uint32_t kProtocolVersion = 2;
constexpr size_t kMaxWireMessageBytes = 64u << 20;  // 64 MiB
// Leases a worker slot may ask for ahead (fleetsweep-worker --prefetch). A prefetched lease waits
// behind at most this many leases of its slot plus the running one, so a coordinator renews a
// waiting lease for at most (kMaxPrefetchPerSlot + 1) lease lengths after its grant.
constexpr int kMaxPrefetchPerSlot = 16;

std::string EncodeEnvelope(v1::Envelope envelope);
// As EncodeEnvelope, stamping *envelope's version in place instead of taking a copy.
std::string EncodeEnvelopeInPlace(v1::Envelope* envelope);
StatusOr<v1::Envelope> DecodeEnvelope(const void* data, size_t size,
                                      uint32_t* peer_version = nullptr);

// The Reject to answer a message of protocol `peer_version` with: names both versions and sets
// speaks_protocol_version. Stamped with the peer's version when it is an older one (1 ..
// kProtocolVersion - 1: Reject's layout is frozen, so that peer can read it), else with ours.
std::string EncodeVersionReject(uint32_t peer_version);

// Name of the body case, for logs ("hello", "leases", ...).
const char* EnvelopeKind(const v1::Envelope& envelope);

// The spec hash of a spec text (Hex16 of its FNV-1a 64), as leases and SpecText carry it.
std::string SpecHash(const std::string& spec_yaml);

}  // namespace fleetsweep
