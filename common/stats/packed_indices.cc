#include "common/stats/packed_indices.h"

namespace fleetsweep::stats {

PackedPlan PlanPacked(const std::vector<uint32_t>& ranges) {
  PackedPlan plan;
  plan.ranges = ranges;
  uint64_t product = 1;
  for (size_t i = 0; i < plan.ranges.size(); ++i) {
    if (plan.ranges[i] == 0) plan.ranges[i] = 1;
    const uint64_t r = plan.ranges[i];
    if (i > 0 && product > kPackedLimit / r) {  // r would push the group past the limit
      plan.end.push_back(i);
      plan.product.push_back(product);
      product = 1;
    }
    product *= r;
  }
  if (!plan.ranges.empty()) {
    plan.end.push_back(plan.ranges.size());
    plan.product.push_back(product);
  }
  return plan;
}

void DrawPackedInto(const PackedPlan& plan, Rng* rng, uint32_t* out) {
  DrawPacked(plan, rng, [out](size_t i, uint32_t index) { out[i] = index; });
}

}  // namespace fleetsweep::stats
