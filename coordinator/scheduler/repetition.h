// AdaptiveRepetitions: the repetition policy (docs/honest-measurement.md "Adaptive
// repetitions"). It decides, per configuration, whether it needs more executions and which state
// it is in (pending, leased, done, infeasible), from the spec's repetitions section:
//   * stage 1: every configuration runs repetitions.min executions; more while the CI of its
//     median (hierarchical bootstrap over executions) is wider than target_rel_ci, up to max;
//   * stage 2: once EVERY configuration has finished stage 1 (a barrier: a configuration at the
//     end of its stage 1 is held until then), one whose CI overlaps the leader's, or that the
//     winner rule's comparison (winner.h) cannot yet separate from the leader, runs to
//     repetitions.max, and so does the leader (when extend_contenders is on);
//   * failures: retried one at a time; infeasible after max_failures, or after
//     deterministic_failures identical deterministic failures, unless min executions succeeded.
// It changes configurations only through the ConfigTable (stage 2 reopens finished ones: they
// become PENDING, changed and ready); it never writes the store.
// Thread-safety: not thread-safe (the scheduler's thread only).
#pragma once

#include <cstdint>

#include "common/space/spec.h"
#include "coordinator/scheduler/config_table.h"

namespace fleetsweep {

// The CI of c's median with the execution as the unit (hierarchical bootstrap, seeded by the
// configuration key and `seed`), cached in c: recomputed only when an execution was added.
void UpdateMedianCi(ConfigState* c, uint64_t seed);

class AdaptiveRepetitions {
 public:
  // `table` is not owned and must outlive this.
  AdaptiveRepetitions(const SweepSpec& spec, ConfigTable* table, bool extend_contenders,
                      uint64_t seed);

  // Called once at the end of the resume replay: counts the configurations still in stage 1;
  // from now on the stage-1 barrier is live.
  void StartBarrier();
  // An ok attempt of configuration `index` was counted (ConfigTable::AddOk); `samples_added`:
  // it had primary-metric samples, so the median moved.
  void OnOkCounted(int index, bool samples_added);
  // Whether the configuration needs another execution leased now.
  bool NeedsWork(int index);
  // The state configuration `index` belongs in now (its state is not yet DONE/INFEASIBLE). May
  // mark it or others extended to repetitions.max (stage 2), reopening finished ones.
  v1::ConfigState Decide(int index);
  // True once, right after the last configuration finished stage 1: the caller decides every
  // held configuration again (Decide on each).
  bool TakeBarrierPassed();
  // Best median among configurations with repetitions.min executions; -1 when none.
  int leader() const { return leader_; }

 private:
  // Whether the median CI of `index` is tight enough (refreshes its cached CI).
  bool CiTight(int index) const;
  void StageOneFinished();  // one configuration left stage 1 (min executions, or infeasible)
  void UpdateLeader(int index);
  bool Contends(const ConfigState& a, const ConfigState& b) const;
  void ExtendContenders(int index);
  void Reopen(int index);

  const SweepSpec& spec_;
  ConfigTable* table_;
  bool extend_contenders_;
  uint64_t seed_;
  int leader_ = -1;
  int64_t stage1_pending_ = 0;    // configurations still in stage 1 (counted by StartBarrier)
  bool counting_stage1_ = false;  // set by StartBarrier
  bool barrier_passed_ = false;   // the last stage 1 just ended
};

}  // namespace fleetsweep
