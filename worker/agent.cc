#include "worker/agent.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <random>

#include "common/space/spec.h"
#include "common/wire/wire.h"
#include "spdlog/spdlog.h"
#include "worker/agent/give_up.h"
#include "worker/agent/node_info.h"
#include "worker/agent/pacing.h"
#include "worker/agent/result_outbox.h"
#include "worker/agent/slot.h"
#include "worker/agent/spec_cache.h"
#include "worker/agent/store_writer.h"
#include "worker/executors/descendants.h"
#include "worker/executors/session.h"
#include "worker/worker_observer.h"

namespace fleetsweep {
namespace {

constexpr double kStopCheckSeconds = 0.25;    // longest idle wait: notices *stop (a signal)
constexpr double kRequestRetrySeconds = 2.0;  // an unanswered work request is asked again
constexpr double kReapEverySeconds = 1.0;     // escaped processes reaped at least this often
constexpr double kDrainOnExitSeconds = 5.0;   // wait for acks before exiting when finished
constexpr double kSpecRetrySeconds = 2.0;     // an unanswered SpecRequest is asked again

// One Run() of the agent: the event loop and its state.
class AgentLoop {
 public:
  AgentLoop(const AgentOptions& o, const Clock* clock, zmq::context_t* ctx)
      : o_(o),
        clock_(clock),
        conn_(ctx, ConnectionOptions{o.coordinator, o.worker_id, o.curve, MakeNodeInfo(o)}, clock),
        observer_(o.metrics, o.node),
        pacing_(PacingOptions{o.prefetch, o.prefetch > 0 ? kMaxPrefetchPerSlot : 0, o.hold_seconds,
                              o.flush_seconds, o.flush_count, o.slots}),
        done_(pacing_.flush_count()),
        specs_(kSpecRetrySeconds),
        give_up_(o.give_up_after_seconds, clock->Now()) {
    for (int i = 0; i < o.slots; ++i) {
      slots_.push_back(std::make_unique<Slot>(i, o.devices[i % o.devices.size()], &gates_, &done_));
    }
    if (o.store) writer_ = std::make_unique<StoreWriter>(o.store, &stored_);
  }

  Status Run(const std::atomic<bool>& stop, int64_t* executions) {
    FS_RETURN_IF_ERROR(conn_.Open());
    while (!stop.load()) {
      if (ShouldExit()) break;
      if (give_up_.Expired(clock_->Now())) {
        return Status::Unavailable("worker: no answer from coordinator " + o_.coordinator +
                                   " for " + Value(o_.give_up_after_seconds).ToString() + " s");
      }
      FS_RETURN_IF_ERROR(Wait());
      while (auto env = conn_.Receive()) Handle(*env);
      if (!conn_.fatal().ok()) {
        spdlog::error("{}", conn_.fatal().message());
        return conn_.fatal();
      }
      TakeFinished(executions);
      for (SlotDone& d : stored_.TakeAll()) SendResult(d);
      Timers();
    }
    return Status::Ok();
  }

 private:
  int BusySlots() const {
    int n = 0;
    for (const auto& s : slots_) n += s->busy() ? 1 : 0;
    return n;
  }
  bool Idle() const {
    return BusySlots() == 0 && queued_.empty() && specs_.waiting() == 0 &&
           (!writer_ || writer_->pending() == 0);
  }

  bool ShouldExit() {
    if (!(finished_ && o_.exit_when_finished && Idle())) return false;
    if (outbox_.empty()) return true;
    // The coordinator may already be gone: give it a few seconds to acknowledge, then exit (in
    // cluster mode the attempts are already in the store).
    const double now = clock_->Now();
    if (drain_started_ < 0) drain_started_ = now;
    if (now - drain_started_ <= kDrainOnExitSeconds) return false;
    spdlog::warn("worker: exiting with {} results unacknowledged{}", outbox_.size(),
                 o_.store ? " (they are in the store)" : "");
    return true;
  }

  // Sleeps until an event (message, finished execution, finished store write) or the next timer.
  Status Wait() {
    const double now = clock_->Now();
    double next = std::min(conn_.NextTimer(), outbox_.NextDue());
    if (request_pending_ > 0) next = std::min(next, request_sent_ + kRequestRetrySeconds);
    if (no_work_until_ > now) next = std::min(next, no_work_until_);
    if (drain_started_ >= 0) next = std::min(next, drain_started_ + kDrainOnExitSeconds);
    next = std::min(next, give_up_.Deadline());
    next = std::min(next, specs_.NextAskDue());
    if (done_since_ >= 0) next = std::min(next, pacing_.TakeDue(done_since_));
    double wait = std::clamp(next - now, 0.0, kStopCheckSeconds);
    if (WantWork() && request_pending_ == 0 && no_work_until_ <= now) wait = 0;
    zmq::pollitem_t items[] = {{static_cast<void*>(conn_.socket()), 0, ZMQ_POLLIN, 0},
                               {nullptr, done_.fd(), ZMQ_POLLIN, 0},
                               {nullptr, stored_.fd(), ZMQ_POLLIN, 0}};
    try {
      zmq::poll(items, 3, std::chrono::milliseconds(static_cast<long>(std::ceil(wait * 1000))));
    } catch (const zmq::error_t& e) {
      if (e.num() != EINTR) return Status::Internal(std::string("worker: poll: ") + e.what());
    }
    return Status::Ok();
  }

  void Handle(const v1::Envelope& env) {
    give_up_.Heard(clock_->Now());
    switch (env.body_case()) {
      case v1::Envelope::kHelloAck:
        if (!conn_.coordinator_id().empty() &&
            conn_.coordinator_id() != env.hello_ack().coordinator_id()) {
          finished_ = false;  // a new coordinator (e.g. a new sweep): serve it
        }
        conn_.OnHelloAck(env.hello_ack());
        if (env.hello_ack().has_spec()) OnSpec(env.hello_ack().spec(), /*answer=*/false);
        spdlog::info("worker {}: connected to coordinator {}", o_.worker_id,
                     env.hello_ack().coordinator_id());
        observer_.Connected(true);
        request_pending_ = 0;
        break;
      case v1::Envelope::kLeases:
        request_pending_ = 0;
        finished_ = false;
        for (const v1::Lease& lease : env.leases().leases()) Dispatch(lease);
        break;
      case v1::Envelope::kSpec:
        OnSpec(env.spec(), /*answer=*/true);
        break;
      case v1::Envelope::kNoWork:
        request_pending_ = 0;
        no_work_until_ = clock_->Now() + env.no_work().retry_after_seconds();
        if (env.no_work().sweep_finished()) finished_ = true;
        break;
      case v1::Envelope::kResultAcks:
        for (const std::string& id : env.result_acks().lease_ids()) outbox_.Ack(id);
        break;
      case v1::Envelope::kReject:
        spdlog::info("worker: coordinator says: {}", env.reject().reason());
        request_pending_ = 0;
        conn_.OnReject(env.reject());
        break;
      case v1::Envelope::kShutdown:
        spdlog::info("worker: coordinator asks to stop: {}", env.shutdown().reason());
        finished_ = true;
        break;
      default:
        break;
    }
  }

  // A spec from the coordinator (HelloAck, or the answer to a SpecRequest): checked against its
  // hash, parsed once and kept; the leases that waited for it are dispatched. An answer that
  // does not carry the spec asked for is a mismatch: the leases waiting for the spec asked for
  // cannot run here (they were granted by another coordinator); logged naming both hashes and
  // dropped (their coordinator re-queues them when their deadlines pass).
  void OnSpec(const v1::SpecText& spec, bool answer) {
    SpecCache::Added added = specs_.Add(spec);
    if (!added.ok) {
      spdlog::error("worker: spec hash mismatch: {}; not used", added.error);
      return;
    }
    if (added.is_new) observer_.DeclareSweep(spec.sweep(), added.info->metrics);
    for (auto& [hash, leases] : specs_.TakeWaiting()) {
      if (hash == added.hash || !answer) {
        for (const v1::Lease& l : leases) Dispatch(l);  // re-waits (and re-asks) if still unknown
        continue;
      }
      spdlog::error(
          "worker: spec hash mismatch: {} lease(s) name spec {}, the coordinator sent "
          "spec {} (sweep {}); the leases are dropped",
          leases.size(), hash, added.hash, spec.sweep());
    }
  }

  void AskSpec(const std::string& hash) {
    v1::Envelope e;
    e.mutable_spec_request()->set_spec_hash(hash);
    conn_.Send(std::move(e));
    specs_.Asked(hash, clock_->Now());
  }

  // A slot for the lease: a free one whose open session serves its key, else a free one without
  // a session, else any free slot; when all are busy, the least loaded one whose open session
  // serves the key and that holds fewer than 1 + Prefetch() jobs (the lease waits in its queue),
  // but with several slots only while executions are short (Pacing holds more than --prefetch):
  // a lease bound to one slot cannot go to another that frees first, which costs nothing at
  // milliseconds but would idle a slot (and its parallel prepare) behind a long execution;
  // nullptr otherwise (the lease waits in the agent for the first slot to come free).
  Slot* PickSlot(const Launcher* launcher, const Config& params) {
    Slot* empty = nullptr;
    Slot* any = nullptr;
    Slot* behind = nullptr;
    const bool may_queue = slots_.size() == 1 || pacing_.Prefetch() > std::max(1, o_.prefetch);
    const size_t most = may_queue ? 1 + static_cast<size_t>(pacing_.Prefetch()) : 0;
    for (auto& s : slots_) {
      std::optional<SessionKey> key = s->open_key();
      const bool serves = key && s->open_launcher() == launcher && key->Matches(params);
      if (s->busy()) {
        if (serves && s->given() < most && (!behind || s->given() < behind->given())) {
          behind = s.get();
        }
        continue;
      }
      if (serves) return s.get();
      if (!key && !empty) empty = s.get();
      if (!any) any = s.get();
    }
    if (empty) return empty;
    return any ? any : behind;
  }

  // A lease goes to a slot (PickSlot), or waits for its spec, or at the back of the agent's queue.
  void Dispatch(const v1::Lease& lease) {
    if (!Place(lease)) queued_.push_back(lease);
  }

  // False when no slot can take the lease now (nothing done); a lease whose spec is unknown waits
  // for it (the first one naming the hash asks for it).
  bool Place(const v1::Lease& lease) {
    const SpecInfo* spec = specs_.Find(lease.spec_hash());
    if (spec == nullptr) {
      if (specs_.Await(lease)) AskSpec(lease.spec_hash());
      return true;
    }
    Config params;
    for (const auto& [k, v] : lease.params()) params[k] = Value::FromText(v);
    Slot* slot = PickSlot(spec->launcher.get(), params);
    if (slot == nullptr) return false;
    slot->Enqueue(MakeSlotJob(o_, lease, std::move(params), *spec, *slot));
    observer_.SlotsChanged(BusySlots(), o_.slots);
    return true;
  }

  // Finished executions: taken now when Pacing says so (a slot has nothing left, enough have
  // finished, or the first has waited flush_seconds), else left waiting with the eventfd cleared
  // (Wait() sleeps until TakeDue). Each taken one frees its lease's place; then the leases that
  // waited in the agent go to the slots.
  void TakeFinished(int64_t* executions) {
    const size_t waiting = done_.size();
    const double now = clock_->Now();
    if (waiting == 0) {
      done_since_ = -1;
      done_.Clear();
      return;
    }
    if (done_since_ < 0) done_since_ = now;
    bool urgent = finished_;  // or a slot ran dry: its completions are what it waits on
    for (const auto& s : slots_) urgent = urgent || (s->idle() && s->busy());
    if (!pacing_.TakeNow(waiting, done_since_, now, urgent)) {
      done_.Clear();  // the next wake is TakeDue, a full batch or an idle slot
      return;
    }
    done_since_ = -1;
    for (SlotDone& d : done_.TakeAll()) Finished(std::move(d), executions);
    while (!queued_.empty() && Place(queued_.front())) queued_.pop_front();  // in order
    observer_.SlotsChanged(BusySlots(), o_.slots);
  }

  void Finished(SlotDone d, int64_t* executions) {
    // Before the result leaves: what escaped this execution's process group is gone. Only an
    // ended child can have left an escaped process unprotected; a warm session's execution skips
    // the /proc scan (Timers() reaps the rest every kReapEverySeconds).
    if (OwnedChildrenEnded() != reaped_at_ended_) Reap();
    v1::Attempt& a = d.attempt;
    Slot& slot = *slots_[d.slot];
    a.set_config_key(d.lease.config_key());
    a.set_attempt_id(d.lease.lease_id());
    a.set_worker_id(o_.worker_id);
    a.set_node(o_.node);
    a.set_slot(d.slot);
    a.set_device(slot.device());
    a.set_reference(d.lease.reference());
    ++*executions;
    pacing_.Observed(a.duration_seconds());
    observer_.Executed(a, d.lease.sweep());
    slot.Taken();
    if (writer_) {
      writer_->Enqueue(std::move(d));
    } else {
      SendResult(d);
    }
  }

  // Into the outbox: sent (with every other result due) by the next Timers().
  void SendResult(SlotDone& d) {
    v1::Result r;
    r.set_lease_id(d.lease.lease_id());
    r.set_sweep(d.lease.sweep());
    *r.mutable_attempt() = std::move(d.attempt);
    outbox_.Add(std::move(r));
  }

  // Leases this agent may hold: per slot the running one plus Prefetch() waiting.
  int HeldMax() const { return static_cast<int>(slots_.size()) * (1 + pacing_.Prefetch()); }
  // Leases held: given to slots (running, queued, finished but not taken), waiting in the agent
  // or for their spec.
  int Held() const {
    int n = static_cast<int>(queued_.size()) + specs_.waiting();
    for (const auto& s : slots_) n += static_cast<int>(s->given());
    return n;
  }
  // Leases this agent can take now.
  int Capacity() const { return HeldMax() - Held(); }

  int WantedLeases() const {
    return pacing_.ToRequest(Capacity(), HeldMax(), static_cast<int>(slots_.size()));
  }
  bool WantWork() const { return conn_.acked() && !finished_ && WantedLeases() > 0; }

  void RequestWork() {
    const double now = clock_->Now();
    if (request_pending_ > 0 && now - request_sent_ > kRequestRetrySeconds) request_pending_ = 0;
    if (!WantWork() || request_pending_ > 0 || now < no_work_until_) return;
    const int free_slots = WantedLeases();  // WantWork(): > 0
    v1::Envelope e;
    e.mutable_work_request()->set_free_slots(free_slots);
    // Every open session's key, busy slots' too: a prefetched lease waits for a busy slot.
    for (const auto& s : slots_) {
      std::optional<SessionKey> key = s->open_key();
      if (!key || key->params.empty()) continue;
      v1::SessionKey* k = e.mutable_work_request()->add_open_sessions();
      for (const auto& [name, value] : key->params) (*k->mutable_params())[name] = value;
    }
    conn_.Send(std::move(e));
    request_pending_ = free_slots;
    request_sent_ = now;
  }

  // Kills and reaps what escaped (descendants.h); remembers the ended-children count it saw.
  void Reap() {
    reaped_at_ended_ = OwnedChildrenEnded();
    if (int killed = ReapEscaped(); killed > 0) {
      spdlog::warn("worker: killed {} process(es) that escaped an execution's process group",
                   killed);
    }
  }

  void Timers() {
    const double now = clock_->Now();
    if (now - last_reap_ >= kReapEverySeconds) {
      last_reap_ = now;
      Reap();
    }
    // Every result due (new and re-sent) in as few messages as possible.
    for (const std::string& bytes : PackResults(outbox_.Due(now))) conn_.SendBytes(bytes);
    for (const std::string& hash : specs_.AsksDue(now)) AskSpec(hash);
    RequestWork();
    conn_.Tick([&](v1::Heartbeat* hb) {
      for (const auto& s : slots_) {  // behind each slot's running (or finished) execution
        const auto& given = s->given_lease_ids();
        for (size_t i = 1; i < given.size(); ++i) hb->add_waiting_lease_ids(given[i]);
      }
      for (const auto& l : queued_) hb->add_waiting_lease_ids(l.lease_id());
      for (const auto& [hash, leases] : specs_.waiting_by_hash()) {
        for (const auto& l : leases) hb->add_waiting_lease_ids(l.lease_id());
      }
      observer_.HeartbeatAge(now - conn_.last_heard());
    });
  }

  const AgentOptions& o_;
  const Clock* clock_;
  Connection conn_;
  WorkerObserver observer_;
  TimingGates gates_;
  Pacing pacing_;
  CompletionQueue done_;    // slots -> loop (wakes at once for a full batch: Pacing)
  CompletionQueue stored_;  // store writer -> loop
  SpecCache specs_;         // outlives the slots' sessions (they point at its launchers)
  std::vector<std::unique_ptr<Slot>> slots_;
  std::unique_ptr<StoreWriter> writer_;
  std::deque<v1::Lease> queued_;  // leases that arrived while every slot was busy
  ResultOutbox outbox_;
  GiveUpClock give_up_;  // from the last message heard
  double request_sent_ = 0;
  int request_pending_ = 0;
  double no_work_until_ = 0;
  bool finished_ = false;
  double drain_started_ = -1;
  double done_since_ = -1;     // when the loop first saw a finished execution waiting (-1: none)
  double last_reap_ = -1e300;  // Timers(): last ReapEscaped
  uint64_t reaped_at_ended_ = ~0ull;  // OwnedChildrenEnded() at the last ReapEscaped
};

}  // namespace

WorkerAgent::WorkerAgent(AgentOptions options) : options_(std::move(options)) {
  if (options_.node.empty()) options_.node = Hostname();
  if (options_.worker_id.empty()) {
    std::random_device rd;
    options_.worker_id = options_.node + "-" + std::to_string(getpid()) + "-" +
                         Hex16((uint64_t(rd()) << 32) | rd()).substr(0, 6);
  }
  if (options_.slots < 1) options_.slots = 1;
  if (options_.devices.empty()) {
    for (int i = 0; i < options_.slots; ++i) options_.devices.push_back(std::to_string(i));
  }
}

Status WorkerAgent::Run(const std::atomic<bool>& stop) {
  static const SteadyClock steady;
  if (!BecomeSubreaper()) {
    spdlog::warn(
        "worker: cannot become a child subreaper; processes that leave an execution's "
        "process group (setsid) go to init and are not cleaned up");
  }
  zmq::context_t ctx(1);
  Status st;
  {
    AgentLoop loop(options_, options_.clock ? options_.clock : &steady, &ctx);
    st = loop.Run(stop, &executions_);
  }  // slots are cancelled and joined, the store writer finishes, before the context closes
  ReapEscaped();  // what the last executions (cancelled ones too) left behind
  return st;
}

}  // namespace fleetsweep
