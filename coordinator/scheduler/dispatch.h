// Dispatcher: which configuration a worker's next lease is for (docs/honest-measurement.md
// "Randomised, balanced assignment"): a blocked randomised design instead of round-robin, warm-
// session affinity, and the reference configuration re-measured on every node. It owns the
// seeded draw stream and the reference configuration; it reads the ready queue of the
// ConfigTable and asks the repetition policy which configurations still need work. Leases
// themselves are made by the Scheduler between Next and Granted.
// Thread-safety: not thread-safe (the scheduler's thread only).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/scheduler/config_table.h"
#include "coordinator/scheduler/repetition.h"
#include "coordinator/scheduler/worker_registry.h"

namespace fleetsweep {

// Open session keys of a work request: parameter name -> value text, one map per open session.
using SessionKeys = std::vector<std::map<std::string, std::string>>;

class Dispatcher {
 public:
  struct Choice {
    int config = -1;         // ConfigTable index; -1 for a reference outside the space
    bool reference = false;  // a reference measurement (not a repetition)
  };

  // `table` and `reps` are not owned and must outlive this. `seed_state` seeds the draws.
  Dispatcher(ConfigTable* table, AdaptiveRepetitions* reps, int reference_every,
             uint64_t seed_state);

  // The reference configuration (pinned values merged), re-measured on every node.
  void SetReference(Config reference);
  const std::optional<Config>& reference() const { return reference_; }
  const std::string& reference_key() const { return reference_key_; }

  // The next lease for a worker on `node` with reference schedule `schedule`: the reference when
  // it is due on this worker, else the best of the next ready configurations; nullopt when none
  // is ready. A matched session key is removed from `sessions` (one slot per key).
  std::optional<Choice> Next(const ReferenceSchedule& schedule, const std::string& node,
                             SessionKeys* sessions);
  // The lease for `choice` was granted: counts it on the node, advances the worker's reference
  // schedule, and puts the configuration back in the ready queue when it needs more work.
  void Granted(const Choice& choice, const std::string& node, ReferenceSchedule* schedule);

  // Leases between two reference measurements on a node, on average.
  int ReferencePeriod() const;

 private:
  int PickConfig(const std::string& node, SessionKeys* sessions);

  ConfigTable* table_;
  AdaptiveRepetitions* reps_;
  int reference_every_;
  uint64_t draw_state_;
  std::optional<Config> reference_;
  std::string reference_key_;
};

}  // namespace fleetsweep
