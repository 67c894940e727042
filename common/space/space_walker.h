// SpaceWalker: the odometer shared by SpaceIterator, CountSpace and the spec parser's emptiness
// check. Internal to common/space.
//
// It walks the raw swept product (last declared parameter fastest), keeps ONE Config that it
// updates in place (pinned values merged, inert parameters absent), and evaluates constraints
// through identifier slots resolved once to that Config's values, so a step allocates nothing for
// numeric and boolean levels. Not thread-safe; not copyable (it points into itself).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/space/expr.h"
#include "common/space/spec.h"

namespace fleetsweep {

class SpaceWalker {
 public:
  // Errors (kInvalidArgument): a constraint that does not parse, or that names a parameter that is
  // unknown or inert. `spec` must outlive the walker.
  static StatusOr<std::unique_ptr<SpaceWalker>> Create(const SweepSpec& spec);

  SpaceWalker(const SpaceWalker&) = delete;
  SpaceWalker& operator=(const SpaceWalker&) = delete;

  // Moves to the next raw configuration (the first one on the first call). False at the end.
  bool Advance();

  // How many leading constraints hold on current(): num_constraints() when all hold. On an
  // evaluation error returns -1, sets *error (naming the constraint and configuration) and
  // *failed to the constraint's index.
  int Passing(Status* error, size_t* failed);

  const Config& current() const { return config_; }
  uint64_t raw_index() const { return raw_index_; }
  size_t num_constraints() const { return constraints_.size(); }
  // Product of the swept level counts (as a double: it may exceed 2^64).
  double swept_product() const { return product_; }

 private:
  SpaceWalker() = default;
  struct Bound {
    std::shared_ptr<const Expr> expr;
    std::vector<const Value*> slots;
    const std::string* text;
  };
  void Set(size_t i) { *slots_[i] = swept_[i]->values[digits_[i]]; }

  std::vector<const ParamSpec*> swept_;
  std::vector<Value*> slots_;  // into config_, one per swept parameter
  std::vector<size_t> digits_;
  std::vector<Bound> constraints_;
  Config config_;
  double product_ = 1;
  bool started_ = false;
  bool done_ = false;
  uint64_t raw_index_ = 0;
};

}  // namespace fleetsweep
