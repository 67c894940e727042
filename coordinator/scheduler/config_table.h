// ConfigTable: the configurations of one sweep and their live state: storage (by index and by
// key), the samples of their counted attempts, state transitions (pending, leased, done,
// infeasible), which records changed since the last write, the queue of configurations ready for
// more executions, and the finished scan. It decides nothing: the repetition policy
// (repetition.h) and the search strategy (search.h) say which state a configuration goes to,
// the Scheduler writes the changed records to the store.
//
// Held and untouched configurations (issue 16): a table built over a SpaceIndex (AddSpace) holds
// nothing per configuration until it is first touched (at(): leased, counted, or its state
// changes). An untouched configuration is PENDING with no attempts; its params and key are
// decoded from its index on demand (Params, Key, Record); Get() answers with a shared fresh
// state. Per configuration the table keeps only a slot number and a ready bit (about 5 bytes),
// plus its place in the ready queue. Find() knows only held configurations' keys.
// Thread-safety: not thread-safe (the scheduler's thread only).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/space/space_index.h"
#include "common/space/value.h"
#include "fleetsweep/v1/data.pb.h"

namespace fleetsweep {

// One configuration's live state.
struct ConfigState {
  // Set for a configuration held in full (Add); empty for one held from a space (AddSpace), in
  // `record` too: ConfigTable::Params and ConfigTable::Record give them for both.
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
  bool stored = false;  // its record was handed to the store (TakeChanged) or loaded from it
};

// How many configurations are in each state.
struct StateCounts {
  int64_t pending = 0, leased = 0, done = 0, infeasible = 0;
  int64_t eliminated = 0;  // done by racing's elimination
};

class ConfigTable {
 public:
  // Appends a configuration held in full (its key is record.config_key()); returns its index.
  // Its record counts as stored (the caller's): only later changes are reported by TakeChanged.
  int Add(ConfigState state);
  // Appends space->size() untouched configurations (index i is space->ParamsAt(i)). Only on an
  // empty table; `space` is not owned and must outlive the table.
  void AddSpace(const SpaceIndex* space);
  // The index of the HELD configuration with this key; -1 when there is none (an untouched
  // configuration is not found: see the class comment).
  int Find(const std::string& key) const;
  bool Held(int index) const { return slot_[static_cast<size_t>(index)] >= 0; }
  // The configuration's state, held from now on: an untouched one is created from the space
  // (params, key, record PENDING with seq = index). References stay valid (deque storage).
  ConfigState& at(int index);
  // Read-only: the held state, or for an untouched configuration a shared fresh state (PENDING,
  // no attempts, empty params and record: use Params/Key/Record for those).
  const ConfigState& Get(int index) const;
  Config Params(int index) const;
  std::string Key(int index) const;
  v1::ConfigRecord Record(int index) const;  // a fresh PENDING record for an untouched one
  int size() const { return static_cast<int>(slot_.size()); }
  int64_t held() const { return static_cast<int64_t>(held_.size()); }
  // Calls f(index, state) for every held configuration, in the order they were first held.
  template <class F>
  void ForEachHeld(F&& f) {
    for (size_t k = 0; k < held_.size(); ++k) f(held_index_[k], held_[k]);
  }
  template <class F>
  void ForEachHeld(F&& f) const {
    for (size_t k = 0; k < held_.size(); ++k) f(held_index_[k], held_[k]);
  }
  // The held configurations' indices in increasing order.
  std::vector<int> HeldIndices() const;

  // Moves a configuration to `state`; a change is remembered for TakeChanged. A configuration
  // that leaves DONE or INFEASIBLE (stage 2 reopening it) is no longer finished. An untouched
  // configuration asked to stay PENDING stays untouched.
  void SetState(int index, v1::ConfigState state);
  // Remembers a change of the record other than its state (racing's elimination).
  void MarkChanged(int index) { changed_.insert(index); }
  // The configurations changed since the last call, in index order; forgets them and marks
  // them stored.
  std::vector<int> TakeChanged();

  // A lease for an execution of the configuration was granted: one more in flight, and a
  // PENDING configuration is LEASED (not a change to write: the state is derived again when the
  // result or the expiry comes). LeaseEnded: the result came or the lease expired.
  void LeaseStarted(int index);
  void LeaseEnded(int index) { --at(index).inflight; }

  // A counted ok attempt: one more ok execution; its finite samples of `metric` are one more
  // execution of the primary metric. Returns whether it had such samples (the median moved).
  // The first counted attempt of a configuration whose record was never stored marks it changed
  // (so an interrupted sweep's store has a record for every configuration with attempts).
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
  // The best configuration by primary-metric median (the lowest index among equals); -1 when
  // none has samples.
  int BestIndex(bool minimize) const;

 private:
  v1::ConfigState StateOf(size_t index) const;

  const SpaceIndex* space_ = nullptr;
  std::vector<int32_t> slot_;     // per configuration: its place in held_, -1 when untouched
  std::deque<ConfigState> held_;  // held configurations, in the order they were first held
  std::vector<int> held_index_;   // held_[k]'s index
  std::vector<bool> in_ready_;    // per configuration
  std::unordered_map<std::string, int> index_by_key_;  // held configurations only
  std::deque<int> ready_;
  std::set<int> changed_;
  mutable size_t finished_scan_ = 0;  // [0, finished_scan_) are DONE or INFEASIBLE
};

}  // namespace fleetsweep
