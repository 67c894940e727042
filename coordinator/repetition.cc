// Adaptive repetitions, stage 2 (docs/honest-measurement.md "Adaptive repetitions"): every
// configuration first runs repetitions.min executions; one whose CI of the median (hierarchical
// bootstrap over its executions) overlaps the leader's, or that the winner rule's comparison
// (winner.h) cannot yet separate from the leader, then runs to repetitions.max, and so does the
// leader. The decision is taken once per configuration, at the end of stage 1, so a winner
// test sees at most two looks per configuration (winner.h corrects for them). Configurations that
// are clearly apart from the leader stop at stage 1 (or when their CI is tight). The decisions are
// taken when EVERY configuration has finished stage 1 (a barrier: a configuration at the end of
// its stage 1 waits, held, until then), so a temporary leader cannot extend the wrong ones.
#include <algorithm>
#include <cmath>

#include "coordinator/robust.h"
#include "coordinator/scheduler.h"
#include "coordinator/winner.h"
#include "spdlog/spdlog.h"

namespace fleetsweep {

void Scheduler::StageOneFinished() {
  if (!counting_stage1_ || stage1_pending_ == 0) return;
  if (--stage1_pending_ == 0) stage1_complete_now_ = true;
}

void Scheduler::UpdateLeader(int index) {
  const bool minimize = spec_.primary_metric().goal == Goal::kMinimize;
  const int min = spec_.repetitions.min;
  auto eligible = [&](const ConfigState& c) {
    return c.ok_attempts >= min && !c.executions.empty() && !c.record.eliminated();
  };
  auto better = [&](const ConfigState& a, const ConfigState& b) {
    return minimize ? a.median < b.median : a.median > b.median;
  };
  const ConfigState& c = configs_[index];
  if (leader_ != index) {
    if (eligible(c) && (leader_ < 0 || better(c, configs_[leader_]))) leader_ = index;
    return;
  }
  // The leader's own median moved: rescan (rare: at most repetitions.max times per leader).
  leader_ = -1;
  for (size_t i = 0; i < configs_.size(); ++i) {
    if (eligible(configs_[i]) && (leader_ < 0 || better(configs_[i], configs_[leader_]))) {
      leader_ = static_cast<int>(i);
    }
  }
}

namespace {

std::vector<double> LogMedians(const std::vector<std::vector<double>>& executions) {
  std::vector<double> out;
  for (const auto& e : executions) {
    const double m = MedianOf(e);
    if (m > 0) out.push_back(std::log(m));
  }
  return out;
}

}  // namespace

// Contenders: CIs overlap, or the winner rule's comparison (winner.h) cannot separate them yet.
bool Scheduler::Contends(const ConfigState& a, const ConfigState& b) const {
  if (a.ci_low <= b.ci_high && b.ci_low <= a.ci_high) return true;
  const double alpha = ComparisonAlpha(0.01, static_cast<int>(configs_.size()), 2);
  return ComparisonP(LogMedians(a.executions), LogMedians(b.executions), 0, 0) > alpha;
}

void Scheduler::Reopen(int index) {
  ConfigState& c = configs_[index];
  if (c.extended || c.ok_attempts >= spec_.repetitions.max || c.record.eliminated()) return;
  c.extended = true;
  if (c.record.state() == v1::CONFIG_STATE_DONE) {
    c.record.set_state(v1::CONFIG_STATE_PENDING);
    finished_scan_ = std::min(finished_scan_, static_cast<size_t>(index));
    Status s = PersistConfig(index);
    if (!s.ok()) spdlog::warn("store: {}", s.ToString());
  }
  if (NeedsWork(c)) MarkReady(index);
}

void Scheduler::ExtendContenders(int index) {
  ConfigState& c = configs_[index];
  if (c.executions.empty()) return;
  UpdateCi(&c);
  const int leader = LeaderIndex();
  if (leader < 0) return;
  if (leader != index) {
    ConfigState& l = configs_[leader];
    UpdateCi(&l);
    if (!Contends(c, l)) return;
    c.extended = true;
    Reopen(leader);
    return;
  }
  for (size_t j = 0; j < configs_.size(); ++j) {
    ConfigState& o = configs_[j];
    if (static_cast<int>(j) == index || o.executions.empty() ||
        o.ok_attempts < spec_.repetitions.min || o.record.eliminated() ||
        o.record.state() == v1::CONFIG_STATE_INFEASIBLE) {
      continue;
    }
    UpdateCi(&o);
    if (!Contends(c, o)) continue;
    c.extended = true;
    Reopen(static_cast<int>(j));
  }
}

}  // namespace fleetsweep
