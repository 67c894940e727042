// Small robust-statistics helpers the scheduler and the aggregator share, built on common/stats.
#pragma once

#include <cstdint>
#include <vector>

namespace fleetsweep {

// Median of a non-empty vector (copies; the input is not reordered). 0 for an empty one.
double MedianOf(std::vector<double> v);

// True when the relative 95% bootstrap CI half-width of the median is <= target (and there are
// at least 2 samples). Deterministic for a given seed.
bool CiIsTight(const std::vector<double>& samples, double target_rel, uint64_t seed);

}  // namespace fleetsweep
