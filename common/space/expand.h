// Space expansion: streams the configurations of a SweepSpec without materialising the space.
//
// Order: the cartesian product of the swept parameters in declaration order, the LAST declared
// parameter varying fastest; pinned values are merged into every configuration; inert parameters
// are dropped (they never multiply the space and never appear in a Config); constraints filter.
// Memory is O(number of parameters) regardless of the space size.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/space/spec.h"
#include "common/space/value.h"

namespace fleetsweep {

class SpaceWalker;  // space_walker.h (internal)

// Not thread-safe; not copyable. Allocates only when it copies a Config out (Next).
class SpaceIterator {
 public:
  explicit SpaceIterator(const SweepSpec& spec);  // spec must outlive the iterator
  ~SpaceIterator();
  SpaceIterator(const SpaceIterator&) = delete;
  SpaceIterator& operator=(const SpaceIterator&) = delete;

  // Advances to the next configuration that satisfies every constraint. Returns false at the end
  // or on an error (then status() is not OK: a constraint that does not parse, names an unknown or
  // inert parameter, or cannot be evaluated on some configuration).
  bool Next(Config* out);
  // Same without copying: on true, current() is the configuration (valid until the next call).
  bool Advance();
  const Config& current() const;
  // Index of the last returned configuration in the raw (unconstrained) product.
  uint64_t raw_index() const;
  const Status& status() const { return status_; }

 private:
  std::unique_ptr<SpaceWalker> walker_;
  Status status_;
  bool done_ = false;
};

struct SpaceCounts {
  // Product of the level counts of swept + inert parameters, and of pinned parameters that
  // declare the levels they would have had (what a naive grid would run).
  double raw = 0;
  double after_inert = 0;   // inert dropped
  double after_pinned = 0;  // pinned collapsed to one value (equals swept product)
  // Configurations left after applying constraints 1..k in order (size == constraints.size()).
  std::vector<uint64_t> after_constraint;
  uint64_t final_count = 0;
};

// Counts without materialising (streams the swept product once). Errors: kInvalidArgument when a
// constraint cannot be evaluated on some configuration (names the constraint and the config).
StatusOr<SpaceCounts> CountSpace(const SweepSpec& spec);

// How many walks of the raw product this process has started (every SpaceIterator, CountSpace,
// SpaceIndex::Build of a spec with constraints, the spec parser's emptiness check). For tests
// that assert a path never expands the space (the random / lhs selection at scheduler Init).
// Thread-safe.
uint64_t SpaceWalksStarted();

// Evaluates every constraint on `config`. Returns true when all hold.
StatusOr<bool> SatisfiesConstraints(const SweepSpec& spec, const Config& config);

}  // namespace fleetsweep
