// The Scheduler facade (scheduler.h): resume (Init), counting results exactly once, and the
// re-evaluation of a configuration after each change. Leases and workers: scheduler_leases.cc;
// store writes and health: scheduler_store.cc.
#include "coordinator/scheduler/scheduler.h"

#include <algorithm>

#include "common/space/expand.h"
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

Status Scheduler::Init() {
  FS_RETURN_IF_ERROR(store_->PutSpec(spec_.name, spec_.text));
  // Existing configuration records (resume) keep their state and failure counts.
  FS_ASSIGN_OR_RETURN(std::vector<v1::ConfigRecord> stored, store_->LoadConfigs(spec_.name));
  std::unordered_map<std::string, v1::ConfigRecord> stored_by_key;
  for (auto& r : stored) stored_by_key.emplace(r.config_key(), std::move(r));

  std::vector<v1::ConfigRecord> fresh;
  std::vector<Config> expanded;
  {
    SpaceIterator it(spec_);
    Config c;
    while (it.Next(&c)) expanded.push_back(c);
    FS_RETURN_IF_ERROR(it.status());
  }
  std::vector<bool> keep = search_->Select(expanded);
  for (size_t e = 0; e < expanded.size(); ++e) {
    if (!keep[e]) continue;
    const Config& c = expanded[e];
    ConfigState st;
    st.params = c;
    const std::string key = ConfigHash(c);
    auto found = stored_by_key.find(key);
    if (found != stored_by_key.end()) {
      st.record = found->second;
      if (st.record.state() == v1::CONFIG_STATE_LEASED) {
        st.record.set_state(v1::CONFIG_STATE_PENDING);
      }
      // Every failure is a stored attempt: the replay below counts them again from zero.
      st.record.set_failures(0);
    } else {
      st.record.set_config_key(key);
      for (const auto& [name, value] : c) (*st.record.mutable_params())[name] = value.ToString();
      st.record.set_state(v1::CONFIG_STATE_PENDING);
      st.record.set_seq(configs_.size());
      fresh.push_back(st.record);
    }
    configs_.Add(std::move(st));
  }
  for (size_t i = 0; i < fresh.size(); i += 1000) {
    std::vector<v1::ConfigRecord> batch(fresh.begin() + i,
                                        fresh.begin() + std::min(fresh.size(), i + 1000));
    FS_RETURN_IF_ERROR(store_->PutConfigs(spec_.name, batch));
  }
  if (spec_.reference) {
    Config ref = *spec_.reference;
    for (const auto& p : spec_.params) {
      if (p.fate == ParamFate::kPinned && !ref.count(p.name)) ref[p.name] = p.values.front();
    }
    dispatcher_.SetReference(std::move(ref));
  }
  // Replay stored attempts.
  FS_ASSIGN_OR_RETURN(std::vector<v1::Attempt> attempts, store_->LoadAttempts(spec_.name));
  for (const auto& a : attempts) {
    CountAttempt(a);
    const int index = configs_.Find(a.config_key());
    if (!a.reference() && index >= 0) configs_.at(index).node_runs[a.node()]++;
  }
  reps_.StartBarrier();
  for (int i = 0; i < configs_.size(); ++i) Reevaluate(i);
  search_->AfterResults(&configs_);
  PersistChanged();
  spdlog::info("sweep {}: {} configurations, {} stored attempts replayed", spec_.name,
               configs_.size(), attempts.size());
  return Status::Ok();
}

void Scheduler::CountAttempt(const v1::Attempt& a) {
  if (!counted_.insert(a.attempt_id()).second) return;
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
  const ConfigState& c = configs_.at(index);
  const auto old = c.record.state();
  if (old == v1::CONFIG_STATE_DONE || old == v1::CONFIG_STATE_INFEASIBLE) return;
  configs_.SetState(index, reps_.Decide(index));
  if (c.record.state() == v1::CONFIG_STATE_INFEASIBLE) {
    spdlog::warn("configuration {} ({}) is infeasible: {} failures, last {}: {}",
                 c.record.config_key(), ConfigToString(c.params), c.record.failures(),
                 FailureClassText(c.record.last_failure()), c.record.last_failure_detail());
  }
  PersistChanged();
  if (reps_.NeedsWork(index)) configs_.MarkReady(index);
  if (reps_.TakeBarrierPassed()) {  // the last stage 1 just ended: decide every held one
    for (int i = 0; i < configs_.size(); ++i) Reevaluate(i);
  }
}

const char* Scheduler::RefuseReason(const std::string& worker_id, const std::string& identity,
                                    const v1::Result& result) const {
  const v1::Attempt& a = result.attempt();
  if (result.sweep() != spec_.name) return "it names another sweep";
  const LeaseGrant* g = leases_.FindGrant(result.lease_id());
  if (g == nullptr) return "no such lease was granted by this coordinator";
  if (g->worker_id != worker_id || g->identity != identity) {
    return "the lease was granted to another worker";
  }
  if (a.attempt_id() != result.lease_id()) return "its attempt id is not the lease id";
  if (a.config_key() != g->config_key || a.reference() != g->reference) {
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
  const bool counted_before = counted_.count(a.attempt_id()) > 0;
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
