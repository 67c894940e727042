// The Scheduler facade (scheduler.h): resume (Init), counting results exactly once, and the
// re-evaluation of a configuration after each change. Leases and workers: scheduler_leases.cc;
// store writes and health: scheduler_store.cc.
#include "coordinator/scheduler/scheduler.h"

#include <algorithm>

#include "common/space/space_index.h"
#include "common/store/failure_text.h"
#include "common/store/store_checks.h"
#include "spdlog/spdlog.h"

namespace fleetsweep {

Scheduler::Scheduler(const SweepSpec& spec, SchedulerOptions options, ResultStore* store)
    : spec_(spec),
      options_(std::move(options)),
      store_(store),
      reps_(spec, &configs_, options_.extend_contenders, options_.seed),
      search_(MakeSearchStrategy(spec, options_.seed)),
      dispatcher_(&configs_, &reps_, options_.reference_every,
                  Fnv1a64(options_.epoch.empty() ? "e0" : options_.epoch, options_.seed)) {
  spec_hash_ = Hex16(Fnv1a64(spec_.text));
  if (options_.epoch.empty()) options_.epoch = "e0";
}

StatusOr<std::unique_ptr<SpaceIndex>> Scheduler::BuildSpace() const {
  FS_ASSIGN_OR_RETURN(SpaceIndex space, SpaceIndex::Build(spec_));
  // random / lhs draw their sample as positions of the index (the space is not expanded).
  if (!search_->SelectsAll()) space.Select(search_->Select(space));
  return std::make_unique<SpaceIndex>(std::move(space));
}

std::unordered_map<std::string, int> Scheduler::Locate(
    const std::vector<v1::ConfigRecord>& stored,
    const std::unordered_set<std::string>& attempted) const {
  std::unordered_map<std::string, int> where;
  std::unordered_set<std::string> missing;
  // A record's seq is its index (the expansion of one spec text is deterministic): checked.
  for (const auto& r : stored) {
    const uint64_t seq = r.seq();
    if (seq < static_cast<uint64_t>(space_->size()) &&
        space_->KeyAt(static_cast<int64_t>(seq)) == r.config_key()) {
      where.emplace(r.config_key(), static_cast<int>(seq));
    } else {
      missing.insert(r.config_key());
    }
  }
  for (const auto& key : attempted) {
    if (where.count(key) == 0) missing.insert(key);
  }
  // Keys without a (valid) record: one walk of the space, hashing each configuration.
  for (int64_t i = 0; i < space_->size() && !missing.empty(); ++i) {
    std::string key = space_->KeyAt(i);
    if (missing.erase(key) > 0) where.emplace(std::move(key), static_cast<int>(i));
  }
  return where;
}

Status Scheduler::Init() {
  FS_RETURN_IF_ERROR(store_->PutSpec(spec_.name, spec_.text));
  FS_ASSIGN_OR_RETURN(space_, BuildSpace());
  configs_.AddSpace(space_.get());
  // Existing configuration records (resume) keep their state and failure counts; records are
  // written when a configuration first changes state (or is first counted), not here.
  FS_ASSIGN_OR_RETURN(std::vector<v1::ConfigRecord> stored, store_->LoadConfigs(spec_.name));
  // The stored attempts are read twice, one at a time (a resumed sweep of a million attempts
  // does not hold them): which configurations they touch, then the replay below.
  std::unordered_set<std::string> attempted;
  FS_RETURN_IF_ERROR(store_->ForEachAttempt(spec_.name, [&](const v1::Attempt& a) {
    if (!a.reference()) attempted.insert(a.config_key());
    return Status::Ok();
  }));
  const std::unordered_map<std::string, int> where = Locate(stored, attempted);
  for (auto& r : stored) {
    auto it = where.find(r.config_key());
    if (it == where.end()) continue;  // not (or no longer) in this sweep's configurations
    const bool fresh =
        (r.state() == v1::CONFIG_STATE_PENDING || r.state() == v1::CONFIG_STATE_LEASED) &&
        !r.eliminated() && attempted.count(r.config_key()) == 0;
    if (fresh) continue;  // no different from an untouched configuration (older stores)
    ConfigState& st = configs_.at(it->second);
    st.record = std::move(r);
    st.stored = true;
    if (st.record.state() == v1::CONFIG_STATE_LEASED) {
      st.record.set_state(v1::CONFIG_STATE_PENDING);
    }
    // Every failure is a stored attempt: the replay below counts them again from zero.
    st.record.set_failures(0);
  }
  for (const std::string& key : attempted) {
    auto it = where.find(key);
    if (it != where.end()) configs_.at(it->second);  // held: the replay counts into it
  }
  if (spec_.reference) {
    Config ref = *spec_.reference;
    for (const auto& p : spec_.params) {
      if (p.fate == ParamFate::kPinned && !ref.count(p.name)) ref[p.name] = p.values.front();
    }
    dispatcher_.SetReference(std::move(ref));
  }
  // Replay stored attempts.
  int64_t replayed = 0;
  FS_RETURN_IF_ERROR(store_->ForEachAttempt(spec_.name, [&](const v1::Attempt& a) {
    ++replayed;
    CountAttempt(a);
    const int index = configs_.Find(a.config_key());
    if (!a.reference() && index >= 0) configs_.at(index).node_runs[a.node()]++;
    return Status::Ok();
  }));
  reps_.StartBarrier();
  for (int i = 0; i < configs_.size(); ++i) Reevaluate(i);
  search_->AfterResults(&configs_);
  PersistChanged();
  spdlog::info("sweep {}: {} configurations ({} held), {} stored attempts replayed", spec_.name,
               configs_.size(), configs_.held(), replayed);
  return Status::Ok();
}

void Scheduler::CountAttempt(const v1::Attempt& a) {
  if (!leases_.Count(a.attempt_id())) return;
  if (a.ok()) {
    ++counters_.attempts_ok;
    counters_.samples += a.samples_size();
  } else {
    ++counters_.attempts_failed;
  }
  if (a.reference()) return;  // node-effect measurements do not count as repetitions
  const int index = configs_.Find(a.config_key());
  if (index < 0) return;
  if (a.ok()) {
    reps_.OnOkCounted(index, configs_.AddOk(index, a, spec_.primary_metric().name));
  } else {
    configs_.AddFailure(index, a);
  }
}

void Scheduler::Reevaluate(int index) {
  const auto old = configs_.Get(index).record.state();
  if (old == v1::CONFIG_STATE_DONE || old == v1::CONFIG_STATE_INFEASIBLE) return;
  configs_.SetState(index, reps_.Decide(index));  // an untouched one that stays PENDING stays so
  const ConfigState& c = configs_.Get(index);
  if (c.record.state() == v1::CONFIG_STATE_INFEASIBLE) {
    spdlog::warn("configuration {} ({}) is infeasible: {} failures, last {}: {}",
                 c.record.config_key(), ConfigToString(configs_.Params(index)), c.record.failures(),
                 FailureClassText(c.record.last_failure()), c.record.last_failure_detail());
  }
  PersistChanged();
  if (reps_.NeedsWork(index)) configs_.MarkReady(index);
  if (reps_.TakeBarrierPassed()) {  // the last stage 1 just ended: decide every held one
    for (int i = 0; i < configs_.size(); ++i) Reevaluate(i);
  }
}

bool Scheduler::IsLeaseKey(int config, const std::string& key) const {
  if (config < 0) return key == dispatcher_.reference_key();
  const std::string& held = configs_.Get(config).record.config_key();  // a leased one is held
  return held.empty() ? configs_.Key(config) == key : held == key;
}

const char* Scheduler::RefuseReason(const std::string& worker_id, const std::string& identity,
                                    const v1::Result& result) const {
  const v1::Attempt& a = result.attempt();
  if (result.sweep() != spec_.name) return "it names another sweep";
  const std::optional<LeaseGrant> g = leases_.FindGrant(result.lease_id());
  if (!g) return "no such lease was granted by this coordinator";
  if (*g->worker_id != worker_id || *g->identity != identity) {
    return "the lease was granted to another worker";
  }
  if (a.attempt_id() != result.lease_id()) return "its attempt id is not the lease id";
  if (a.reference() != g->reference || !IsLeaseKey(g->config, a.config_key())) {
    return "its configuration is not the lease's";
  }
  if (!SamplesAreFinite(a)) return "a sample is NaN or infinite";
  return nullptr;
}

StatusOr<bool> Scheduler::OnResult(const std::string& worker_id, const v1::Result& result,
                                   double now, const std::string& identity) {
  now_ = now;
  workers_.Touch(worker_id, now);
  const v1::Attempt& a = result.attempt();
  // Only the holder of a lease may report it: anything else is a confused or hostile peer,
  // acknowledged (so an honest worker stops re-sending) but neither stored nor counted.
  if (const char* why = RefuseReason(worker_id, identity, result)) {
    if (++counters_.refused <= 20 || counters_.refused % 1000 == 0) {
      spdlog::warn("result {} from {} refused: {} ({} refused so far)",
                   result.lease_id().substr(0, 120), worker_id.substr(0, 120), why,
                   counters_.refused);
    }
    return false;
  }
  const bool counted_before = leases_.Counted(a.attempt_id());
  if (!counted_before && stored_ahead_.erase(a.attempt_id()) == 0) {
    // Durable first: only a stored attempt is counted. A worker may have stored it already
    // (cluster mode); counting is by id.
    StatusOr<bool> put = store_->PutAttempt(spec_.name, a);
    NoteStoreWrite(put.status());
    if (!put.ok()) return put.status();
  }
  if (std::optional<LeaseInfo> info = leases_.Take(result.lease_id())) {
    workers_.DropLease(info->worker_id, result.lease_id());
    if (info->config >= 0 && !info->reference) configs_.LeaseEnded(info->config);
  }
  if (counted_before) {
    ++counters_.duplicates;
    return false;
  }
  CountAttempt(a);
  if (options_.on_attempt_counted) options_.on_attempt_counted(a);
  if (!a.ok()) ++counters_.retries;
  const int index = configs_.Find(a.config_key());
  if (index >= 0) Reevaluate(index);
  if (a.ok()) {
    search_->AfterResults(&configs_);
    PersistChanged();
  }
  return true;
}

bool Scheduler::Finished() const { return configs_.Finished(); }

Progress Scheduler::GetProgress() const {
  Progress p = counters_;
  p.total = configs_.size();
  p.store_failing_seconds = StoreFailingSeconds(now_);
  const StateCounts n = configs_.CountStates();
  p.pending = n.pending;
  p.leased = n.leased;
  p.done = n.done;
  p.infeasible = n.infeasible;
  p.eliminated = n.eliminated;
  p.workers = workers_.size();
  p.slots = workers_.Slots();
  p.busy = workers_.Busy();
  return p;
}

std::vector<std::string> Scheduler::WorkerIds() const { return workers_.Ids(); }

int Scheduler::BestIndex() const {
  return configs_.BestIndex(spec_.primary_metric().goal == Goal::kMinimize);
}

}  // namespace fleetsweep
