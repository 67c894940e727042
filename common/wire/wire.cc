#include "common/wire/wire.h"

#include "common/space/value.h"

namespace fleetsweep {

std::string EncodeEnvelope(v1::Envelope envelope) { return EncodeEnvelopeInPlace(&envelope); }

std::string EncodeEnvelopeInPlace(v1::Envelope* envelope) {
  envelope->set_protocol_version(kProtocolVersion);
  std::string out;
  FS_CHECK(envelope->SerializeToString(&out));
  return out;
}

StatusOr<v1::Envelope> DecodeEnvelope(const void* data, size_t size, uint32_t* peer_version) {
  if (size == 0) return Status::InvalidArgument("wire: empty message");
  if (size > kMaxWireMessageBytes) {
    return Status::InvalidArgument("wire: message of " + std::to_string(size) +
                                   " bytes exceeds the limit of " +
                                   std::to_string(kMaxWireMessageBytes));
  }
  v1::Envelope env;
  if (!env.ParseFromArray(data, static_cast<int>(size))) {
    return Status::InvalidArgument("wire: message of " + std::to_string(size) +
                                   " bytes is not a valid fleetsweep.v1.Envelope");
  }
  if (peer_version) *peer_version = env.protocol_version();
  if (env.protocol_version() != kProtocolVersion) {
    std::string msg = "wire: the peer speaks protocol version " +
                      std::to_string(env.protocol_version()) + "; this build speaks version " +
                      std::to_string(kProtocolVersion);
    if (env.has_reject()) msg += " (the peer says: " + env.reject().reason().substr(0, 500) + ")";
    return Status::FailedPrecondition(msg);
  }
  if (env.body_case() == v1::Envelope::BODY_NOT_SET) {
    return Status::InvalidArgument("wire: envelope without a body");
  }
  return env;
}

std::string EncodeVersionReject(uint32_t peer_version) {
  v1::Envelope env;
  env.mutable_reject()->set_reason("protocol version " + std::to_string(peer_version) +
                                   " is not supported: this coordinator speaks version " +
                                   std::to_string(kProtocolVersion));
  env.mutable_reject()->set_speaks_protocol_version(kProtocolVersion);
  const bool older = peer_version >= 1 && peer_version < kProtocolVersion;
  env.set_protocol_version(older ? peer_version : kProtocolVersion);
  std::string out;
  FS_CHECK(env.SerializeToString(&out));
  return out;
}

std::string SpecHash(const std::string& spec_yaml) { return Hex16(Fnv1a64(spec_yaml)); }

const char* EnvelopeKind(const v1::Envelope& e) {
  switch (e.body_case()) {
    case v1::Envelope::kHello:
      return "hello";
    case v1::Envelope::kHelloAck:
      return "hello_ack";
    case v1::Envelope::kWorkRequest:
      return "work_request";
    case v1::Envelope::kLeases:
      return "leases";
    case v1::Envelope::kNoWork:
      return "no_work";
    case v1::Envelope::kHeartbeat:
      return "heartbeat";
    case v1::Envelope::kHeartbeatAck:
      return "heartbeat_ack";
    case v1::Envelope::kResults:
      return "results";
    case v1::Envelope::kResultAcks:
      return "result_acks";
    case v1::Envelope::kSpecRequest:
      return "spec_request";
    case v1::Envelope::kSpec:
      return "spec";
    case v1::Envelope::kReject:
      return "reject";
    case v1::Envelope::kShutdown:
      return "shutdown";
    case v1::Envelope::BODY_NOT_SET:
      return "none";
  }
  return "unknown";
}

}  // namespace fleetsweep
