// ExecutionLog: what the sweep-wide audits that read every execution (node effects,
// node_effects.h; the warm-state audit, warm_state.h) need of each attempt, kept compactly so
// that the live audits need no copy of every v1::Attempt (issue 16).
//
// Per ok attempt, in the order added, one LoggedExecution (32 bytes): its configuration, node and
// persistent session (interned: each distinct key, node name and (node, `session.id`) is stored
// once; a worker numbers its sessions itself, so the node tells two workers' "s0-1" apart), the
// median of its finite samples of the log's metric (NaN when it has none), its
// `session.position` info (std::atoi of it, 0 when absent) and whether it measured the reference.
// An ok reference attempt with samples of the metric also keeps those samples, its start time and
// attempt id (the reference-only node effects and their drift test read them; references are a
// small share of a sweep). Failed attempts are not logged: both audits read ok attempts only.
// Beside them, totals over the ok attempts: their durations, and the persistent sessions they
// opened (`session.start_seconds` info: process start to ready; warm_state.h reports them).
//
// Equality: EstimateNodeEffects and AuditWarmState over the log of attempts a_1..a_n equal
// their results over {a_1..a_n} (the v1::Attempt overloads build a log and call the log ones).
//
// Errors: none. Ownership: copies what it keeps. Not thread-safe for Add; the const accessors
// may be called from several threads while no Add runs.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "coordinator/aggregate/intern_table.h"
#include "fleetsweep/v1/data.pb.h"

namespace fleetsweep {

struct LoggedExecution {
  double median = 0;     // of the metric's finite samples; NaN when there are none
  int32_t config = 0;    // ExecutionLog::key(config)
  int32_t node = 0;      // ExecutionLog::node(node)
  int32_t position = 0;  // std::atoi(info["session.position"]); 0 when absent
  int32_t session = -1;  // ExecutionLog::session index of (node, info["session.id"]); -1: none
  bool reference = false;
};

struct LoggedReference {  // an ok reference attempt with samples of the metric
  int32_t node = 0;
  int64_t started_unix_ms = 0;
  std::string attempt_id;
  std::vector<double> samples;  // finite samples of the metric, in the attempt's order
};

class ExecutionLog {
 public:
  explicit ExecutionLog(std::string metric) : metric_(std::move(metric)) {}

  struct Ids {
    int32_t config = -1;   // key(config); -1 when not logged
    int32_t node = -1;     // node(node); -1 when not logged
    int32_t session = -1;  // its session's index; -1 when not logged or it names none
  };
  // Logs `a` when it is ok; returns its node's index, -1 when not logged.
  int32_t Add(const v1::Attempt& a);
  // As Add, given `finite`: the attempt's finite samples of the log's metric, in its order (the
  // caller has them at hand: the attempt's samples are not scanned again). Returns the indices
  // of its configuration and node, both -1 when not logged.
  Ids AddWith(const v1::Attempt& a, const std::vector<double>& finite);

  // The index of configuration `key` (what key(i) and LoggedExecution::config use), interned now
  // when new: a caller with a table of its own by configuration numbers it the same way, so that
  // one hash table of keys serves both (IncrementalAggregate).
  int32_t InternKey(const std::string& key) { return keys_.Intern(key); }
  // Room for `n` configuration keys without rehashing (a caller that knows how many will come).
  void ReserveKeys(size_t n) { keys_.Reserve(n); }
  // The index of `key`; -1 when it was never interned.
  int32_t FindKey(const std::string& key) const;

  struct Totals {
    int64_t session_starts = 0;        // ok attempts that opened a persistent session
    double session_start_seconds = 0;  // their `session.start_seconds`, summed
    double attempt_seconds = 0;        // every ok attempt's duration, summed
  };
  const Totals& totals() const { return totals_; }
  const std::string& metric() const { return metric_; }
  const std::vector<LoggedExecution>& executions() const { return executions_; }
  const std::vector<LoggedReference>& references() const { return references_; }
  const std::string& key(int32_t i) const { return keys_.name(i); }
  const std::string& node(int32_t i) const { return nodes_.name(i); }
  int32_t node_count() const { return nodes_.size(); }
  int32_t session_count() const { return sessions_.size(); }
  int32_t key_count() const { return keys_.size(); }

 private:
  std::string metric_;
  std::vector<LoggedExecution> executions_;
  std::vector<LoggedReference> references_;
  InternTable keys_, nodes_, sessions_;  // sessions_: "<node index>\x1f<session.id>"
  std::vector<double> scratch_;          // AddWith's median buffer (no allocation per attempt)
  Totals totals_;
};

}  // namespace fleetsweep
