// A seeded subset of whole groups (configurations, blocks), for tests and bootstraps whose cost
// must stay bounded on very large sweeps: the groups are taken in the order of their hashes
// (ascending; ties by index) until their sizes reach `target`. The choice depends only on the
// hashes and the sizes (the design), never on the measured values, so a test run on the subset
// keeps its level.
//
// Thread-safety: pure function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fleetsweep::stats {

// keep[i]: group i is in the subset. `hashes` and `sizes` have one entry per group. Every group
// is kept when their sizes sum to at most `target`.
std::vector<bool> SeededSubset(const std::vector<uint64_t>& hashes,
                               const std::vector<size_t>& sizes, double target);

}  // namespace fleetsweep::stats
