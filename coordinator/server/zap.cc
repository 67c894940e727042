#include "coordinator/server/zap.h"

#include <chrono>
#include <vector>
#include <zmq.hpp>

#include "spdlog/spdlog.h"

namespace fleetsweep {

Status ZapAuthenticator::Start(const std::string& file) {
  auto keys = ReadKeyLines(file);
  if (!keys.ok()) return keys.status().WithContext("authorised keys");
  for (const auto& k : *keys) keys_.insert(DecodeZ85Key(k));
  thread_ = std::thread([this] { Loop(); });
  while (!ready_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  spdlog::info("curve: {} authorised worker keys loaded from {}", keys_.size(), file);
  return Status::Ok();
}

void ZapAuthenticator::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void ZapAuthenticator::Loop() {
  zmq::socket_t rep(*ctx_, zmq::socket_type::rep);
  rep.set(zmq::sockopt::linger, 0);
  rep.bind("inproc://zeromq.zap.01");
  ready_.store(true);
  zmq::pollitem_t items[] = {{static_cast<void*>(rep), 0, ZMQ_POLLIN, 0}};
  while (!stop_.load()) {
    try {
      zmq::poll(items, 1, std::chrono::milliseconds(100));
      if (!(items[0].revents & ZMQ_POLLIN)) continue;
      std::vector<zmq::message_t> frames;
      do {
        zmq::message_t m;
        (void)rep.recv(m, zmq::recv_flags::none);
        frames.push_back(std::move(m));
      } while (frames.back().more());
      // version, request id, domain, address, identity, mechanism, credentials...
      std::string request_id = frames.size() > 1 ? frames[1].to_string() : "";
      bool ok = false;
      if (frames.size() >= 7 && frames[5].to_string() == "CURVE" && frames[6].size() == 32) {
        ok = keys_.count(frames[6].to_string()) > 0;
      }
      (ok ? allowed_ : denied_)++;
      if (!ok)
        spdlog::warn("curve: refused a connection from {} (key not authorised)",
                     frames.size() > 3 ? frames[3].to_string() : "?");
      rep.send(zmq::str_buffer("1.0"), zmq::send_flags::sndmore);
      rep.send(zmq::buffer(request_id), zmq::send_flags::sndmore);
      rep.send(zmq::buffer(std::string(ok ? "200" : "400")), zmq::send_flags::sndmore);
      rep.send(zmq::buffer(std::string(ok ? "OK" : "key not authorised")),
               zmq::send_flags::sndmore);
      // User id = the client's public key (Z85): every message from that peer carries it as the
      // "User-Id" property, which binds leases to the key (coordinator/server/server.cc).
      std::string user_id;
      if (ok) {
        char z85[41] = {0};
        if (zmq_z85_encode(z85, static_cast<const uint8_t*>(frames[6].data()), 32)) user_id = z85;
      }
      rep.send(zmq::buffer(user_id), zmq::send_flags::sndmore);
      rep.send(zmq::str_buffer(""), zmq::send_flags::none);
    } catch (const zmq::error_t& e) {
      if (e.num() == ETERM) break;
      spdlog::warn("curve: ZAP handler: {}", e.what());
    }
  }
}

}  // namespace fleetsweep
