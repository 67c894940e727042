#include "coordinator/scheduler/config_table.h"

#include <algorithm>
#include <cmath>

#include "common/stats/descriptive.h"

namespace fleetsweep {
namespace {

bool IsFinished(v1::ConfigState s) {
  return s == v1::CONFIG_STATE_DONE || s == v1::CONFIG_STATE_INFEASIBLE;
}

const ConfigState& Fresh() {
  static const ConfigState* fresh = [] {
    auto* s = new ConfigState();
    s->record.set_state(v1::CONFIG_STATE_PENDING);
    return s;
  }();
  return *fresh;
}

}  // namespace

int ConfigTable::Add(ConfigState state) {
  const int index = size();
  index_by_key_[state.record.config_key()] = index;
  slot_.push_back(static_cast<int32_t>(held_.size()));
  in_ready_.push_back(false);
  held_index_.push_back(index);
  held_.push_back(std::move(state));
  held_.back().stored = true;  // the caller's record, as given
  return index;
}

void ConfigTable::AddSpace(const SpaceIndex* space) {
  space_ = space;
  slot_.assign(static_cast<size_t>(space->size()), -1);
  in_ready_.assign(static_cast<size_t>(space->size()), false);
}

int ConfigTable::Find(const std::string& key) const {
  auto it = index_by_key_.find(key);
  return it == index_by_key_.end() ? -1 : it->second;
}

ConfigState& ConfigTable::at(int index) {
  int32_t& slot = slot_[static_cast<size_t>(index)];
  if (slot >= 0) return held_[static_cast<size_t>(slot)];
  // Params are not copied in: Params() and Record() decode them from the space (issue 16: a
  // held configuration of a million-configuration sweep costs its state, not its parameters).
  ConfigState s;
  s.record.set_config_key(space_->KeyAt(index));
  s.record.set_state(v1::CONFIG_STATE_PENDING);
  s.record.set_seq(index);
  index_by_key_[s.record.config_key()] = index;
  slot = static_cast<int32_t>(held_.size());
  held_index_.push_back(index);
  held_.push_back(std::move(s));
  return held_.back();
}

const ConfigState& ConfigTable::Get(int index) const {
  const int32_t slot = slot_[static_cast<size_t>(index)];
  return slot >= 0 ? held_[static_cast<size_t>(slot)] : Fresh();
}

Config ConfigTable::Params(int index) const {
  return space_ != nullptr ? space_->ParamsAt(index) : Get(index).params;
}

std::string ConfigTable::Key(int index) const {
  return Held(index) ? Get(index).record.config_key() : space_->KeyAt(index);
}

v1::ConfigRecord ConfigTable::Record(int index) const {
  v1::ConfigRecord r;
  const bool held = Held(index);
  if (held) {
    r = Get(index).record;
    if (space_ == nullptr || !r.params().empty()) return r;  // a resumed record has its params
  }
  const Config params = space_->ParamsAt(index);  // decoded once: the key is its hash
  if (!held) {
    r.set_config_key(ConfigHash(params));
    r.set_state(v1::CONFIG_STATE_PENDING);
    r.set_seq(index);
  }
  for (const auto& [name, value] : params) (*r.mutable_params())[name] = value.ToString();
  return r;
}

std::vector<int> ConfigTable::HeldIndices() const {
  std::vector<int> out;
  out.reserve(held_.size());
  if (held_.size() * 16 > slot_.size()) {
    for (size_t i = 0; i < slot_.size(); ++i) {
      if (slot_[i] >= 0) out.push_back(static_cast<int>(i));
    }
    return out;
  }
  out = held_index_;
  std::sort(out.begin(), out.end());
  return out;
}

v1::ConfigState ConfigTable::StateOf(size_t index) const {
  const int32_t slot = slot_[index];
  return slot >= 0 ? held_[static_cast<size_t>(slot)].record.state() : v1::CONFIG_STATE_PENDING;
}

void ConfigTable::SetState(int index, v1::ConfigState state) {
  if (StateOf(static_cast<size_t>(index)) == state) return;
  v1::ConfigRecord& r = at(index).record;
  r.set_state(state);
  changed_.insert(index);
  if (!IsFinished(state)) finished_scan_ = std::min(finished_scan_, static_cast<size_t>(index));
}

std::vector<int> ConfigTable::TakeChanged() {
  std::vector<int> out(changed_.begin(), changed_.end());
  changed_.clear();
  for (int index : out) at(index).stored = true;
  return out;
}

void ConfigTable::LeaseStarted(int index) {
  ConfigState& c = at(index);
  ++c.inflight;
  if (c.record.state() == v1::CONFIG_STATE_PENDING) c.record.set_state(v1::CONFIG_STATE_LEASED);
}

bool ConfigTable::AddOk(int index, const v1::Attempt& attempt, const std::string& metric) {
  ConfigState& c = at(index);
  if (!c.stored) changed_.insert(index);
  ++c.ok_attempts;
  std::vector<double> mine;
  for (const auto& s : attempt.samples()) {
    if (s.metric() == metric && std::isfinite(s.value())) mine.push_back(s.value());
  }
  if (mine.empty()) return false;
  c.primary.insert(c.primary.end(), mine.begin(), mine.end());
  c.executions.push_back(std::move(mine));
  c.median = stats::MedianOf(c.primary);
  return true;
}

void ConfigTable::AddFailure(int index, const v1::Attempt& attempt) {
  ConfigState& c = at(index);
  if (!c.stored) changed_.insert(index);
  c.failure_counts[attempt.failure_class()]++;
  c.record.set_failures(c.record.failures() + 1);
  c.record.set_last_failure(attempt.failure_class());
  c.record.set_last_failure_detail(attempt.failure_detail().substr(0, 500));
}

void ConfigTable::MarkReady(int index) {
  if (in_ready_[static_cast<size_t>(index)]) return;
  in_ready_[static_cast<size_t>(index)] = true;
  ready_.push_back(index);
}

int ConfigTable::PopReady() {
  if (ready_.empty()) return -1;
  const int index = ready_.front();
  ready_.pop_front();
  in_ready_[static_cast<size_t>(index)] = false;
  return index;
}

void ConfigTable::PushReadyFront(int index) {
  if (in_ready_[static_cast<size_t>(index)]) return;
  in_ready_[static_cast<size_t>(index)] = true;
  ready_.push_front(index);
}

bool ConfigTable::Finished() const {
  while (finished_scan_ < slot_.size()) {
    if (!IsFinished(StateOf(finished_scan_))) return false;
    ++finished_scan_;
  }
  return true;
}

StateCounts ConfigTable::CountStates() const {
  StateCounts n;
  n.pending = static_cast<int64_t>(slot_.size() - held_.size());  // untouched: PENDING
  for (const auto& c : held_) {
    switch (c.record.state()) {
      case v1::CONFIG_STATE_DONE:
        ++n.done;
        if (c.record.eliminated()) ++n.eliminated;
        break;
      case v1::CONFIG_STATE_INFEASIBLE:
        ++n.infeasible;
        break;
      case v1::CONFIG_STATE_LEASED:
        ++n.leased;
        break;
      default:
        ++n.pending;
        break;
    }
  }
  return n;
}

int ConfigTable::BestIndex(bool minimize) const {
  int best = -1;
  double best_v = 0;
  ForEachHeld([&](int i, const ConfigState& c) {
    if (c.primary.empty()) return;
    const bool better = minimize ? c.median < best_v : c.median > best_v;
    if (best < 0 || better || (c.median == best_v && i < best)) {
      best = i;
      best_v = c.median;
    }
  });
  return best;
}

}  // namespace fleetsweep
