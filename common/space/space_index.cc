#include "common/space/space_index.h"

#include <algorithm>
#include <limits>
#include <memory>

#include "common/space/expand.h"

namespace fleetsweep {

StatusOr<SpaceIndex> SpaceIndex::Build(const SweepSpec& spec) {
  SpaceIndex s;
  double product = 1;
  for (const ParamSpec& p : spec.params) {
    if (p.fate == ParamFate::kSwept) {
      s.swept_.push_back({p.name, p.values});
      s.base_[p.name] = p.values.empty() ? Value() : p.values.front();
      product *= static_cast<double>(p.values.size());
    } else if (p.fate == ParamFate::kPinned) {
      if (p.fixed) {
        s.base_[p.name] = *p.fixed;
      } else if (!p.values.empty()) {
        s.base_[p.name] = p.values.front();
      }
    }
  }
  if (spec.constraints.empty()) {
    if (product > static_cast<double>(std::numeric_limits<int>::max())) {
      return Status::InvalidArgument("the space has more than 2^31-1 configurations");
    }
    s.size_ = static_cast<int64_t>(product);
    return s;
  }
  s.identity_ = false;
  SpaceIterator it(spec);
  while (it.Advance()) {
    if (s.raw_.size() >= static_cast<size_t>(std::numeric_limits<int>::max())) {
      return Status::InvalidArgument("the space has more than 2^31-1 configurations");
    }
    s.raw_.push_back(it.raw_index());
  }
  FS_RETURN_IF_ERROR(it.status());
  s.raw_.shrink_to_fit();
  s.size_ = static_cast<int64_t>(s.raw_.size());
  return s;
}

Config SpaceIndex::ParamsAt(int64_t index) const {
  Config c = base_;
  uint64_t raw = RawIndexAt(index);
  for (size_t i = swept_.size(); i-- > 0;) {
    const auto& values = swept_[i].values;
    c[swept_[i].name] = values[raw % values.size()];
    raw /= values.size();
  }
  return c;
}

StatusOr<int64_t> SweepSize(const SweepSpec& spec) {
  FS_ASSIGN_OR_RETURN(SpaceIndex index, SpaceIndex::Build(spec));
  const std::string& strategy = spec.search.strategy;
  const bool sampled = strategy == "random" || strategy == "lhs";
  if (sampled && spec.search.budget > 0 && spec.search.budget < index.size()) {
    return spec.search.budget;
  }
  return index.size();
}

int64_t SpaceIndex::PositionOf(uint64_t raw) const {
  if (identity_) return raw < static_cast<uint64_t>(size_) ? static_cast<int64_t>(raw) : -1;
  // raw_ ascends: Build walks the raw product in order and Select keeps that order.
  auto it = std::lower_bound(raw_.begin(), raw_.end(), raw);
  return it != raw_.end() && *it == raw ? static_cast<int64_t>(it - raw_.begin()) : -1;
}

void SpaceIndex::Select(const std::vector<int64_t>& positions) {
  std::vector<uint64_t> raw;
  raw.reserve(positions.size());
  for (int64_t p : positions) raw.push_back(RawIndexAt(p));
  raw_ = std::move(raw);
  identity_ = false;
  size_ = static_cast<int64_t>(raw_.size());
}

}  // namespace fleetsweep
