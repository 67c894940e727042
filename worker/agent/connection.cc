#include "worker/agent/connection.h"

#include <algorithm>

#include "common/wire/wire.h"
#include "spdlog/spdlog.h"

namespace fleetsweep {

Connection::Connection(zmq::context_t* ctx, ConnectionOptions options, const Clock* clock)
    : options_(std::move(options)),
      clock_(clock),
      sock_(*ctx, zmq::socket_type::dealer),
      last_heard_(clock->Now()) {}

Status Connection::Open() {
  try {
    sock_.set(zmq::sockopt::routing_id, options_.worker_id);
    sock_.set(zmq::sockopt::linger, 2000);
    // A worker often starts before its coordinator listens (`fleetsweep run` starts both at
    // once): retry soon, then back off (doubling up to reconnect_ivl_max).
    sock_.set(zmq::sockopt::reconnect_ivl, 10);
    sock_.set(zmq::sockopt::reconnect_ivl_max, 2000);
    if (options_.curve.enabled) {
      sock_.set(zmq::sockopt::curve_serverkey, options_.curve.server_public_key_z85);
      sock_.set(zmq::sockopt::curve_publickey, options_.curve.public_key_z85);
      sock_.set(zmq::sockopt::curve_secretkey, options_.curve.secret_key_z85);
    }
    sock_.connect(options_.coordinator);
  } catch (const zmq::error_t& e) {
    return Status::InvalidArgument("worker: cannot connect to " + options_.coordinator + ": " +
                                   e.what());
  }
  Hello();
  return Status::Ok();
}

void Connection::SendBytes(const std::string& bytes) {
  try {
    sock_.send(zmq::buffer(bytes), zmq::send_flags::dontwait);
  } catch (const zmq::error_t& e) {
    spdlog::warn("worker: send failed: {}", e.what());
  }
}

void Connection::Send(v1::Envelope env) { SendBytes(EncodeEnvelope(std::move(env))); }

std::optional<v1::Envelope> Connection::Receive() {
  while (fatal_.ok()) {
    zmq::message_t msg;
    try {
      if (!sock_.recv(msg, zmq::recv_flags::dontwait)) return std::nullopt;
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) continue;
      spdlog::warn("worker: receive failed: {}", e.what());
      return std::nullopt;
    }
    auto env = DecodeEnvelope(msg.data(), msg.size());
    if (env.status().code() == StatusCode::kFailedPrecondition) {
      fatal_ = Status::FailedPrecondition("worker: coordinator " + options_.coordinator + ": " +
                                          env.status().message());
      return std::nullopt;
    }
    if (!env.ok()) {
      spdlog::warn("worker: ignored a bad message from the coordinator: {}",
                   env.status().message());
      continue;
    }
    last_heard_ = clock_->Now();
    return std::move(env).value();
  }
  return std::nullopt;
}

void Connection::Hello() {
  v1::Envelope e;
  *e.mutable_hello()->mutable_node() = options_.node;
  Send(std::move(e));
  last_hello_ = clock_->Now();
}

void Connection::OnHelloAck(const v1::HelloAck& ack) {
  acked_ = true;
  coordinator_id_ = ack.coordinator_id();
  heartbeat_interval_ = std::max(0.05, ack.heartbeat_interval_seconds());
}

void Connection::OnReject(const v1::Reject& reject) {
  const uint32_t theirs = reject.speaks_protocol_version();
  if (theirs != 0 && theirs != kProtocolVersion) {
    fatal_ = Status::FailedPrecondition(
        "worker: coordinator " + options_.coordinator + " speaks wire protocol version " +
        std::to_string(theirs) + "; this worker speaks version " +
        std::to_string(kProtocolVersion) + " (it says: " + reject.reason().substr(0, 500) + ")");
    return;
  }
  if (clock_->Now() - last_hello_ > 0.5) {
    acked_ = false;
    Hello();
  }
}

void Connection::Tick(const std::function<void(v1::Heartbeat*)>& fill_heartbeat) {
  const double now = clock_->Now();
  if (!acked_ && now - last_hello_ >= options_.hello_retry) Hello();
  if (acked_ && now - last_heartbeat_ >= heartbeat_interval_) {
    v1::Envelope e;
    fill_heartbeat(e.mutable_heartbeat());
    Send(std::move(e));
    last_heartbeat_ = now;
  }
}

double Connection::NextTimer() const {
  if (!acked_) return last_hello_ + options_.hello_retry;
  return last_heartbeat_ + heartbeat_interval_;
}

}  // namespace fleetsweep
