// The repetition policy (repetition.h). Stage-2 decisions are taken once per configuration, at
// the end of stage 1, so a winner test sees at most two looks per configuration (winner.h
// corrects for them); the barrier keeps a temporary leader from extending the wrong ones.
#include "coordinator/scheduler/repetition.h"

#include <algorithm>
#include <cmath>

#include "common/stats/bootstrap.h"
#include "common/stats/descriptive.h"
#include "common/stats/hierarchical.h"
#include "coordinator/aggregate/winner.h"

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

std::vector<double> LogMedians(const std::vector<std::vector<double>>& executions) {
  std::vector<double> out;
  for (const auto& e : executions) {
    const double m = stats::MedianOf(e);
    if (m > 0) out.push_back(std::log(m));
  }
  return out;
}

}  // namespace

void UpdateMedianCi(ConfigState* c, uint64_t seed) {
  if (c->ci_n == c->executions.size()) return;
  c->ci_n = c->executions.size();
  if (c->executions.empty()) {
    c->ci_low = c->ci_high = c->median;
    return;
  }
  auto ci = stats::HierarchicalBootstrapMedianCI(c->executions, 0.95, 1000,
                                                 Fnv1a64(c->record.config_key(), seed));
  c->ci_low = ci.ok() ? ci->low : c->median;
  c->ci_high = ci.ok() ? ci->high : c->median;
}

AdaptiveRepetitions::AdaptiveRepetitions(const SweepSpec& spec, ConfigTable* table,
                                         bool extend_contenders, uint64_t seed)
    : spec_(spec), table_(table), extend_contenders_(extend_contenders), seed_(seed) {}

void AdaptiveRepetitions::StartBarrier() {
  // An untouched configuration has no attempts and is PENDING: in stage 1 when min > 0.
  stage1_pending_ = spec_.repetitions.min > 0 ? table_->size() - table_->held() : 0;
  table_->ForEachHeld([&](int, const ConfigState& c) {
    if (c.ok_attempts < spec_.repetitions.min && c.record.state() != v1::CONFIG_STATE_INFEASIBLE) {
      ++stage1_pending_;
    }
  });
  counting_stage1_ = true;
}

void AdaptiveRepetitions::OnOkCounted(int index, bool samples_added) {
  if (table_->Get(index).ok_attempts == spec_.repetitions.min) StageOneFinished();
  if (samples_added) UpdateLeader(index);
}

bool AdaptiveRepetitions::TakeBarrierPassed() {
  const bool passed = barrier_passed_;
  barrier_passed_ = false;
  return passed;
}

bool AdaptiveRepetitions::CiTight(int index) const {
  if (table_->Get(index).executions.size() < 2) return false;  // an untouched one stays so
  ConfigState* c = &table_->at(index);
  UpdateMedianCi(c, seed_);
  stats::Interval ci{c->ci_low, c->ci_high};
  return stats::RelativeHalfWidth(ci, c->median) <= spec_.repetitions.target_rel_ci;
}

bool AdaptiveRepetitions::NeedsWork(int index) {
  const ConfigState& c = table_->Get(index);
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
  return !CiTight(index);
}

v1::ConfigState AdaptiveRepetitions::Decide(int index) {
  const ConfigState& c = table_->Get(index);  // held by now if anything below changes it
  const RepetitionPolicy& r = spec_.repetitions;
  bool infeasible = c.record.failures() >= r.max_failures;
  for (const auto& [cls, n] : c.failure_counts) {
    if (IsDeterministic(cls) && n >= r.deterministic_failures) infeasible = true;
  }
  // Stage 2 is decided once every configuration has finished stage 1; until then a
  // configuration at the end of its stage 1 is held (not done).
  bool hold = false;
  if (!infeasible && c.inflight == 0 && c.ok_attempts >= r.min && c.ok_attempts < r.max &&
      !c.extended && !c.record.eliminated() && !c.primary.empty() && extend_contenders_) {
    if (stage1_pending_ > 0) {
      hold = true;
    } else {
      ExtendContenders(index);  // may set c.extended
    }
  }
  if (infeasible && c.ok_attempts < r.min) {
    StageOneFinished();
    return v1::CONFIG_STATE_INFEASIBLE;
  }
  if (c.inflight == 0 && c.record.eliminated()) return v1::CONFIG_STATE_DONE;
  if (c.inflight == 0 && c.ok_attempts >= r.min && !hold &&
      (c.ok_attempts >= r.max || c.primary.empty() || (!c.extended && CiTight(index)))) {
    return v1::CONFIG_STATE_DONE;
  }
  return c.inflight > 0 ? v1::CONFIG_STATE_LEASED : v1::CONFIG_STATE_PENDING;
}

void AdaptiveRepetitions::StageOneFinished() {
  if (!counting_stage1_ || stage1_pending_ == 0) return;
  if (--stage1_pending_ == 0) barrier_passed_ = true;
}

void AdaptiveRepetitions::UpdateLeader(int index) {
  const bool minimize = spec_.primary_metric().goal == Goal::kMinimize;
  const int min = spec_.repetitions.min;
  auto eligible = [&](const ConfigState& c) {
    return c.ok_attempts >= min && !c.executions.empty() && !c.record.eliminated();
  };
  auto better = [&](const ConfigState& a, const ConfigState& b) {
    return minimize ? a.median < b.median : a.median > b.median;
  };
  const ConfigState& c = table_->Get(index);
  if (leader_ != index) {
    if (eligible(c) && (leader_ < 0 || better(c, table_->Get(leader_)))) leader_ = index;
    return;
  }
  // The leader's own median moved: rescan the held configurations (an untouched one has no
  // executions); the lowest index wins among equals. Rare: at most repetitions.max times per
  // leader.
  leader_ = -1;
  table_->ForEachHeld([&](int i, const ConfigState& o) {
    if (!eligible(o)) return;
    if (leader_ < 0 || better(o, table_->Get(leader_)) ||
        (i < leader_ && !better(table_->Get(leader_), o))) {
      leader_ = i;
    }
  });
}

// Contenders: CIs overlap, or the winner rule's comparison (winner.h) cannot separate them yet.
bool AdaptiveRepetitions::Contends(const ConfigState& a, const ConfigState& b) const {
  if (a.ci_low <= b.ci_high && b.ci_low <= a.ci_high) return true;
  const double alpha = ComparisonAlpha(0.01, table_->size(), 2);
  return ComparisonP(LogMedians(a.executions), LogMedians(b.executions), 0, 0) > alpha;
}

void AdaptiveRepetitions::Reopen(int index) {
  ConfigState& c = table_->at(index);
  if (c.extended || c.ok_attempts >= spec_.repetitions.max || c.record.eliminated()) return;
  c.extended = true;
  if (c.record.state() == v1::CONFIG_STATE_DONE) table_->SetState(index, v1::CONFIG_STATE_PENDING);
  if (NeedsWork(index)) table_->MarkReady(index);
}

void AdaptiveRepetitions::ExtendContenders(int index) {
  ConfigState& c = table_->at(index);
  if (c.executions.empty()) return;
  UpdateMedianCi(&c, seed_);
  const int leader = leader_;
  if (leader < 0) return;
  if (leader != index) {
    ConfigState& l = table_->at(leader);
    UpdateMedianCi(&l, seed_);
    if (!Contends(c, l)) return;
    c.extended = true;
    Reopen(leader);
    return;
  }
  for (int j : table_->HeldIndices()) {  // an untouched one has no executions
    ConfigState& o = table_->at(j);
    if (j == index || o.executions.empty() || o.ok_attempts < spec_.repetitions.min ||
        o.record.eliminated() || o.record.state() == v1::CONFIG_STATE_INFEASIBLE) {
      continue;
    }
    UpdateMedianCi(&o, seed_);
    if (!Contends(c, o)) continue;
    c.extended = true;
    Reopen(j);
  }
}

}  // namespace fleetsweep
