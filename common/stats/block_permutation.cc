#include "common/stats/block_permutation.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "common/stats/packed_indices.h"
#include "common/stats/rng.h"

namespace fleetsweep::stats {
namespace {

struct Block {
  std::vector<int> labels;      // sorted initially (next_permutation order)
  std::vector<double> centred;  // values minus the block mean, in the original order
  std::vector<int> observed;    // the observed labels, aligned with centred
};

// The blocks' values and labels laid end to end (block by block, in order), so that the
// statistic is one sequential pass; the sums are added in the same order as block by block.
struct Flat {
  std::vector<size_t> offset;  // block b holds [offset[b], offset[b + 1])
  std::vector<double> centred;
  std::vector<int> labels;
};

// Adds flat's values [begin, end) to the sums of their labels.
void Accumulate(const Flat& flat, size_t begin, size_t end, double* s_by_level) {
  const double* centred = flat.centred.data();
  const int* labels = flat.labels.data();
  for (size_t i = begin; i < end; ++i) s_by_level[labels[i]] += centred[i];
}

double FromSums(const std::vector<double>& counts, const std::vector<double>& sums) {
  double s = 0;
  for (size_t l = 0; l < sums.size(); ++l) {
    if (counts[l] > 0) s += sums[l] * sums[l] / counts[l];
  }
  return s;
}

double Statistic(const Flat& flat, const std::vector<double>& counts, std::vector<double>* sums) {
  std::fill(sums->begin(), sums->end(), 0.0);
  Accumulate(flat, 0, flat.centred.size(), sums->data());
  return FromSums(counts, *sums);
}

// log of the number of distinct orderings of a label multiset.
double LogMultinomial(const std::vector<int>& labels) {
  std::vector<int> sorted = labels;
  std::sort(sorted.begin(), sorted.end());
  double r = std::lgamma(static_cast<double>(sorted.size()) + 1);
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
    r -= std::lgamma(static_cast<double>(j - i) + 1);
    i = j;
  }
  return r;
}

bool AtLeast(double s, double observed) { return s >= observed - 1e-12 * std::fabs(observed); }

}  // namespace

StatusOr<BlockPermutationResult> BlockPermutationTest(
    const std::vector<std::vector<std::pair<int, double>>>& input, int levels, int resamples,
    uint64_t seed, double exact_limit, int stop_after_hits) {
  if (levels < 2) return Status::InvalidArgument("BlockPermutationTest: need at least 2 levels");
  if (resamples < 1) return Status::InvalidArgument("BlockPermutationTest: resamples must be >= 1");
  if (stop_after_hits < 0) {
    return Status::InvalidArgument("BlockPermutationTest: stop_after_hits must be >= 0");
  }
  std::vector<Block> blocks;
  std::vector<double> counts(static_cast<size_t>(levels), 0.0);
  double log_total = 0;
  for (size_t b = 0; b < input.size(); ++b) {
    std::set<int> distinct;
    double sum = 0;
    for (const auto& [level, value] : input[b]) {
      if (level < 0 || level >= levels) {
        return Status::InvalidArgument("BlockPermutationTest: block " + std::to_string(b) +
                                       " has level " + std::to_string(level) + " outside [0, " +
                                       std::to_string(levels) + ")");
      }
      if (!std::isfinite(value)) {
        return Status::InvalidArgument("BlockPermutationTest: block " + std::to_string(b) +
                                       " has a non-finite value");
      }
      distinct.insert(level);
      sum += value;
    }
    if (distinct.size() < 2) continue;
    Block blk;
    const double mean = sum / static_cast<double>(input[b].size());
    for (const auto& [level, value] : input[b]) {
      blk.observed.push_back(level);
      blk.centred.push_back(value - mean);
      counts[level] += 1;
    }
    blk.labels = blk.observed;
    std::sort(blk.labels.begin(), blk.labels.end());
    log_total += LogMultinomial(blk.labels);
    blocks.push_back(std::move(blk));
  }
  BlockPermutationResult r;
  if (blocks.empty()) return r;  // nothing to permute: S = 0, p = 1
  r.arrangements = std::exp(log_total);
  std::vector<double> sums(static_cast<size_t>(levels));
  Flat flat;
  flat.offset.push_back(0);
  for (const auto& blk : blocks) {
    flat.centred.insert(flat.centred.end(), blk.centred.begin(), blk.centred.end());
    flat.labels.insert(flat.labels.end(), blk.observed.begin(), blk.observed.end());
    flat.offset.push_back(flat.labels.size());
  }
  r.statistic = Statistic(flat, counts, &sums);
  int* labels = flat.labels.data();

  if (r.arrangements <= exact_limit + 0.5) {
    r.exact = true;
    for (size_t b = 0; b < blocks.size(); ++b) {
      std::copy(blocks[b].labels.begin(), blocks[b].labels.end(), labels + flat.offset[b]);
    }
    double total = 0, hits = 0, best = -1, at_best = 0;
    while (true) {
      const double s = Statistic(flat, counts, &sums);
      total += 1;
      if (AtLeast(s, r.statistic)) hits += 1;
      if (s > best * (1 + 1e-12) + 1e-300) {
        best = s;
        at_best = 1;
      } else if (AtLeast(s, best)) {
        at_best += 1;
      }
      size_t b = 0;  // odometer over the blocks' distinct permutations
      while (b < blocks.size() &&
             !std::next_permutation(labels + flat.offset[b], labels + flat.offset[b + 1])) {
        ++b;
      }
      if (b == blocks.size()) break;
    }
    r.p_value = hits / total;
    r.min_p = at_best / total;
    return r;
  }
  // One re-dealing: Fisher-Yates in every block (ranges m, m - 1, ..., 2 per block of m, the
  // blocks in order), its indices drawn as one packed sequence (packed_indices.h).
  // Every block has two levels, so at least two observations and at least one draw.
  std::vector<uint32_t> ranges;
  for (size_t b = 0; b < blocks.size(); ++b) {
    for (size_t k = flat.offset[b + 1] - flat.offset[b]; k > 1; --k) {
      ranges.push_back(static_cast<uint32_t>(k));
    }
  }
  const PackedPlan plan = PlanPacked(ranges);
  Rng rng(seed);
  int hits = 0;
  for (int i = 0; i < resamples; ++i) {
    size_t b = 0;
    int* l = labels;
    size_t k = flat.offset[1];  // the draws visit the blocks in order, k = m, ..., 2 in each
    std::fill(sums.begin(), sums.end(), 0.0);
    // Each block's labels are summed as soon as they are dealt, while they are in cache: the same
    // additions in the same order as Statistic's one pass.
    DrawPacked(plan, &rng, [&](size_t, uint32_t j) {
      std::swap(l[k - 1], l[j]);
      if (--k == 1) {
        Accumulate(flat, flat.offset[b], flat.offset[b + 1], sums.data());
        if (++b < blocks.size()) {
          l = labels + flat.offset[b];
          k = flat.offset[b + 1] - flat.offset[b];
        }
      }
    });
    if (AtLeast(FromSums(counts, sums), r.statistic)) ++hits;
    if (stop_after_hits > 0 && hits >= stop_after_hits && i + 1 < resamples) {
      r.resamples = i + 1;
      r.stopped_early = true;
      r.p_value = static_cast<double>(hits) / (i + 1);  // Besag-Clifford: h / L
      r.min_p = 1.0 / (1.0 + resamples);
      return r;
    }
  }
  r.resamples = resamples;
  r.p_value = (1.0 + hits) / (1.0 + resamples);
  r.min_p = 1.0 / (1.0 + resamples);
  return r;
}

}  // namespace fleetsweep::stats
