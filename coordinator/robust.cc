#include "coordinator/robust.h"

#include "common/stats/descriptive.h"

namespace fleetsweep {

double MedianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  return stats::MedianInPlace(&v);
}

}  // namespace fleetsweep
