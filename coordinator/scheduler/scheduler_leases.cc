// The Scheduler's side of workers and leases: hello, work requests (the Dispatcher chooses, the
// LeaseTable records), heartbeats (renewal of waiting leases), expiry of silent workers and
// overdue leases.
#include <algorithm>

#include "common/wire/wire.h"
#include "coordinator/scheduler/scheduler.h"
#include "spdlog/spdlog.h"

namespace fleetsweep {

v1::HelloAck Scheduler::OnHello(const std::string& worker_id, const v1::Hello& hello, double now,
                                const std::string& identity) {
  // Another peer that takes over a worker id does not inherit the old holder's leases.
  for (const auto& id : workers_.Hello(worker_id, hello.node(), identity, now)) {
    ExpireLease(id, "worker id taken over by another identity");
  }
  v1::HelloAck ack;
  ack.set_coordinator_id(options_.epoch);
  ack.set_heartbeat_interval_seconds(options_.heartbeat_seconds);
  *ack.mutable_spec() = SpecMessage();
  const std::string& platform = hello.node().platform();
  spdlog::info("worker {} joined: node {} with {} slots{}", worker_id, hello.node().node(),
               hello.node().slots(), platform.empty() ? "" : ", platform " + platform);
  return ack;
}

v1::SpecText Scheduler::SpecMessage() const {
  v1::SpecText spec;
  spec.set_sweep(spec_.name);
  spec.set_spec_hash(spec_hash_);
  spec.set_spec_yaml(spec_.text);
  return spec;
}

v1::NoWork Scheduler::NoWorkReply() const {
  v1::NoWork nw;
  nw.set_sweep_finished(Finished());
  double retry = Finished() ? 5.0 : 0.25;
  if (store_failing_) retry = std::max(retry, store_probe_backoff_);
  nw.set_retry_after_seconds(retry);
  return nw;
}

std::vector<v1::Lease> Scheduler::OnWorkRequest(const std::string& worker_id, int free_slots,
                                                double now) {
  v1::WorkRequest request;
  request.set_free_slots(free_slots);
  return OnWorkRequest(worker_id, request, now);
}

std::vector<v1::Lease> Scheduler::OnWorkRequest(const std::string& worker_id,
                                                const v1::WorkRequest& request, double now) {
  std::vector<v1::Lease> out;
  now_ = now;
  WorkerInfo* w = workers_.Find(worker_id);
  if (w == nullptr) return out;
  w->last_seen = now;
  if (Finished()) return out;
  if (store_failing_) return out;  // nothing would be stored: do not run it
  SessionKeys sessions;
  for (const auto& key : request.open_sessions()) {
    sessions.emplace_back(key.params().begin(), key.params().end());
  }
  const std::string node = workers_.NodeName(worker_id);
  for (int free_slots = request.free_slots(); free_slots > 0; --free_slots) {
    std::optional<Dispatcher::Choice> choice = dispatcher_.Next(w->reference, node, &sessions);
    if (!choice) break;
    out.push_back(MakeLease(choice->config, worker_id, choice->reference, now));
    dispatcher_.Granted(*choice, node, &w->reference);
  }
  return out;
}

v1::Lease Scheduler::MakeLease(int index, const std::string& worker_id, bool reference,
                               double now) {
  v1::Lease lease;
  // A leased configuration is held from now on (ConfigTable::at creates it from the space).
  const Config params = index >= 0 ? configs_.Params(index) : *dispatcher_.reference();
  const std::string key =
      index >= 0 ? configs_.at(index).record.config_key() : dispatcher_.reference_key();
  lease.set_sweep(spec_.name);
  lease.set_spec_hash(spec_hash_);
  lease.set_config_key(key);
  for (const auto& [name, value] : params) (*lease.mutable_params())[name] = value.ToString();
  lease.set_reference(reference);
  LeaseInfo info;
  info.config = index;
  info.worker_id = worker_id;
  info.lease_seconds = spec_.timeout_seconds + options_.lease_grace_seconds;
  info.deadline = now + info.lease_seconds;
  info.granted_at = now;
  info.reference = reference;
  const WorkerInfo* holder = workers_.Find(worker_id);
  lease.set_lease_id(leases_.Grant(key, options_.epoch, info, holder ? holder->identity : ""));
  workers_.AddLease(worker_id, lease.lease_id());
  if (index >= 0 && !reference) configs_.LeaseStarted(index);
  if (options_.on_lease_granted) options_.on_lease_granted(lease);
  return lease;
}

void Scheduler::OnHeartbeat(const std::string& worker_id, const v1::Heartbeat& hb, double now) {
  if (!workers_.Touch(worker_id, now)) return;
  leases_.RenewWaiting(worker_id, hb.waiting_lease_ids(), now);
}

void Scheduler::ExpireLease(const std::string& lease_id, const char* why) {
  std::optional<LeaseInfo> info = leases_.Take(lease_id);
  if (!info) return;
  workers_.DropLease(info->worker_id, lease_id);
  ++counters_.leases_expired;
  spdlog::warn("lease {} expired ({}); its configuration goes back to the queue", lease_id, why);
  if (info->config >= 0 && !info->reference) {
    configs_.LeaseEnded(info->config);
    Reevaluate(info->config);
  }
}

void Scheduler::OnWorkerGone(const std::string& worker_id, double /*now*/) {
  std::optional<std::set<std::string>> leases = workers_.Remove(worker_id);
  if (!leases) return;
  spdlog::warn("worker {} is gone; {} leases return to the queue", worker_id, leases->size());
  for (const auto& id : *leases) ExpireLease(id, "worker gone");
}

void Scheduler::Tick(double now) {
  now_ = now;
  ProbeStore(now);
  for (const auto& id : workers_.Silent(now, options_.worker_timeout_seconds)) {
    OnWorkerGone(id, now);
  }
  // While the store refuses writes, results cannot be stored: an overdue lease is most likely a
  // result waiting to be stored, not a lost execution. Do not run it again.
  if (store_failing_) return;
  for (const auto& id : leases_.Overdue(now)) ExpireLease(id, "deadline passed");
}

}  // namespace fleetsweep
