// SpaceIndex: the configurations of a spec addressed by their position in the expansion
// (SpaceIterator's order), without materialising them. Position i's Config is computed on demand
// by mixed-radix decoding of its raw index in the swept product (last declared parameter
// fastest, pinned values merged, inert parameters absent), so it equals the i-th Config that
// SpaceIterator returns.
//
// Memory: nothing per configuration when the spec has no constraints (position == raw index);
// with constraints, one uint64 per surviving configuration (the raw indices that pass, found by
// one walk of the raw product at Build). Select() narrows the index to a subset (a search
// strategy's sample) the same way: one uint64 per kept position.
//
// Thread-safety: immutable after Build/Select; const methods may be called from any thread. It
// keeps its own copy of the swept levels (the spec may go away).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/space/spec.h"
#include "common/space/value.h"

namespace fleetsweep {

class SpaceIndex {
 public:
  // Walks the raw product once when the spec has constraints. Errors: those of SpaceIterator
  // (kInvalidArgument: a constraint that does not parse, names an unknown or inert parameter, or
  // cannot be evaluated on some configuration); kInvalidArgument also when the space has more than
  // 2^31-1 configurations (the scheduler indexes them with int).
  static StatusOr<SpaceIndex> Build(const SweepSpec& spec);

  int64_t size() const { return size_; }
  // The configuration at position `index` (0 <= index < size(); not checked).
  Config ParamsAt(int64_t index) const;
  // ConfigHash(ParamsAt(index)).
  std::string KeyAt(int64_t index) const { return ConfigHash(ParamsAt(index)); }
  // Its raw index in the unconstrained swept product (SpaceIterator::raw_index()).
  uint64_t RawIndexAt(int64_t index) const {
    return identity_ ? static_cast<uint64_t>(index) : raw_[static_cast<size_t>(index)];
  }
  // The position whose raw index is `raw`, or -1 when `raw` is outside the raw product or a
  // constraint (or an earlier Select) removed it. O(1) without constraints, O(log size()) with.
  int64_t PositionOf(uint64_t raw) const;
  // Keeps only `positions` (each in [0, size()), strictly ascending: not checked), in order.
  // Memory afterwards: one uint64 per kept position.
  void Select(const std::vector<int64_t>& positions);

 private:
  SpaceIndex() = default;
  struct Swept {
    std::string name;
    std::vector<Value> values;
  };
  std::vector<Swept> swept_;   // copied: the index does not refer to the spec
  Config base_;                // pinned values, and every swept parameter at its first level
  bool identity_ = true;       // position == raw index (no constraint removed anything)
  std::vector<uint64_t> raw_;  // raw index per position when !identity_
  int64_t size_ = 0;
};

// How many configurations the sweep runs: the space after constraints, capped by search.budget
// for random / lhs (coordinator/search.h). The store holds a record only for configurations that
// have been counted or changed state, so readers of a store (watch, list) take the total from
// here. Walks the space once when the spec has constraints. Errors: SpaceIndex::Build's.
StatusOr<int64_t> SweepSize(const SweepSpec& spec);

}  // namespace fleetsweep
