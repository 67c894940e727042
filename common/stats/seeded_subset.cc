#include "common/stats/seeded_subset.h"

#include <algorithm>
#include <utility>

namespace fleetsweep::stats {

std::vector<bool> SeededSubset(const std::vector<uint64_t>& hashes,
                               const std::vector<size_t>& sizes, double target) {
  std::vector<std::pair<uint64_t, size_t>> order;
  order.reserve(hashes.size());
  for (size_t i = 0; i < hashes.size(); ++i) order.emplace_back(hashes[i], i);
  std::sort(order.begin(), order.end());
  std::vector<bool> keep(hashes.size(), false);
  double kept = 0;
  for (const auto& [hash, i] : order) {
    if (kept >= target) break;
    keep[i] = true;
    kept += static_cast<double>(sizes[i]);
  }
  return keep;
}

}  // namespace fleetsweep::stats
