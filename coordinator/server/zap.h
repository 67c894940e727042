// ZapAuthenticator: the ZeroMQ Authentication Protocol (RFC 27) handler that enforces the
// coordinator's authorised-keys list for CurveZMQ. It binds inproc://zeromq.zap.01 in the given
// context and answers on its own thread: "200" for a CURVE client whose public key is listed,
// "400" for anything else (so an unauthorised worker's connection never completes: it can
// neither receive leases nor submit results). The user id of an accepted peer is its public key
// in Z85, so each of its messages carries it as the "User-Id" property.
//
// Keys file: one Z85 public key (40 characters) per line; blank lines and '#' comments ignored.
// Ownership: does not own the context, which must outlive it. Stop() (or the destructor) joins.
#pragma once

#include <atomic>
#include <set>
#include <string>
#include <thread>

#include "common/status.h"
#include "common/util/keys.h"

namespace zmq {
class context_t;
}

namespace fleetsweep {

class ZapAuthenticator {
 public:
  explicit ZapAuthenticator(zmq::context_t* ctx) : ctx_(ctx) {}
  ~ZapAuthenticator() { Stop(); }
  ZapAuthenticator(const ZapAuthenticator&) = delete;
  ZapAuthenticator& operator=(const ZapAuthenticator&) = delete;

  // Loads the keys and starts the handler thread. Errors: kInvalidArgument for an unreadable
  // file or a malformed key (names file and line).
  Status Start(const std::string& authorized_keys_file);
  void Stop();
  int64_t denied() const { return denied_.load(); }
  int64_t allowed() const { return allowed_.load(); }

 private:
  void Loop();
  zmq::context_t* ctx_;
  std::set<std::string> keys_;  // 32-byte binary public keys
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> ready_{false};
  std::atomic<int64_t> denied_{0}, allowed_{0};
};

}  // namespace fleetsweep
