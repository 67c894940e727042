// CoordinatorServer: the ZeroMQ ROUTER front of the Scheduler.
//
// Each incoming message is [worker routing id][Envelope bytes]. The server decodes, dispatches to
// the scheduler and replies on the same routing id: a WorkRequest with one Leases message (every
// lease granted) or NoWork; a SpecRequest with the spec; the results of everything received in
// one wake-up (several Results messages, several results each) with one ResultAcks per worker,
// sent only after the wake-up's store writes (attempts, then configuration records) completed,
// and naming only results whose attempts are durable (or were refused, or counted before).
// With a WriteBehindStore (SetDurability) those writes only queue: the server goes on serving
// (leases are granted while the store fsyncs) and holds each wake-up's acks until the store's
// durable ticket reaches the wake-up's last accepted write (woken by the store's notify fd).
// A malformed message is answered with Reject and otherwise ignored (logged, rate-limited); one
// of another protocol version with a Reject that names both versions (EncodeVersionReject): it
// never stops the server.
// A worker that is not known (e.g. after a coordinator restart) is told to say hello again; its
// results are not taken before it has. With CurveZMQ each message's authenticated public key
// (the ZAP user id) is passed to the scheduler, which binds leases to it.
//
// Ownership: the server does not own the scheduler. Not thread-safe: Serve() runs on one thread;
// Stop may be requested from any thread through the atomic flag.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "common/status.h"
#include "coordinator/scheduler/scheduler.h"

namespace zmq {
class context_t;
class socket_t;
}  // namespace zmq

namespace fleetsweep {

class WriteBehindStore;  // common/store/write_behind_store.h

struct CurveServerOptions {
  bool enabled = false;
  std::string secret_key_z85;        // the coordinator's secret key (40 chars)
  std::string authorized_keys_file;  // one Z85 public key per line ('#' comments)
};

struct ServerOptions {
  std::string bind = "tcp://127.0.0.1:0";
  CurveServerOptions curve;
  bool exit_when_done = false;  // return from Serve once finished and workers were told
  double drain_seconds = 15;    // after finishing, wait this long at most for running leases
  // A coordinator that finished before any worker said hello (a restart that found every
  // execution already stored) serves this long, telling every worker that reconnects to stop:
  // otherwise cluster workers started with --exit-when-finished would wait for it forever.
  // fleetsweep-coordinator sets 5 s; `fleetsweep run` keeps 0 (it stops its own workers).
  double unheard_linger_seconds = 0;
};

class CoordinatorServer {
 public:
  CoordinatorServer(Scheduler* scheduler, ServerOptions options, std::function<double()> clock);
  ~CoordinatorServer();
  CoordinatorServer(const CoordinatorServer&) = delete;
  CoordinatorServer& operator=(const CoordinatorServer&) = delete;

  // Binds the ROUTER socket (and starts the ZAP authenticator when curve is on).
  // Errors: kUnavailable (address in use, bad endpoint), kInvalidArgument (bad keys).
  Status Bind();
  // The endpoint actually bound ("tcp://127.0.0.1:41234"), valid after Bind().
  std::string endpoint() const { return endpoint_; }

  // Serves until *stop is true, or (exit_when_done) the sweep is finished and every worker was
  // sent Shutdown. `on_tick` runs about every 100 ms on the serving thread.
  Status Serve(const std::atomic<bool>& stop, const std::function<void()>& on_tick);

  int64_t rejected_messages() const { return rejected_; }
  // The store the scheduler writes through, when it is a WriteBehindStore (borrowed; must
  // outlive Serve): acks wait for its durability. Call before Serve.
  void SetDurability(WriteBehindStore* store) { durability_ = store; }

 private:
  struct Incoming {
    std::string routing_id, identity;
    StatusOr<v1::Envelope> envelope;
    uint32_t peer_version = 0;
  };
  static constexpr int kMaxBatch = 10000;  // messages taken per wake-up
  // Receives what is queued, stores its results as one batch, handles each message in order.
  void HandleReady();
  void Handle(const Incoming& in, double now);
  // Counts one message's results; their lease ids go to acks_ (sent by FlushAcks).
  void HandleResults(const std::string& routing_id, const std::string& identity,
                     const v1::Results& results, double now);
  void FlushAcks();
  // Sends the held acks whose writes are durable now.
  void SendDurableAcks();
  // At exit: waits (bounded) for the store, then sends every ack it made durable.
  void DrainAcks();
  void Send(const std::string& routing_id, const std::string& bytes);
  // Sends Shutdown("sweep finished") to every known worker not told yet (workers that say hello
  // after the sweep finished are told on the next call).
  void TellFinished();

  Scheduler* scheduler_;
  ServerOptions options_;
  std::function<double()> clock_;
  std::unique_ptr<zmq::context_t> ctx_;
  std::unique_ptr<zmq::socket_t> sock_;
  std::unique_ptr<class ZapAuthenticator> zap_;
  std::string endpoint_;
  int64_t rejected_ = 0;
  std::set<std::string> told_;                  // workers sent Shutdown since the sweep finished
  std::map<std::string, v1::ResultAcks> acks_;  // per routing id, sent after the batch's writes
  WriteBehindStore* durability_ = nullptr;
  // Acks held until the store's durable ticket reaches theirs, oldest first.
  std::deque<std::pair<uint64_t, std::map<std::string, v1::ResultAcks>>> held_acks_;
};

}  // namespace fleetsweep
