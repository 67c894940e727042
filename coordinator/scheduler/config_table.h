// ConfigTable: the configurations of one sweep and their live state: storage (by index and by
// key), the samples of their counted attempts, state transitions (pending, leased, done,
// infeasible), which records changed since the last write, the queue of configurations ready for
// more executions, and the finished scan. It decides nothing: the repetition policy
// (repetition.h) and the search strategy (search.h) say which state a configuration goes to,
// the Scheduler writes the changed records to the store.
// Thread-safety: not thread-safe (the scheduler's thread only).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/space/value.h"
#include "fleetsweep/v1/data.pb.h"

namespace fleetsweep {

// One configuration's live state.
struct ConfigState {
  Config params;
  v1::ConfigRecord record;
  int ok_attempts = 0;
  int inflight = 0;
  std::vector<double> primary;                  // primary-metric samples of counted ok attempts
  std::vector<std::vector<double>> executions;  // the same samples, one vector per execution
  double ci_low = 0, ci_high = 0, median = 0;   // cached when executions change (racing)
  size_t ci_n = 0;                              // executions when the CI was computed
  bool extended = false;                        // stage 2: runs to repetitions.max
  std::map<std::string, int> node_runs;         // node -> executions leased there (balance)
  std::map<int, int> failure_counts;            // FailureClass -> count
  bool in_ready = false;
};

// How many configurations are in each state.
struct StateCounts {
  int64_t pending = 0, leased = 0, done = 0, infeasible = 0;
  int64_t eliminated = 0;  // done by racing's elimination
};

class ConfigTable {
 public:
  // Appends a configuration (its key is record.config_key()); returns its index.
  int Add(ConfigState state);
  // The index of the configuration with this key; -1 when there is none.
  int Find(const std::string& key) const;
  ConfigState& at(int index) { return configs_[static_cast<size_t>(index)]; }
  const ConfigState& at(int index) const { return configs_[static_cast<size_t>(index)]; }
  const std::vector<ConfigState>& all() const { return configs_; }
  int size() const { return static_cast<int>(configs_.size()); }

  // Moves a configuration to `state`; a change is remembered for TakeChanged. A configuration
  // that leaves DONE or INFEASIBLE (stage 2 reopening it) is no longer finished.
  void SetState(int index, v1::ConfigState state);
  // Remembers a change of the record other than its state (racing's elimination).
  void MarkChanged(int index) { changed_.insert(index); }
  // The configurations changed since the last call, in index order; forgets them.
  std::vector<int> TakeChanged();

  // A lease for an execution of the configuration was granted: one more in flight, and a
  // PENDING configuration is LEASED (not a change to write: the state is derived again when the
  // result or the expiry comes). LeaseEnded: the result came or the lease expired.
  void LeaseStarted(int index);
  void LeaseEnded(int index) { --at(index).inflight; }

  // A counted ok attempt: one more ok execution; its finite samples of `metric` are one more
  // execution of the primary metric. Returns whether it had such samples (the median moved).
  bool AddOk(int index, const v1::Attempt& attempt, const std::string& metric);
  // A counted failed attempt: failure counts by class, last failure and its detail.
  void AddFailure(int index, const v1::Attempt& attempt);

  // The ready queue: configurations that may need more executions, in the order they became
  // ready. A configuration is in it at most once.
  void MarkReady(int index);
  int PopReady();  // -1 when empty
  void PushReadyFront(int index);

  // Every configuration is DONE or INFEASIBLE. Amortised O(1): configurations before the scan
  // mark are known finished, and only SetState to an unfinished state moves the mark back.
  bool Finished() const;
  StateCounts CountStates() const;
  // The best configuration by primary-metric median; -1 when none has samples.
  int BestIndex(bool minimize) const;

 private:
  std::vector<ConfigState> configs_;
  std::unordered_map<std::string, int> index_by_key_;
  std::deque<int> ready_;
  std::set<int> changed_;
  mutable size_t finished_scan_ = 0;  // configs_[0, finished_scan_) are DONE or INFEASIBLE
};

}  // namespace fleetsweep
