#include "coordinator/server/server.h"

#include <chrono>
#include <vector>
#include <zmq.hpp>

#include "common/store/write_behind_store.h"
#include "common/wire/wire.h"
#include "coordinator/server/zap.h"
#include "spdlog/spdlog.h"

namespace fleetsweep {

namespace {
// How long closing the socket may wait for the last messages of a finished sweep.
constexpr int kFinishedLingerMs = 500;
}  // namespace

CoordinatorServer::CoordinatorServer(Scheduler* scheduler, ServerOptions options,
                                     std::function<double()> clock)
    : scheduler_(scheduler), options_(std::move(options)), clock_(std::move(clock)) {}

CoordinatorServer::~CoordinatorServer() {
  sock_.reset();
  zap_.reset();
  ctx_.reset();
}

Status CoordinatorServer::Bind() {
  try {
    ctx_ = std::make_unique<zmq::context_t>(1);
    if (options_.curve.enabled) {
      zap_ = std::make_unique<ZapAuthenticator>(ctx_.get());
      FS_RETURN_IF_ERROR(zap_->Start(options_.curve.authorized_keys_file));
    }
    sock_ = std::make_unique<zmq::socket_t>(*ctx_, zmq::socket_type::router);
    sock_->set(zmq::sockopt::linger, 0);
    sock_->set(zmq::sockopt::router_mandatory, 0);
    sock_->set(zmq::sockopt::sndhwm, 100000);
    sock_->set(zmq::sockopt::rcvhwm, 100000);
    // Oversized messages are dropped by libzmq before they are buffered.
    sock_->set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(kMaxWireMessageBytes));
    if (options_.curve.enabled) {
      sock_->set(zmq::sockopt::curve_server, 1);
      sock_->set(zmq::sockopt::curve_secretkey, options_.curve.secret_key_z85);
      sock_->set(zmq::sockopt::zap_domain, std::string("fleetsweep"));
    }
    sock_->bind(options_.bind);
    endpoint_ = sock_->get(zmq::sockopt::last_endpoint);
  } catch (const zmq::error_t& e) {
    return Status::Unavailable("coordinator: cannot bind " + options_.bind + ": " + e.what());
  }
  return Status::Ok();
}

void CoordinatorServer::Send(const std::string& routing_id, const std::string& bytes) {
  try {
    sock_->send(zmq::buffer(routing_id), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
    sock_->send(zmq::buffer(bytes), zmq::send_flags::dontwait);
  } catch (const zmq::error_t& e) {
    spdlog::warn("coordinator: send to {} failed: {}", routing_id, e.what());
  }
}

static std::string Wrap(v1::Envelope env) { return EncodeEnvelope(std::move(env)); }

// The authenticated identity of the peer that sent `msg`: its CurveZMQ public key (Z85), or ""
// without Curve.
static std::string PeerIdentity(zmq::message_t& msg, bool curve) {
  if (!curve) return "";
  try {
    return msg.gets("User-Id");
  } catch (const zmq::error_t&) {
    return "";
  }
}

void CoordinatorServer::HandleReady() {
  // Everything queued now (bounded), decoded; the results among them stored in one batch (group
  // commit), then every message handled in arrival order, then the results acknowledged.
  std::vector<Incoming> batch;
  for (int i = 0; i < kMaxBatch; ++i) {
    zmq::message_t id;
    auto got = sock_->recv(id, zmq::recv_flags::dontwait);
    if (!got) break;
    std::vector<zmq::message_t> extra;
    while (id.more() || (!extra.empty() && extra.back().more())) {
      zmq::message_t part;
      (void)sock_->recv(part, zmq::recv_flags::none);
      extra.push_back(std::move(part));
      if (!extra.back().more()) break;
    }
    if (extra.size() != 1) {
      ++rejected_;
      continue;  // a well-behaved DEALER sends exactly one frame
    }
    Incoming in{id.to_string(), PeerIdentity(extra[0], options_.curve.enabled),
                Status::Internal("not decoded"), 0};
    in.envelope = DecodeEnvelope(extra[0].data(), extra[0].size(), &in.peer_version);
    batch.push_back(std::move(in));
  }
  std::vector<Scheduler::ResultRef> results;
  for (const Incoming& in : batch) {
    if (in.envelope.ok() && in.envelope->body_case() == v1::Envelope::kResults &&
        scheduler_->KnowsWorker(in.routing_id)) {
      for (const v1::Result& r : in.envelope->results().results()) {
        results.push_back({&in.routing_id, &in.identity, &r});
      }
    }
  }
  scheduler_->BeginBatch();
  scheduler_->StoreAhead(results);
  const double now = clock_();
  for (const Incoming& in : batch) Handle(in, now);
  (void)scheduler_->EndBatch();  // logged and noted by the scheduler
  FlushAcks();                   // after every store write of this batch
}

void CoordinatorServer::FlushAcks() {
  if (acks_.empty()) return;
  const uint64_t ticket = durability_ ? durability_->accepted() : 0;
  held_acks_.emplace_back(ticket, std::move(acks_));
  acks_.clear();
  SendDurableAcks();
}

void CoordinatorServer::SendDurableAcks() {
  const uint64_t durable = durability_ ? durability_->durable() : 0;
  while (!held_acks_.empty() && held_acks_.front().first <= durable) {
    for (auto& [rid, acks] : held_acks_.front().second) {
      if (acks.lease_ids_size() == 0) continue;
      v1::Envelope out;
      *out.mutable_result_acks() = std::move(acks);
      Send(rid, Wrap(std::move(out)));
    }
    held_acks_.pop_front();
  }
}

void CoordinatorServer::DrainAcks() {
  if (durability_ && !held_acks_.empty()) {
    Status s = durability_->Drain();
    if (!s.ok()) spdlog::warn("coordinator: results not acknowledged at exit: {}", s.ToString());
  }
  SendDurableAcks();
}

void CoordinatorServer::HandleResults(const std::string& rid, const std::string& identity,
                                      const v1::Results& results, double now) {
  for (const v1::Result& r : results.results()) {
    auto counted = scheduler_->OnResult(rid, r, now, identity);
    if (!counted.ok()) {
      spdlog::error("coordinator: cannot store result {}: {} (the worker will resend)",
                    r.lease_id().substr(0, 120), counted.status().ToString());
      continue;  // not acknowledged
    }
    acks_[rid].add_lease_ids(r.lease_id());
  }
}

void CoordinatorServer::Handle(const Incoming& message, double now) {
  const std::string& rid = message.routing_id;
  const StatusOr<v1::Envelope>& decoded = message.envelope;
  if (!decoded.ok()) {
    if (++rejected_ <= 20 || rejected_ % 1000 == 0) {
      spdlog::warn("coordinator: rejected a message from '{}': {}", rid,
                   decoded.status().message());
    }
    if (decoded.status().code() == StatusCode::kFailedPrecondition) {
      Send(rid, EncodeVersionReject(message.peer_version));  // another protocol version
      return;
    }
    v1::Envelope r;
    r.mutable_reject()->set_reason(decoded.status().message());
    Send(rid, Wrap(r));
    return;
  }
  const v1::Envelope& in = *decoded;
  v1::Envelope out;
  switch (in.body_case()) {
    case v1::Envelope::kHello:
      *out.mutable_hello_ack() = scheduler_->OnHello(rid, in.hello(), now, message.identity);
      Send(rid, Wrap(out));
      return;
    case v1::Envelope::kWorkRequest: {
      if (!scheduler_->KnowsWorker(rid)) break;
      auto leases = scheduler_->OnWorkRequest(rid, in.work_request(), now);
      if (leases.empty()) {
        *out.mutable_no_work() = scheduler_->NoWorkReply();
      } else {
        for (auto& l : leases) *out.mutable_leases()->add_leases() = std::move(l);
      }
      Send(rid, Wrap(out));
      return;
    }
    case v1::Envelope::kSpecRequest:
      if (!scheduler_->KnowsWorker(rid)) break;
      *out.mutable_spec() = scheduler_->SpecMessage();
      if (in.spec_request().spec_hash() != out.spec().spec_hash()) {
        spdlog::warn("coordinator: worker {} asked for spec {}; this coordinator serves spec {}",
                     rid, in.spec_request().spec_hash().substr(0, 64), out.spec().spec_hash());
      }
      Send(rid, Wrap(out));
      return;
    case v1::Envelope::kHeartbeat:
      if (!scheduler_->KnowsWorker(rid)) break;
      scheduler_->OnHeartbeat(rid, in.heartbeat(), now);
      out.mutable_heartbeat_ack();  // the worker's give-up clock counts from what it hears
      Send(rid, Wrap(out));
      return;
    case v1::Envelope::kResults:
      if (!scheduler_->KnowsWorker(rid)) break;  // no results without a hello
      HandleResults(rid, message.identity, in.results(), now);
      return;
    default:
      out.mutable_reject()->set_reason(std::string("unexpected message kind ") + EnvelopeKind(in));
      Send(rid, Wrap(out));
      return;
  }
  // Unknown worker (e.g. the coordinator restarted): ask it to introduce itself again.
  v1::Envelope r;
  r.mutable_reject()->set_reason("unknown worker: say hello");
  Send(rid, Wrap(r));
}

void CoordinatorServer::TellFinished() {
  v1::Envelope e;
  e.mutable_shutdown()->set_reason("sweep finished");
  std::string bytes;
  for (const auto& id : scheduler_->WorkerIds()) {
    if (!told_.insert(id).second) continue;
    if (bytes.empty()) bytes = Wrap(e);
    Send(id, bytes);
  }
}

Status CoordinatorServer::Serve(const std::atomic<bool>& stop,
                                const std::function<void()>& on_tick) {
  zmq::pollitem_t items[] = {{static_cast<void*>(*sock_), 0, ZMQ_POLLIN, 0},
                             {nullptr, durability_ ? durability_->notify_fd() : -1, ZMQ_POLLIN, 0}};
  const int n_items = durability_ ? 2 : 1;
  double last_tick = 0;
  double finished_at = -1;
  bool finished_unheard = false;  // finished before any worker said hello (a restart)
  while (!stop.load()) {
    try {
      zmq::poll(items, n_items, std::chrono::milliseconds(50));
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) continue;
      return Status::Internal(std::string("coordinator: poll: ") + e.what());
    }
    if (items[0].revents & ZMQ_POLLIN) HandleReady();
    if (n_items > 1 && (items[1].revents & ZMQ_POLLIN)) durability_->ClearNotification();
    SendDurableAcks();
    const double now = clock_();
    if (now - last_tick >= 0.1) {
      scheduler_->Tick(now);
      if (on_tick) on_tick();
      last_tick = now;
    }
    if (options_.exit_when_done && scheduler_->Finished()) {
      // Tell every worker once (those that say hello later too), then keep serving a bounded
      // while so that executions still running (a reference, a last retry) can report and be
      // stored before we exit.
      if (finished_at < 0) {
        finished_at = now;
        finished_unheard = scheduler_->WorkerIds().empty();
      }
      TellFinished();
      const bool unheard = finished_unheard && now - finished_at < options_.unheard_linger_seconds;
      if ((scheduler_->OutstandingLeases() == 0 && !unheard) ||
          now - finished_at > options_.drain_seconds) {
        if (scheduler_->OutstandingLeases() > 0) {
          spdlog::warn("coordinator: exiting with {} executions still running on workers",
                       scheduler_->OutstandingLeases());
        }
        DrainAcks();
        // The shutdowns and last acks are queued; closing the socket (the destructor) now waits
        // until they are sent, at most kFinishedLingerMs, instead of a fixed pause here.
        sock_->set(zmq::sockopt::linger, kFinishedLingerMs);
        return Status::Ok();
      }
    }
  }
  DrainAcks();
  return Status::Ok();
}

}  // namespace fleetsweep
