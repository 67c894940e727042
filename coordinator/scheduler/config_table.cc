#include "coordinator/scheduler/config_table.h"

#include <algorithm>
#include <cmath>

#include "common/stats/descriptive.h"

namespace fleetsweep {
namespace {

bool IsFinished(v1::ConfigState s) {
  return s == v1::CONFIG_STATE_DONE || s == v1::CONFIG_STATE_INFEASIBLE;
}

}  // namespace

int ConfigTable::Add(ConfigState state) {
  const int index = static_cast<int>(configs_.size());
  index_by_key_[state.record.config_key()] = index;
  configs_.push_back(std::move(state));
  return index;
}

int ConfigTable::Find(const std::string& key) const {
  auto it = index_by_key_.find(key);
  return it == index_by_key_.end() ? -1 : it->second;
}

void ConfigTable::SetState(int index, v1::ConfigState state) {
  v1::ConfigRecord& r = at(index).record;
  if (r.state() == state) return;
  r.set_state(state);
  changed_.insert(index);
  if (!IsFinished(state)) finished_scan_ = std::min(finished_scan_, static_cast<size_t>(index));
}

std::vector<int> ConfigTable::TakeChanged() {
  std::vector<int> out(changed_.begin(), changed_.end());
  changed_.clear();
  return out;
}

void ConfigTable::LeaseStarted(int index) {
  ConfigState& c = at(index);
  ++c.inflight;
  if (c.record.state() == v1::CONFIG_STATE_PENDING) c.record.set_state(v1::CONFIG_STATE_LEASED);
}

bool ConfigTable::AddOk(int index, const v1::Attempt& attempt, const std::string& metric) {
  ConfigState& c = at(index);
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
  c.failure_counts[attempt.failure_class()]++;
  c.record.set_failures(c.record.failures() + 1);
  c.record.set_last_failure(attempt.failure_class());
  c.record.set_last_failure_detail(attempt.failure_detail().substr(0, 500));
}

void ConfigTable::MarkReady(int index) {
  ConfigState& c = at(index);
  if (c.in_ready) return;
  c.in_ready = true;
  ready_.push_back(index);
}

int ConfigTable::PopReady() {
  if (ready_.empty()) return -1;
  const int index = ready_.front();
  ready_.pop_front();
  at(index).in_ready = false;
  return index;
}

void ConfigTable::PushReadyFront(int index) {
  ConfigState& c = at(index);
  if (c.in_ready) return;
  c.in_ready = true;
  ready_.push_front(index);
}

bool ConfigTable::Finished() const {
  while (finished_scan_ < configs_.size()) {
    if (!IsFinished(configs_[finished_scan_].record.state())) return false;
    ++finished_scan_;
  }
  return true;
}

StateCounts ConfigTable::CountStates() const {
  StateCounts n;
  for (const auto& c : configs_) {
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
