#include "coordinator/robust.h"

#include "common/stats/bootstrap.h"
#include "common/stats/descriptive.h"

namespace fleetsweep {

double MedianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  return stats::MedianInPlace(&v);
}

bool CiIsTight(const std::vector<double>& samples, double target_rel, uint64_t seed) {
  if (samples.size() < 2) return false;
  auto ci = stats::BootstrapMedianCI(samples, 0.95, 1000, seed);
  if (!ci.ok()) return false;
  return stats::RelativeHalfWidth(*ci, MedianOf(samples)) <= target_rel;
}

}  // namespace fleetsweep
