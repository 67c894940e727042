// Connection: the worker's link to the coordinator. Owns the ZeroMQ DEALER socket (CurveZMQ
// when configured), says hello (again every hello_retry seconds until acknowledged, and after a
// Reject: a restarted coordinator no longer knows this worker), and sends heartbeats every
// heartbeat interval (from HelloAck) while acknowledged.
//
// A peer of another wire protocol version is fatal: a message stamped with another version, or a
// Reject that says the coordinator speaks another version, sets fatal() (naming both versions);
// the agent then stops instead of saying hello forever.
//
// Time comes from the injected Clock; Tick() does what is due and NextTimer() says when the next
// thing is due, so the event loop sleeps exactly until then (no fixed-interval polling).
//
// Ownership: the zmq context and clock are not owned and must outlive the connection.
// Thread-safety: none; the agent's loop thread owns it. Errors: Open() returns
// kInvalidArgument for a bad endpoint or Curve keys; sends never throw (failures are logged).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <zmq.hpp>

#include "common/status.h"
#include "fleetsweep/v1/wire.pb.h"
#include "worker/agent/clock.h"

namespace fleetsweep {

struct CurveClientOptions {
  bool enabled = false;
  std::string server_public_key_z85;
  std::string public_key_z85;
  std::string secret_key_z85;
};

struct ConnectionOptions {
  std::string coordinator;
  std::string worker_id;
  CurveClientOptions curve;
  v1::NodeInfo node;         // sent in every Hello
  double hello_retry = 2.0;  // seconds between hellos until acknowledged
};

class Connection {
 public:
  Connection(zmq::context_t* ctx, ConnectionOptions options, const Clock* clock);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Connects the socket and sends the first hello.
  Status Open();
  // Sends one envelope; never blocks.
  void Send(v1::Envelope env);
  void SendBytes(const std::string& bytes);
  // The next decoded message, or nullopt when none is waiting (or the connection is fatal).
  // Undecodable messages are logged and skipped. Every received message refreshes last_heard().
  std::optional<v1::Envelope> Receive();

  void OnHelloAck(const v1::HelloAck& ack);
  // A Reject: about the protocol version (speaks_protocol_version set to another version): fatal.
  // Otherwise the coordinator does not know us (restart): hello again (at most every 0.5 s).
  void OnReject(const v1::Reject& reject);
  // Sends the hello or heartbeat that is due; fill_heartbeat adds the running leases.
  void Tick(const std::function<void(v1::Heartbeat*)>& fill_heartbeat);
  double NextTimer() const;

  bool acked() const { return acked_; }
  // kFailedPrecondition once the coordinator turned out to speak another protocol version.
  const Status& fatal() const { return fatal_; }
  double last_heard() const { return last_heard_; }
  const std::string& coordinator_id() const { return coordinator_id_; }
  zmq::socket_t& socket() { return sock_; }

 private:
  void Hello();

  ConnectionOptions options_;
  const Clock* clock_;
  zmq::socket_t sock_;
  bool acked_ = false;
  std::string coordinator_id_;
  double heartbeat_interval_ = 1.0;
  double last_hello_ = -1e18;
  double last_heartbeat_ = -1e18;
  double last_heard_;
  Status fatal_;
};

}  // namespace fleetsweep
