// IncrementalAggregate's table of entries: configurations in (their records), attempts in. The
// summaries, audits and ranking are computed in incremental_aggregate.cc.
#include <algorithm>
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

// Adds `id` to the sorted, distinct `ids` (a configuration has few nodes and fingerprints).
void InsertSorted(int32_t id, std::vector<int32_t>* ids) {
  auto at = std::lower_bound(ids->begin(), ids->end(), id);
  if (at == ids->end() || *at != id) ids->insert(at, id);
}

}  // namespace

IncrementalAggregate::IncrementalAggregate(const SweepSpec& spec,
                                           const std::vector<v1::ConfigRecord>& records,
                                           AggregateOptions options)
    : spec_(spec),
      options_(options),
      primary_(spec.primary_metric().name),
      log_(spec.primary_metric().name) {
  primary_id_ = metric_names_.Intern(primary_);
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
  primary_id_ = metric_names_.Intern(primary_);
  Reserve(records.size());
  for (auto& r : records) AppendTaking(&r);
}

void IncrementalAggregate::Reserve(size_t configurations) {
  log_.ReserveKeys(configurations);
  entry_of_logged_.reserve(configurations);
}

std::vector<int32_t> IncrementalAggregate::ParamIds(const v1::ConfigRecord& r) {
  std::vector<int32_t> ids;
  ids.reserve(2 * static_cast<size_t>(r.params_size()));
  for (const auto& [k, v] : r.params()) {
    ids.push_back(param_names_.Intern(k));
    ids.push_back(param_values_.Intern(v));
  }
  return ids;
}

void IncrementalAggregate::Append(const v1::ConfigRecord& r) {
  Entry e;
  SetRecordState(r, &e);
  e.params = ParamIds(r);
  Insert(r.config_key(), std::move(e));
}

void IncrementalAggregate::AppendTaking(v1::ConfigRecord* r) {
  Append(*r);
  v1::ConfigRecord().Swap(r);  // r's storage goes now, not with the whole vector
}

size_t IncrementalAggregate::EntryBytes() { return sizeof(Entry); }

void IncrementalAggregate::Insert(const std::string& key, Entry e) {
  e.logged = log_.InternKey(key);
  const auto logged = static_cast<size_t>(e.logged);
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
  e->status = Outcome(r);
  e->record_infeasible = r.state() == v1::CONFIG_STATE_INFEASIBLE;
  if (e->record_infeasible || e->rare) {
    Rare& f = e->rare_texts();
    f.record_class = e->record_infeasible ? ClassName(r.last_failure()) : "";
    f.record_detail = e->record_infeasible ? r.last_failure_detail() : "";
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

IncrementalAggregate::Executions* IncrementalAggregate::RawOf(Entry& e, int32_t id) {
  for (auto& [metric, execs] : e.raw) {
    if (metric == id) return &execs;
  }
  return nullptr;
}

IncrementalAggregate::Entry* IncrementalAggregate::Find(int32_t logged, const std::string& key) {
  const auto slot = static_cast<size_t>(logged);
  const size_t i = logged < 0                       ? EntryOf(key)
                   : slot < entry_of_logged_.size() ? entry_of_logged_[slot]
                                                    : kNoEntry;
  return i == kNoEntry ? nullptr : &entries_[i];  // none: not remembered; Track may add it later
}

int32_t IncrementalAggregate::NodeId(int32_t logged, const std::string& node) {
  if (logged < 0) return nodes_.Intern(node);  // not logged (failed): found by name
  const auto slot = static_cast<size_t>(logged);
  if (slot >= node_of_logged_.size()) node_of_logged_.resize(slot + 1, -1);
  if (node_of_logged_[slot] < 0) node_of_logged_[slot] = nodes_.Intern(node);
  return node_of_logged_[slot];
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
  ++e.attempts;
  InsertSorted(NodeId(ids.node, a.node()), &e.nodes);
  if (!a.ok()) {
    ++e.failed_attempts;
    Rare& f = e.rare_texts();
    f.failures_by_class[ClassName(a.failure_class())]++;
    if (!e.any_failure || f.attempt_class.empty()) {
      f.attempt_class = ClassName(a.failure_class());
      f.attempt_detail = a.failure_detail();
    }
    e.any_failure = true;
    return;  // a failed attempt changes no summary
  }
  ++e.ok_attempts;
  if (!a.fingerprint().empty())
    InsertSorted(fingerprints_.Intern(a.fingerprint()), &e.fingerprints);
  if (primary != nullptr) {
    e.primary_nodes.push_back(ids.node);
    e.primary_sessions.push_back(ids.session);
  }
  for (size_t g = 0; g < groups; ++g) {
    const std::vector<double>& xs = groups_[g].second;
    const std::string& name = groups_[g].first;
    const int32_t metric = name == primary_ ? primary_id_ : metric_names_.Intern(name);
    Executions* raw = RawOf(e, metric);
    if (raw == nullptr) raw = &e.raw.emplace_back(metric, Executions{}).second;
    raw->emplace_back(xs.begin(), xs.end());
  }
  total_samples_ += a.samples_size();
  if (!e.dirty) ++dirty_count_;
  e.dirty = true;
}

}  // namespace fleetsweep
