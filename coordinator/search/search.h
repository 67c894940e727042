// SearchStrategy: which configurations of the expanded space a sweep runs, and whether it stops
// some early (docs/search.md). Chosen once, from spec.search.strategy, when the Scheduler is
// constructed:
//   grid    every configuration (the default, also for a name the spec parser would refuse);
//   random  a uniform sample of search.budget distinct positions of the space (seeded by
//           search.seed);
//   lhs     a Latin hypercube of search.budget configurations over the swept levels, each row
//           mapped to its position in the space;
//   racing  every configuration; after each counted result, configurations whose CI is clearly
//           worse than the leader's are eliminated.
// A strategy changes configurations only through the ConfigTable (an elimination is a changed
// record); it never writes the store.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/space/space_index.h"
#include "common/space/spec.h"
#include "coordinator/scheduler/config_table.h"

namespace fleetsweep {

class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  // Whether Select keeps every configuration whatever the space (grid, racing): then the
  // scheduler does not call Select (its table is indexed into the space, config_table.h).
  virtual bool SelectsAll() const { return true; }
  // Which positions of `space` (SpaceIndex: expansion order, constraints applied) the sweep
  // keeps: strictly ascending, each in [0, space.size()). Called once, at Init, only when
  // !SelectsAll(). random and lhs never expand the space: time and memory are O(budget) (plus
  // O(log size) per lookup with constraints). The default keeps every position.
  virtual std::vector<int64_t> Select(const SpaceIndex& space) const;
  // Called after the resume replay and after every counted ok attempt. Racing eliminates
  // configurations here; the others do nothing.
  virtual void AfterResults(ConfigTable* /*table*/) {}
};

// `ci_seed` seeds the median CIs that racing compares (SchedulerOptions::seed).
std::unique_ptr<SearchStrategy> MakeSearchStrategy(const SweepSpec& spec, uint64_t ci_seed);

}  // namespace fleetsweep
