// IncrementalAggregate's table of entries: configurations in (their records), attempts in. The
// summaries, audits and ranking are computed in incremental_aggregate.cc.
#include <cmath>

#include "common/store/failure_text.h"
#include "coordinator/aggregate/incremental_aggregate.h"

namespace fleetsweep {

namespace {

ConfigOutcome Outcome(const v1::ConfigRecord& r) {
  switch (r.state()) {
    case v1::CONFIG_STATE_DONE:
      return r.eliminated() ? ConfigOutcome::kEliminated : ConfigOutcome::kDone;
    case v1::CONFIG_STATE_INFEASIBLE:
      return ConfigOutcome::kInfeasible;
    case v1::CONFIG_STATE_LEASED:
      return ConfigOutcome::kLeased;
    default:
      return ConfigOutcome::kPending;
  }
}

std::string ClassName(int c) { return FailureClassText(static_cast<v1::FailureClass>(c)); }

}  // namespace

IncrementalAggregate::IncrementalAggregate(const SweepSpec& spec,
                                           const std::vector<v1::ConfigRecord>& records,
                                           AggregateOptions options)
    : spec_(spec),
      options_(options),
      primary_(spec.primary_metric().name),
      log_(spec.primary_metric().name) {
  Reserve(records.size());
  for (const auto& r : records) Append(r);
}

IncrementalAggregate::IncrementalAggregate(const SweepSpec& spec,
                                           std::vector<v1::ConfigRecord>&& records,
                                           AggregateOptions options)
    : spec_(spec),
      options_(options),
      primary_(spec.primary_metric().name),
      log_(spec.primary_metric().name) {
  Reserve(records.size());
  for (auto& r : records) AppendTaking(&r);
}

void IncrementalAggregate::Reserve(size_t configurations) {
  log_.ReserveKeys(configurations);
  entry_of_logged_.reserve(configurations);
}

void IncrementalAggregate::Append(const v1::ConfigRecord& r) {
  Entry e;
  SetRecordState(r, &e);
  e.base.key = r.config_key();
  for (const auto& [k, v] : r.params()) e.base.params[k] = v;
  Insert(std::move(e));
}

void IncrementalAggregate::AppendTaking(v1::ConfigRecord* r) {
  Entry e;
  SetRecordState(*r, &e);
  e.base.key = std::move(*r->mutable_config_key());
  for (auto& [k, v] : *r->mutable_params()) e.base.params.emplace(k, std::move(v));
  v1::ConfigRecord().Swap(r);  // r's storage goes now, not with the whole vector
  Insert(std::move(e));
}

size_t IncrementalAggregate::EntryBytes() { return sizeof(Entry); }

void IncrementalAggregate::Insert(Entry e) {
  const auto logged = static_cast<size_t>(log_.InternKey(e.base.key));
  if (logged >= entry_of_logged_.size()) entry_of_logged_.resize(logged + 1, kNoEntry);
  entry_of_logged_[logged] = entries_.size();  // a key given twice: the later entry counts
  entries_.push_back(std::move(e));  // dirty: its (empty) summaries are computed on Result
  ++dirty_count_;
}

size_t IncrementalAggregate::EntryOf(const std::string& key) const {
  const int32_t logged = log_.FindKey(key);
  const auto slot = static_cast<size_t>(logged);
  return logged >= 0 && slot < entry_of_logged_.size() ? entry_of_logged_[slot] : kNoEntry;
}

void IncrementalAggregate::Track(const v1::ConfigRecord& r) {
  if (EntryOf(r.config_key()) == kNoEntry) {
    Append(r);
  } else {
    UpdateRecord(r);
  }
}

void IncrementalAggregate::UpdateRecord(const v1::ConfigRecord& r) {
  const size_t i = EntryOf(r.config_key());
  if (i == kNoEntry) return;
  SetRecordState(r, &entries_[i]);
}

void IncrementalAggregate::SetRecordState(const v1::ConfigRecord& r, Entry* e) {
  e->base.status = Outcome(r);
  e->record_infeasible = r.state() == v1::CONFIG_STATE_INFEASIBLE;
  if (e->record_infeasible && !e->failures) e->failures = std::make_unique<FailureTexts>();
  if (e->failures) {
    e->failures->record_class = e->record_infeasible ? ClassName(r.last_failure()) : "";
    e->failures->record_detail = e->record_infeasible ? r.last_failure_detail() : "";
  }
}

size_t IncrementalAggregate::GroupFiniteSamples(const v1::Attempt& a) {
  size_t used = 0;
  for (const auto& s : a.samples()) {
    if (!std::isfinite(s.value())) continue;
    size_t g = 0;
    while (g < used && groups_[g].first != s.metric()) ++g;
    if (g == used) {
      if (used == groups_.size()) groups_.emplace_back();
      groups_[used].first = s.metric();
      groups_[used].second.clear();
      ++used;
    }
    groups_[g].second.push_back(s.value());
  }
  return used;
}

IncrementalAggregate::Entry* IncrementalAggregate::Find(int32_t logged, const std::string& key) {
  const auto slot = static_cast<size_t>(logged);
  const size_t i = logged < 0                       ? EntryOf(key)
                   : slot < entry_of_logged_.size() ? entry_of_logged_[slot]
                                                    : kNoEntry;
  return i == kNoEntry ? nullptr : &entries_[i];  // none: not remembered; Track may add it later
}

void IncrementalAggregate::Add(const v1::Attempt& a) {
  ++total_attempts_;
  if (!a.ok()) ++failed_attempts_;
  // Every ok attempt is logged, reference ones and unknown keys included.
  const size_t groups = a.ok() ? GroupFiniteSamples(a) : 0;
  const std::vector<double>* primary = nullptr;
  for (size_t g = 0; g < groups && primary == nullptr; ++g) {
    if (groups_[g].first == primary_) primary = &groups_[g].second;
  }
  static const std::vector<double> kNone;
  const ExecutionLog::Ids ids = log_.AddWith(a, primary != nullptr ? *primary : kNone);
  if (a.reference()) return;
  Entry* found = Find(ids.config, a.config_key());
  if (found == nullptr) return;
  Entry& e = *found;
  ConfigResult* c = &e.base;
  ++c->attempts;
  c->nodes.insert(a.node());
  if (!a.ok()) {
    ++c->failed_attempts;
    c->failures_by_class[ClassName(a.failure_class())]++;
    if (!e.failures) e.failures = std::make_unique<FailureTexts>();
    if (!e.any_failure || e.failures->attempt_class.empty()) {
      e.failures->attempt_class = ClassName(a.failure_class());
      e.failures->attempt_detail = a.failure_detail();
    }
    e.any_failure = true;
    return;  // a failed attempt changes no summary
  }
  ++c->ok_attempts;
  if (!a.fingerprint().empty()) c->fingerprints.insert(a.fingerprint());
  if (primary != nullptr) {
    e.primary_nodes.push_back(ids.node);
    e.primary_sessions.push_back(ids.session);
  }
  for (size_t g = 0; g < groups; ++g) {
    const std::vector<double>& xs = groups_[g].second;
    e.raw[groups_[g].first].emplace_back(xs.begin(), xs.end());
  }
  total_samples_ += a.samples_size();
  if (!e.dirty) ++dirty_count_;
  e.dirty = true;
}

}  // namespace fleetsweep
