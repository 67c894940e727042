// IncrementalAggregate: Aggregate (aggregator.h) kept up to date attempt by attempt, so that a
// running sweep's live audits recompute only what changed (issue 16).
//
// Add counts one attempt into its configuration (O(its samples)) and marks that configuration
// dirty. Result recomputes the per-configuration summaries (median, MAD, hierarchical bootstrap
// CI of every metric, bounds, log execution medians) of the dirty configurations only, and of
// every configuration when the node-effect divisors changed (the corrected primary metric depends
// on them: in a multi-node sweep whose node effects are applied, a change in the estimated
// effects recomputes every corrected summary). The sweep-wide steps (node effects, ranking,
// audits, warm state, winner) run in full on every Result: they are O(attempts) or
// O(configurations) but carry no per-configuration bootstrap.
//
// Equality: Result after adding attempts a_1..a_n, in any batches, with any interleaving of
// Result calls, UpdateRecord and Track, equals Aggregate(spec, records, {a_1..a_n}, options) where
// `records` are the latest records given, the constructor's first and then those Track added, in
// the order added (incremental_aggregate_test checks it). Aggregate itself is one
// IncrementalAggregate fed every attempt and asked once.
//
// Memory: one entry per configuration given (constructor or Track), none for the others: the live
// audits start with the configurations counted so far and Track each one as it gets its first
// attempt, so a 1,000,000-configuration space costs only what has run. An entry names its
// strings by id (its key in the execution log's table; parameter names and values, metrics,
// fingerprints and nodes in tables of this aggregate, each distinct string once): ~360 bytes
// plus a few small vectors, and the full ConfigResult only when the result is built. Per
// attempt: its finite samples in its configuration's entry (one allocation per metric), its
// session's index (4 bytes, twice: the effect test re-deals sessions, audit.h), and one 32-byte
// ExecutionLog record (ok attempts; reference ones also keep their samples) for node effects and
// the warm-state audit; no copy of the v1::Attempt.
//
// Errors: none (as Aggregate). Ownership: borrows the spec (must outlive it); copies what it
// needs from records and attempts. Not thread-safe: one thread calls everything.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/space/spec.h"
#include "coordinator/aggregate/aggregator.h"
#include "coordinator/aggregate/execution_log.h"
#include "coordinator/aggregate/intern_table.h"
#include "coordinator/aggregate/sweep_result.h"
#include "fleetsweep/v1/data.pb.h"

namespace fleetsweep {

class IncrementalAggregate {
 public:
  // `records`: one per configuration (their order is the order of unranked output).
  IncrementalAggregate(const SweepSpec& spec, const std::vector<v1::ConfigRecord>& records,
                       AggregateOptions options);
  // The same, consuming `records`: each record's key and parameter values move into its entry
  // and the record is emptied as it is taken, so a large sweep does not hold both at once.
  IncrementalAggregate(const SweepSpec& spec, std::vector<v1::ConfigRecord>&& records,
                       AggregateOptions options);

  // Counts `a` (reference attempts and those of unknown configurations count only in the
  // sweep's totals, as in Aggregate).
  void Add(const v1::Attempt& a);
  // The configuration's new state (done, infeasible and its failure); unknown keys are ignored.
  void UpdateRecord(const v1::ConfigRecord& r);
  // As UpdateRecord, but an unknown configuration is added (after every known one) first, so
  // that its attempts count from now on (attempts Added before are not counted for it).
  void Track(const v1::ConfigRecord& r);
  // The aggregate of everything added (node effects and the warm-state audit read every attempt
  // added, from the compact log Add keeps: the caller keeps no attempt).
  SweepResult Result();
  // As Result, but each configuration's summary is moved out instead of copied (a final
  // aggregate of a million configurations holds them once, not twice): afterwards this object
  // may only be destroyed.
  SweepResult TakeResult();

  // Configurations whose summaries the next Result recomputes (without a node-effect change).
  int64_t dirty() const { return dirty_count_; }
  int64_t configurations() const { return static_cast<int64_t>(entries_.size()); }
  // Bytes of one configuration's entry before its samples, maps and texts (sizeof; a test keeps
  // it within a budget, issue 16).
  static size_t EntryBytes();

 private:
  using Executions = std::vector<std::vector<double>>;
  void Append(const v1::ConfigRecord& r);
  // What few configurations have (allocated when one comes): failure texts and counts, and
  // bound violations.
  struct Rare {
    std::string record_class, record_detail;    // its record's, when the record is infeasible
    std::string attempt_class, attempt_detail;  // Aggregate's first-failure rule
    FlatMap<std::string, int> failures_by_class;
    std::vector<std::string> bound_violations;
  };
  // One configuration, in ids (memory, issue 16: ~350 bytes before its samples; the strings
  // are interned once per sweep, and Materialize builds its ConfigResult). Its key is
  // log_.key(logged); its parameters are (name, value) pairs of param_names_ and param_values_
  // ids; its metrics, fingerprints and nodes are ids of metric_names_, fingerprints_ and nodes_.
  struct Entry {
    int32_t logged = -1;  // the key's ExecutionLog index
    ConfigOutcome status = ConfigOutcome::kPending;
    bool record_infeasible = false;
    bool any_failure = false;
    bool dirty = true;
    bool violates_bound = false;
    bool lacks_bounded_metric = false;  // LacksBoundedMetric, as of the last summaries
    int32_t attempts = 0, ok_attempts = 0, failed_attempts = 0;
    int32_t primary_resamples = 0;  // bootstrap rounds of the cached primary CIs (0: none yet)
    // The cached summaries (valid when !dirty).
    MetricSummary primary, raw_primary;
    std::vector<std::pair<int32_t, MetricSummary>> metrics;  // by metric id
    std::vector<int32_t> params;        // name id, value id, name id, value id, ...
    std::vector<int32_t> fingerprints;  // sorted ids, distinct
    std::vector<int32_t> nodes;         // sorted ids, distinct
    std::unique_ptr<Rare> rare;
    std::vector<std::pair<int32_t, Executions>> raw;  // metric id -> executions
    std::vector<int32_t> primary_nodes;  // the node (log_.node) of each raw[primary] execution
    // The benchmark session of each raw[primary] execution (ExecutionLog's index; -1: none).
    std::vector<int32_t> primary_sessions;
    std::vector<double> log_medians;    // of the corrected primary executions
    std::vector<int32_t> log_sessions;  // the session of each of them (AuditEffects)
    Rare& rare_texts() {
      if (!rare) rare = std::make_unique<Rare>();
      return *rare;
    }
  };
  // The parameters of `r` as Entry::params ids.
  std::vector<int32_t> ParamIds(const v1::ConfigRecord& r);
  // The nodes_ id of `node`, whose ExecutionLog index is `logged` (-1: not logged).
  int32_t NodeId(int32_t logged, const std::string& node);
  // e's executions of metric `id`; null when none.
  static Executions* RawOf(Entry& e, int32_t id);
  // As Append, emptying r as it is taken (its storage goes now, not with the whole vector).
  void AppendTaking(v1::ConfigRecord* r);
  void Reserve(size_t configurations);  // room for the keys of this many, before appending
  // Adds entry `e` of configuration `key` to the table.
  void Insert(const std::string& key, Entry e);
  // Sets e's status and record failure from r.
  static void SetRecordState(const v1::ConfigRecord& r, Entry* e);
  // Groups `a`'s finite samples by metric (first-seen order) into groups_[0, returned count).
  size_t GroupFiniteSamples(const v1::Attempt& a);
  // The entry of configuration `key` (`logged`: its ExecutionLog key index, -1 when not
  // logged: then looked up by key); null when no entry has that key.
  Entry* Find(int32_t logged, const std::string& key);
  // Recomputes `e`'s summaries (`summaries`: every raw metric's; `corrected`: the node-corrected
  // primary), the primary metric's CIs with `resamples` rounds.
  void Refresh(Entry* e, bool summaries, bool corrected, bool applied,
               const std::vector<double>& divisors, int resamples);
  // Gives the full_ci_top best-ranked entries options_.resamples rounds and every other entry
  // min(resamples, rest_resamples) (AggregateOptions), refreshing those whose tier changed.
  void RetierCIs(bool minimize, bool applied, const std::vector<double>& divisors);
  // min(resamples, rest_resamples): the rounds of a configuration outside the top.
  int RestResamples() const;
  // The configuration's result; `take` moves out of `e` what it would copy.
  ConfigResult Materialize(Entry& e, bool take) const;
  SweepResult Compute(bool take);

  const SweepSpec& spec_;
  AggregateOptions options_;
  std::string primary_;
  int32_t primary_id_ = 0;  // primary_'s metric_names_ id
  // Every string the entries name, once (InternTable: a 4-byte id in each entry).
  InternTable param_names_, param_values_, metric_names_, fingerprints_, nodes_;
  std::vector<int32_t> node_of_logged_;  // the nodes_ id of each ExecutionLog node (-1: not yet)
  std::deque<Entry> entries_;            // no spare capacity, and entries never move
  ExecutionLog log_;  // every attempt added, as node effects and the warm-state audit read it
  // The entry of each ExecutionLog key index (kNoEntry: none): an entry's key is interned in the
  // log when the entry is added, so the log's table of keys is the only one (an attempt costs one
  // hash of its key, and no second table holds every key: ~100 bytes a configuration).
  static constexpr size_t kNoEntry = static_cast<size_t>(-1);
  std::vector<size_t> entry_of_logged_;
  // The entry of configuration `key`; kNoEntry when none.
  size_t EntryOf(const std::string& key) const;
  // Add's scratch: (metric, finite samples) of the attempt being added; kept to reuse capacity.
  std::vector<std::pair<std::string, std::vector<double>>> groups_;
  int64_t dirty_count_ = 0;
  int64_t total_attempts_ = 0, failed_attempts_ = 0, total_samples_ = 0;
  bool have_divisors_ = false;  // the cached corrected summaries used these:
  std::map<std::string, double> divisors_;
  bool applied_ = false;
};

}  // namespace fleetsweep
