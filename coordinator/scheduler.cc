#include "coordinator/scheduler.h"

#include <sys/random.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/space/expand.h"
#include "common/stats/bootstrap.h"
#include "common/store/failure_text.h"
#include "common/store/store_checks.h"
#include "common/wire/wire.h"
#include "coordinator/robust.h"
#include "spdlog/spdlog.h"

namespace fleetsweep {
namespace {

bool IsDeterministic(int failure_class) {
  switch (failure_class) {
    case v1::FAILURE_CLASS_NOT_IMPLEMENTED:
    case v1::FAILURE_CLASS_WRONG_RESULT:
    case v1::FAILURE_CLASS_OUT_OF_MEMORY:
    case v1::FAILURE_CLASS_REFUSED:
    case v1::FAILURE_CLASS_LAUNCH:
      return true;
    default:
      return false;
  }
}

}  // namespace

Scheduler::Scheduler(const SweepSpec& spec, SchedulerOptions options, ResultStore* store)
    : spec_(spec), options_(std::move(options)), store_(store) {
  spec_hash_ = Hex16(Fnv1a64(spec_.text));
  if (options_.epoch.empty()) options_.epoch = "e0";
  draw_state_ = Fnv1a64(options_.epoch, options_.seed);
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
  std::vector<bool> keep = SelectSubset(expanded);
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
      st.record.set_seq(static_cast<int64_t>(configs_.size()));
      fresh.push_back(st.record);
    }
    index_by_key_[key] = static_cast<int>(configs_.size());
    configs_.push_back(std::move(st));
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
    reference_ = ref;
    reference_key_ = ConfigHash(ref);
  }
  // Replay stored attempts.
  FS_ASSIGN_OR_RETURN(std::vector<v1::Attempt> attempts, store_->LoadAttempts(spec_.name));
  for (const auto& a : attempts) {
    CountAttempt(a);
    auto it = index_by_key_.find(a.config_key());
    if (!a.reference() && it != index_by_key_.end()) configs_[it->second].node_runs[a.node()]++;
  }
  stage1_pending_ = 0;
  for (const auto& c : configs_) {
    if (c.ok_attempts < spec_.repetitions.min && c.record.state() != v1::CONFIG_STATE_INFEASIBLE) {
      ++stage1_pending_;
    }
  }
  counting_stage1_ = true;
  for (size_t i = 0; i < configs_.size(); ++i) Reevaluate(static_cast<int>(i));
  if (spec_.search.strategy == "racing") Race();
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
  auto it = index_by_key_.find(a.config_key());
  if (it == index_by_key_.end()) return;
  ConfigState& c = configs_[it->second];
  if (a.ok()) {
    ++c.ok_attempts;
    if (c.ok_attempts == spec_.repetitions.min) StageOneFinished();
    std::vector<double> mine;
    for (const auto& s : a.samples()) {
      if (s.metric() == spec_.primary_metric().name && std::isfinite(s.value())) {
        mine.push_back(s.value());
      }
    }
    if (!mine.empty()) {
      c.primary.insert(c.primary.end(), mine.begin(), mine.end());
      c.executions.push_back(std::move(mine));
      c.median = MedianOf(c.primary);
      UpdateLeader(it->second);
    }
  } else {
    c.failure_counts[a.failure_class()]++;
    c.record.set_failures(c.record.failures() + 1);
    c.record.set_last_failure(a.failure_class());
    c.record.set_last_failure_detail(a.failure_detail().substr(0, 500));
  }
}

bool Scheduler::NeedsWork(ConfigState& c) {
  const auto st = c.record.state();
  if (st == v1::CONFIG_STATE_DONE || st == v1::CONFIG_STATE_INFEASIBLE) return false;
  if (c.record.eliminated()) return false;
  const RepetitionPolicy& r = spec_.repetitions;
  const int planned = c.ok_attempts + c.inflight;
  // After a failure, retry one at a time: a deterministic failure must not fan out.
  if (c.record.failures() > 0 && c.inflight > 0) return false;
  if (planned < r.min) return true;
  if (planned >= r.max) return false;
  if (c.extended) return true;       // stage 2: straight to repetitions.max
  if (c.inflight > 0) return false;  // decide adaptively once the results are in
  return !CiTight(&c);
}

void Scheduler::Reevaluate(int index) {
  ConfigState& c = configs_[index];
  const RepetitionPolicy& r = spec_.repetitions;
  auto old = c.record.state();
  if (old == v1::CONFIG_STATE_DONE || old == v1::CONFIG_STATE_INFEASIBLE) return;
  bool infeasible = c.record.failures() >= r.max_failures;
  for (const auto& [cls, n] : c.failure_counts) {
    if (IsDeterministic(cls) && n >= r.deterministic_failures) infeasible = true;
  }
  // Stage 2 (repetition.cc): decided once every configuration has finished stage 1; until then
  // a configuration at the end of its stage 1 is held (not done).
  bool hold = false;
  if (!infeasible && c.inflight == 0 && c.ok_attempts >= r.min && c.ok_attempts < r.max &&
      !c.extended && !c.record.eliminated() && !c.primary.empty() && options_.extend_contenders) {
    if (stage1_pending_ > 0) {
      hold = true;
    } else {
      ExtendContenders(index);  // may set c.extended
    }
  }
  if (infeasible && c.ok_attempts < r.min) {
    c.record.set_state(v1::CONFIG_STATE_INFEASIBLE);
    if (old != v1::CONFIG_STATE_INFEASIBLE) StageOneFinished();
  } else if (c.inflight == 0 && c.record.eliminated()) {
    c.record.set_state(v1::CONFIG_STATE_DONE);
  } else if (c.inflight == 0 && c.ok_attempts >= r.min && !hold &&
             (c.ok_attempts >= r.max || c.primary.empty() || (!c.extended && CiTight(&c)))) {
    c.record.set_state(v1::CONFIG_STATE_DONE);
  } else if (c.inflight > 0) {
    c.record.set_state(v1::CONFIG_STATE_LEASED);
  } else {
    c.record.set_state(v1::CONFIG_STATE_PENDING);
  }
  if (c.record.state() != old) {
    Status s = PersistConfig(index);
    if (!s.ok()) spdlog::warn("store: {}", s.ToString());
    if (c.record.state() == v1::CONFIG_STATE_INFEASIBLE) {
      const std::string cls = FailureClassText(c.record.last_failure());
      spdlog::warn("configuration {} ({}) is infeasible: {} failures, last {}: {}",
                   c.record.config_key(), ConfigToString(c.params), c.record.failures(), cls,
                   c.record.last_failure_detail());
    }
  }
  if (NeedsWork(c)) MarkReady(index);
  if (stage1_complete_now_) {  // the last stage 1 just ended: decide every held configuration
    stage1_complete_now_ = false;
    for (size_t i = 0; i < configs_.size(); ++i) Reevaluate(static_cast<int>(i));
  }
}

void Scheduler::MarkReady(int index) {
  ConfigState& c = configs_[index];
  if (c.in_ready) return;
  c.in_ready = true;
  ready_.push_back(index);
}

v1::HelloAck Scheduler::OnHello(const std::string& worker_id, const v1::Hello& hello, double now,
                                const std::string& identity) {
  WorkerInfo& w = workers_[worker_id];
  if (!w.leases.empty() && w.identity != identity) {
    // Another peer took over this worker id: the old holder's leases are not its to report.
    std::set<std::string> leases = w.leases;
    for (const auto& id : leases) ExpireLease(id, "worker id taken over by another identity");
    w.leases.clear();
  }
  w.identity = identity;
  w.node = hello.node();
  w.last_seen = now;
  v1::HelloAck ack;
  ack.set_coordinator_id(options_.epoch);
  ack.set_heartbeat_interval_seconds(options_.heartbeat_seconds);
  *ack.mutable_spec() = SpecMessage();
  const std::string& platform = hello.node().platform();
  spdlog::info("worker {} joined: node {} with {} slots{}", worker_id, hello.node().node(),
               hello.node().slots(), platform.empty() ? "" : ", platform " + platform);
  return ack;
}

std::string Scheduler::NewLeaseId(const std::string& key, bool reference) {
  // <config_key>-<epoch>-<128 random bits as 32 hex digits>[-ref]: unguessable, so a peer cannot
  // report (or pre-empt) a lease it was not given.
  unsigned char bits[16];
  size_t got = 0;
  while (got < sizeof bits) {
    ssize_t n = getrandom(bits + got, sizeof bits - got, 0);
    if (n > 0) got += static_cast<size_t>(n);
  }
  char hex[33];
  for (int i = 0; i < 16; ++i) std::snprintf(hex + 2 * i, 3, "%02x", bits[i]);
  return key + "-" + options_.epoch + "-" + hex + (reference ? "-ref" : "");
}

v1::Lease Scheduler::MakeLease(int index, const std::string& worker_id, bool reference,
                               double now) {
  v1::Lease lease;
  const Config& params = index >= 0 ? configs_[index].params : *reference_;
  const std::string key = index >= 0 ? configs_[index].record.config_key() : reference_key_;
  lease.set_lease_id(NewLeaseId(key, reference));
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
  leases_[lease.lease_id()] = info;
  WorkerInfo& holder = workers_[worker_id];
  holder.leases.insert(lease.lease_id());
  grants_[lease.lease_id()] = Grant{worker_id, holder.identity, key, reference};
  if (index >= 0 && !reference) {
    configs_[index].inflight++;
    if (configs_[index].record.state() == v1::CONFIG_STATE_PENDING) {
      configs_[index].record.set_state(v1::CONFIG_STATE_LEASED);
    }
  }
  if (options_.on_lease_granted) options_.on_lease_granted(lease);
  return lease;
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

void Scheduler::OnHeartbeat(const std::string& worker_id, const v1::Heartbeat& hb, double now) {
  auto wit = workers_.find(worker_id);
  if (wit == workers_.end()) return;
  wit->second.last_seen = now;
  // A prefetched lease waits behind running executions: its holder renews it by naming it. A
  // running lease is not renewed (its deadline is the backstop against a hung slot). Renewal is
  // capped: an honest slot starts a waiting lease within (kMaxPrefetchPerSlot + 1) lease lengths
  // of its grant, so a worker that names a lease as waiting forever loses it then.
  for (const std::string& id : hb.waiting_lease_ids()) {
    auto lit = leases_.find(id);
    if (lit == leases_.end() || lit->second.worker_id != worker_id) continue;
    LeaseInfo& l = lit->second;
    const double cap = l.granted_at + (kMaxPrefetchPerSlot + 1) * l.lease_seconds;
    l.deadline = std::max(l.deadline, std::min(now + l.lease_seconds, cap));
  }
}

const char* Scheduler::RefuseReason(const std::string& worker_id, const std::string& identity,
                                    const v1::Result& result) const {
  const v1::Attempt& a = result.attempt();
  if (result.sweep() != spec_.name) return "it names another sweep";
  auto git = grants_.find(result.lease_id());
  if (git == grants_.end()) return "no such lease was granted by this coordinator";
  const Grant& g = git->second;
  if (g.worker_id != worker_id || g.identity != identity) {
    return "the lease was granted to another worker";
  }
  if (a.attempt_id() != result.lease_id()) return "its attempt id is not the lease id";
  if (a.config_key() != g.config_key || a.reference() != g.reference) {
    return "its configuration is not the lease's";
  }
  if (!SamplesAreFinite(a)) return "a sample is NaN or infinite";
  return nullptr;
}

StatusOr<bool> Scheduler::OnResult(const std::string& worker_id, const v1::Result& result,
                                   double now, const std::string& identity) {
  now_ = now;
  auto wit = workers_.find(worker_id);
  if (wit != workers_.end()) wit->second.last_seen = now;
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
  auto lit = leases_.find(result.lease_id());
  const bool counted_before = counted_.count(a.attempt_id()) > 0;
  if (!counted_before) {
    // Durable first: only a stored attempt is counted.
    if (stored_ahead_.erase(a.attempt_id()) == 0) {
      StatusOr<bool> put = store_->PutAttempt(spec_.name, a);
      NoteStoreWrite(put.status());
      if (!put.ok()) return put.status();
    }
    // A worker may have stored it already (cluster mode); counting is by id.
  }
  if (lit != leases_.end()) {
    const LeaseInfo info = lit->second;
    leases_.erase(lit);
    auto w2 = workers_.find(info.worker_id);
    if (w2 != workers_.end()) w2->second.leases.erase(result.lease_id());
    if (info.config >= 0 && !info.reference) configs_[info.config].inflight--;
  }
  if (counted_before) {
    ++counters_.duplicates;
    return false;
  }
  CountAttempt(a);
  if (options_.on_attempt_counted) options_.on_attempt_counted(a);
  if (!a.ok()) ++counters_.retries;
  auto cit = index_by_key_.find(a.config_key());
  if (cit != index_by_key_.end()) Reevaluate(cit->second);
  if (spec_.search.strategy == "racing" && a.ok()) Race();
  return true;
}

void Scheduler::ExpireLease(const std::string& lease_id, const char* why) {
  auto it = leases_.find(lease_id);
  if (it == leases_.end()) return;
  LeaseInfo info = it->second;
  leases_.erase(it);
  ++counters_.leases_expired;
  spdlog::warn("lease {} expired ({}); its configuration goes back to the queue", lease_id, why);
  if (info.config >= 0 && !info.reference) {
    configs_[info.config].inflight--;
    Reevaluate(info.config);
  }
}

void Scheduler::OnWorkerGone(const std::string& worker_id, double now) {
  auto wit = workers_.find(worker_id);
  if (wit == workers_.end()) return;
  std::set<std::string> leases = wit->second.leases;
  workers_.erase(wit);
  spdlog::warn("worker {} is gone; {} leases return to the queue", worker_id, leases.size());
  for (const auto& id : leases) ExpireLease(id, "worker gone");
}

void Scheduler::Tick(double now) {
  now_ = now;
  ProbeStore(now);
  std::vector<std::string> silent;
  for (const auto& [id, w] : workers_) {
    if (now - w.last_seen > options_.worker_timeout_seconds) silent.push_back(id);
  }
  for (const auto& id : silent) OnWorkerGone(id, now);
  // While the store refuses writes, results cannot be stored: an overdue lease is most likely a
  // result waiting to be stored, not a lost execution. Do not run it again.
  if (store_failing_) return;
  std::vector<std::string> overdue;
  for (const auto& [id, l] : leases_) {
    if (now > l.deadline) overdue.push_back(id);
  }
  for (const auto& id : overdue) {
    auto it = leases_.find(id);
    if (it != leases_.end()) {
      auto w = workers_.find(it->second.worker_id);
      if (w != workers_.end()) w->second.leases.erase(id);
    }
    ExpireLease(id, "deadline passed");
  }
}

bool Scheduler::Finished() const {
  // Called on every wake-up: configurations before finished_scan_ are known finished (only
  // Reopen takes one back, and moves the mark), so the scan is amortised O(1).
  while (finished_scan_ < configs_.size()) {
    auto st = configs_[finished_scan_].record.state();
    if (st != v1::CONFIG_STATE_DONE && st != v1::CONFIG_STATE_INFEASIBLE) return false;
    ++finished_scan_;
  }
  return true;
}

Progress Scheduler::GetProgress() const {
  Progress p = counters_;
  p.total = static_cast<int64_t>(configs_.size());
  p.store_failing_seconds = StoreFailingSeconds(now_);
  for (const auto& c : configs_) {
    switch (c.record.state()) {
      case v1::CONFIG_STATE_DONE:
        ++p.done;
        if (c.record.eliminated()) ++p.eliminated;
        break;
      case v1::CONFIG_STATE_INFEASIBLE:
        ++p.infeasible;
        break;
      case v1::CONFIG_STATE_LEASED:
        ++p.leased;
        break;
      default:
        ++p.pending;
        break;
    }
  }
  p.workers = static_cast<int64_t>(workers_.size());
  for (const auto& [id, w] : workers_) {
    p.slots += w.node.slots();
    p.busy += static_cast<int64_t>(w.leases.size());
  }
  return p;
}

std::vector<std::string> Scheduler::WorkerIds() const {
  std::vector<std::string> ids;
  for (const auto& [id, w] : workers_) ids.push_back(id);
  return ids;
}

int Scheduler::BestIndex() const {
  const bool minimize = spec_.primary_metric().goal == Goal::kMinimize;
  int best = -1;
  double best_v = 0;
  for (size_t i = 0; i < configs_.size(); ++i) {
    const auto& c = configs_[i];
    if (c.primary.empty()) continue;
    if (best < 0 || (minimize ? c.median < best_v : c.median > best_v)) {
      best = static_cast<int>(i);
      best_v = c.median;
    }
  }
  return best;
}

}  // namespace fleetsweep
