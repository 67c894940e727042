#include "common/wire/wire.h"

namespace fleetsweep {

std::string EncodeEnvelope(v1::Envelope envelope) {
  envelope.set_protocol_version(kProtocolVersion);
  std::string out;
  FS_CHECK(envelope.SerializeToString(&out));
  return out;
}

StatusOr<v1::Envelope> DecodeEnvelope(const void* data, size_t size) {
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
  if (env.protocol_version() != kProtocolVersion) {
    return Status::FailedPrecondition(
        "wire: protocol version " + std::to_string(env.protocol_version()) +
        " is not supported (this build speaks " + std::to_string(kProtocolVersion) + ")");
  }
  if (env.body_case() == v1::Envelope::BODY_NOT_SET) {
    return Status::InvalidArgument("wire: envelope without a body");
  }
  return env;
}

const char* EnvelopeKind(const v1::Envelope& e) {
  switch (e.body_case()) {
    case v1::Envelope::kHello:
      return "hello";
    case v1::Envelope::kHelloAck:
      return "hello_ack";
    case v1::Envelope::kWorkRequest:
      return "work_request";
    case v1::Envelope::kLease:
      return "lease";
    case v1::Envelope::kNoWork:
      return "no_work";
    case v1::Envelope::kHeartbeat:
      return "heartbeat";
    case v1::Envelope::kHeartbeatAck:
      return "heartbeat_ack";
    case v1::Envelope::kResult:
      return "result";
    case v1::Envelope::kResultAck:
      return "result_ack";
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
