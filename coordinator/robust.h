// Small robust-statistics helpers the scheduler and the aggregator share, built on common/stats.
#pragma once

#include <cstdint>
#include <vector>

namespace fleetsweep {

// Median of a non-empty vector (copies; the input is not reordered). 0 for an empty one.
double MedianOf(std::vector<double> v);

}  // namespace fleetsweep
