// LeaseTable: the scheduler's record of the leases it granted and of the attempts it counted.
//   * outstanding leases (granted, not yet returned or expired), each with its deadline;
//   * grants (who a lease was given to and for what), kept for EVERY lease ever granted by this
//     table, so that late and re-sent results are checked against their holder after the lease
//     itself has been returned or has expired;
//   * counted attempts (each counted once): a bit in the grant of this table's leases, and by id
//     for any other (a resumed sweep counts the attempts of earlier runs' leases from the store).
//
// Memory (issue 16: a million executions): a grant is a 16-byte row found by position, not a
// map entry keyed by the id, and a counted attempt of this table's leases is one bit in it. A lease
// id carries its row: <config_key>-<epoch>-<16 hex digits: the row><16 hex digits: 64 random
// bits>[-ref]. The random half makes an id unguessable (a peer cannot report, or pre-empt, a lease
// it was not given: FindGrant of an id whose random half is not the row's is nullptr); the holder
// (worker id and CurveZMQ identity) is interned, one entry per distinct holder. No clock inside:
// callers pass `now` (seconds, monotonic). Nothing here touches the store, the configurations or
// the workers: the Scheduler does that with what these calls return. Thread-safety: not thread-safe
// (the scheduler's thread only).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "google/protobuf/repeated_ptr_field.h"

namespace fleetsweep {

// One outstanding lease.
struct LeaseInfo {
  int config = -1;  // index in the ConfigTable; -1 for a reference outside the space
  std::string worker_id;
  double deadline = 0;
  double lease_seconds = 0;  // the deadline's length; a waiting lease is renewed by this much
  double granted_at = 0;     // renewals stop (kMaxPrefetchPerSlot + 1) lease lengths after it
  bool reference = false;
};

// Who a lease was granted to and for what (FindGrant's answer; the strings are the table's).
struct LeaseGrant {
  const std::string* worker_id = nullptr;
  const std::string* identity = nullptr;  // the peer's CurveZMQ public key ("" without Curve)
  int config = -1;                        // as LeaseInfo::config
  bool reference = false;
  bool counted = false;  // its attempt was counted (Count)
};

class LeaseTable {
 public:
  // Grants a new lease: records its grant (kept) and the outstanding lease, and returns its id
  // (format above). `info.worker_id` is the holder; `identity` its CurveZMQ key.
  std::string Grant(const std::string& config_key, const std::string& epoch, const LeaseInfo& info,
                    const std::string& identity);
  // The grant of a lease this table granted; nullopt for any other id (never granted, granted by
  // another table, or with a random half that is not the grant's).
  std::optional<LeaseGrant> FindGrant(const std::string& lease_id) const;
  // Counts the attempt `attempt_id` (its lease id); false when it was counted before.
  bool Count(const std::string& attempt_id);
  bool Counted(const std::string& attempt_id) const;
  // Attempts counted, and those of them that are not this table's leases (they can be named).
  int64_t counted() const { return counted_ + static_cast<int64_t>(counted_elsewhere_.size()); }
  const std::unordered_set<std::string>& counted_elsewhere() const { return counted_elsewhere_; }
  // The outstanding lease, or nullptr when it was returned, expired or never granted.
  const LeaseInfo* Find(const std::string& lease_id) const;
  // Removes an outstanding lease and returns it; nullopt when it is not outstanding. Its grant
  // stays.
  std::optional<LeaseInfo> Take(const std::string& lease_id);
  // Renews the deadlines of `worker_id`'s outstanding leases named in `waiting` (prefetched, not
  // started) to now + lease length, never past granted_at + (kMaxPrefetchPerSlot + 1) lease
  // lengths and never earlier than before. Leases of other workers and unknown ids are ignored.
  void RenewWaiting(const std::string& worker_id,
                    const google::protobuf::RepeatedPtrField<std::string>& waiting, double now);
  // Outstanding leases whose deadline is before `now`, in id order.
  std::vector<std::string> Overdue(double now) const;
  int64_t outstanding() const { return static_cast<int64_t>(leases_.size()); }
  int64_t granted() const { return static_cast<int64_t>(rows_.size()); }

 private:
  struct Row {
    uint64_t secret = 0;
    int32_t config = -1;
    uint32_t holder = 0;  // index in holders_ | kReference | kCounted
  };
  static constexpr uint32_t kReference = 1u << 31, kCounted = 1u << 30, kHolder = kCounted - 1;
  static constexpr size_t kNoRow = static_cast<size_t>(-1);
  // The index of the row `lease_id` names when its random half and reference suffix match;
  // kNoRow otherwise.
  size_t RowOf(const std::string& lease_id) const;
  uint32_t Holder(const std::string& worker_id, const std::string& identity);

  std::map<std::string, LeaseInfo> leases_;
  std::vector<Row> rows_;  // the grants, by the row number in their ids
  std::vector<std::pair<std::string, std::string>> holders_;  // (worker id, identity)
  std::unordered_map<std::string, uint32_t> holder_index_;    // worker id + '\0' + identity
  int64_t counted_ = 0;                                       // rows with kCounted
  std::unordered_set<std::string> counted_elsewhere_;
};

}  // namespace fleetsweep
