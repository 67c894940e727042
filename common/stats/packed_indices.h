// Packed draws: several small-range uniform indices from one 64-bit Rng output, exactly.
//
// Rule (the stream, transcribed in scripts/stats_vectors/rng.py): a sequence of ranges r_1, r_2,
// ... (each 1 <= r < 2^32) is cut greedily into groups: a group takes as many consecutive ranges
// as keep their product P <= 2^56 (kPackedLimit). Each group draws one U uniform on [0, P) by
// Lemire's multiply-shift with rejection on a whole 64-bit output x (U = floor(x * P / 2^64),
// redrawing x while x * P mod 2^64 < (2^64 - P) mod P), and its indices are the mixed-radix digits
// of U, most significant first (U = d_1 * r_2 * ... * r_g + ... + d_g).
//
// Why the indices are exactly uniform and independent: U is exactly uniform on [0, P) (Lemire's
// method is exact for any P <= 2^64), the digit map [0, P) -> [0, r_1) x ... x [0, r_g) is a
// bijection, so the digits are independent and uniform; groups use distinct outputs. The digits
// are computed by successive multiplication (l_0 = x; d_i = floor(l_{i-1} * r_i / 2^64); l_i =
// l_{i-1} * r_i mod 2^64), which gives the same digits and l_g = x * P mod 2^64 for the test
// (induction: x * r_1 * ... * r_i = (d_1 ... d_i in mixed radix) * 2^64 + l_i). With P <= 2^56 a
// group is redrawn with probability below 2^-8.
//
// Thread-safety: PackedPlan is an immutable value after PlanPacked; the Rng is the caller's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/stats/rng.h"

namespace fleetsweep::stats {

inline constexpr uint64_t kPackedLimit = uint64_t{1} << 56;

// The groups of a fixed sequence of ranges (e.g. one resample's), computed once.
struct PackedPlan {
  std::vector<uint32_t> ranges;   // as given
  std::vector<size_t> end;        // group g holds ranges [end[g - 1], end[g]) (end[-1] = 0)
  std::vector<uint64_t> product;  // of its ranges, <= kPackedLimit
};

// Groups `ranges` by the rule above. A range of 0 is a caller bug (treated as 1).
PackedPlan PlanPacked(const std::vector<uint32_t>& ranges);

// Draws one index per range of `plan` from `rng` and calls visit(i, index) for i = 0, 1, ... in
// order (the indices of a group are known before the next group is drawn).
template <typename Visit>
void DrawPacked(const PackedPlan& plan, Rng* rng, Visit&& visit) {
  size_t begin = 0;
  for (size_t g = 0; g < plan.end.size(); ++g) {
    const uint64_t p = plan.product[g];
    const size_t end = plan.end[g];
    uint64_t x = rng->Next();
    while (true) {
      const uint64_t low = x * p;  // x * P mod 2^64
      if (low >= p || low >= (0 - p) % p) break;
      x = rng->Next();
    }
    uint64_t l = x;
    for (size_t i = begin; i < end; ++i) {
      const unsigned __int128 m = static_cast<unsigned __int128>(l) * plan.ranges[i];
      visit(i, static_cast<uint32_t>(m >> 64));
      l = static_cast<uint64_t>(m);
    }
    begin = end;
  }
}

// Convenience: the indices of `plan` drawn into `out` (plan.ranges.size() values).
void DrawPackedInto(const PackedPlan& plan, Rng* rng, uint32_t* out);

}  // namespace fleetsweep::stats
