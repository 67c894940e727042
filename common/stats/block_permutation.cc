#include "common/stats/block_permutation.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/stats/packed_indices.h"
#include "common/stats/rng.h"

namespace fleetsweep::stats {
namespace {

struct Block {
  std::vector<int> labels;      // sorted initially (next_permutation order)
  std::vector<double> centred;  // units' value sums minus n_u x the block mean, original order
  std::vector<double> weights;  // the units' n_u, aligned with centred
  std::vector<int> observed;    // the observed labels, aligned with centred
};

// The blocks' units laid end to end (block by block, in order), so that the statistic is one
// sequential pass; the sums are added in the same order as block by block.
struct Flat {
  std::vector<size_t> offset;  // block b holds [offset[b], offset[b + 1])
  std::vector<double> centred;
  std::vector<double> weights;
  std::vector<int> labels;
  bool recount = false;  // a block's units have unequal counts: n_l changes with the re-dealing
};

// Per level: the sum of centred values and the count of observations n_l (fixed unless
// flat.recount).
struct Sums {
  std::vector<double> values;
  std::vector<double> counts;
};

// Adds flat's units [begin, end) to the sums of their labels.
void AddValues(const Flat& flat, size_t begin, size_t end, double* s_by_level) {
  const double* centred = flat.centred.data();
  const int* labels = flat.labels.data();
  for (size_t i = begin; i < end; ++i) s_by_level[labels[i]] += centred[i];
}

// Adds flat's units [begin, end) to the counts of their labels.
void AddCounts(const Flat& flat, size_t begin, size_t end, double* n_by_level) {
  const double* weights = flat.weights.data();
  const int* labels = flat.labels.data();
  for (size_t i = begin; i < end; ++i) n_by_level[labels[i]] += weights[i];
}

// Adds flat's units [begin, end) to the sums of their labels, and their counts to n_by_level
// unless it is null (counts fixed).
void Accumulate(const Flat& flat, size_t begin, size_t end, double* s_by_level,
                double* n_by_level) {
  AddValues(flat, begin, end, s_by_level);
  if (n_by_level != nullptr) AddCounts(flat, begin, end, n_by_level);
}

// Where Accumulate adds counts: null when they are fixed.
double* MovingCounts(const Flat& flat, Sums* sums) {
  return flat.recount ? sums->counts.data() : nullptr;
}

// Zeroes what Accumulate adds to.
void Reset(const Flat& flat, Sums* sums) {
  std::fill(sums->values.begin(), sums->values.end(), 0.0);
  if (flat.recount) std::fill(sums->counts.begin(), sums->counts.end(), 0.0);
}

double FromSums(const Sums& sums) {
  double s = 0;
  for (size_t l = 0; l < sums.values.size(); ++l) {
    if (sums.counts[l] > 0) s += sums.values[l] * sums.values[l] / sums.counts[l];
  }
  return s;
}

double Statistic(const Flat& flat, Sums* sums) {
  Reset(flat, sums);
  Accumulate(flat, 0, flat.centred.size(), sums->values.data(), MovingCounts(flat, sums));
  return FromSums(*sums);
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

// Checks block b's units; InvalidArgument names the first bad one.
Status CheckUnits(const std::vector<PermutationUnit>& units, size_t b, int levels) {
  for (const PermutationUnit& u : units) {
    if (u.level < 0 || u.level >= levels) {
      return Status::InvalidArgument("BlockPermutationTest: block " + std::to_string(b) +
                                     " has level " + std::to_string(u.level) + " outside [0, " +
                                     std::to_string(levels) + ")");
    }
    if (!std::isfinite(u.value_sum)) {
      return Status::InvalidArgument("BlockPermutationTest: block " + std::to_string(b) +
                                     " has a non-finite value");
    }
    if (u.observations < 1) {
      return Status::InvalidArgument("BlockPermutationTest: block " + std::to_string(b) +
                                     " has a unit of " + std::to_string(u.observations) +
                                     " observations");
    }
  }
  return Status::Ok();
}

bool HasTwoLevels(const std::vector<PermutationUnit>& units) {
  for (const PermutationUnit& u : units) {
    if (u.level != units.front().level) return true;
  }
  return false;
}

// The block's units centred on its mean over observations; counts[level] += n_u for each unit.
Block CentredBlock(const std::vector<PermutationUnit>& units, std::vector<double>* counts) {
  double sum = 0, observations = 0;
  for (const PermutationUnit& u : units) {
    sum += u.value_sum;
    observations += u.observations;
  }
  const double mean = sum / observations;
  Block blk;
  blk.observed.reserve(units.size());
  blk.weights.reserve(units.size());
  blk.centred.reserve(units.size());
  for (const PermutationUnit& u : units) {
    const double n = u.observations;
    blk.observed.push_back(u.level);
    blk.weights.push_back(n);
    blk.centred.push_back(u.value_sum - n * mean);
    (*counts)[u.level] += n;
  }
  blk.labels = blk.observed;
  std::sort(blk.labels.begin(), blk.labels.end());
  return blk;
}

Flat LayOut(const std::vector<Block>& blocks) {
  Flat flat;
  flat.offset.push_back(0);
  for (const auto& blk : blocks) {
    flat.centred.insert(flat.centred.end(), blk.centred.begin(), blk.centred.end());
    flat.weights.insert(flat.weights.end(), blk.weights.begin(), blk.weights.end());
    flat.labels.insert(flat.labels.end(), blk.observed.begin(), blk.observed.end());
    flat.offset.push_back(flat.labels.size());
    for (double w : blk.weights) flat.recount = flat.recount || w != blk.weights.front();
  }
  return flat;
}

// Every distinct re-dealing enumerated: p and min_p exact.
void Enumerate(const std::vector<Block>& blocks, Flat* flat, Sums* sums,
               BlockPermutationResult* r) {
  int* labels = flat->labels.data();
  for (size_t b = 0; b < blocks.size(); ++b) {
    std::copy(blocks[b].labels.begin(), blocks[b].labels.end(), labels + flat->offset[b]);
  }
  double total = 0, hits = 0, best = -1, at_best = 0;
  while (true) {
    const double s = Statistic(*flat, sums);
    total += 1;
    if (AtLeast(s, r->statistic)) hits += 1;
    if (s > best * (1 + 1e-12) + 1e-300) {
      best = s;
      at_best = 1;
    } else if (AtLeast(s, best)) {
      at_best += 1;
    }
    size_t b = 0;  // odometer over the blocks' distinct permutations
    while (b < blocks.size() &&
           !std::next_permutation(labels + flat->offset[b], labels + flat->offset[b + 1])) {
      ++b;
    }
    if (b == blocks.size()) break;
  }
  r->exact = true;
  r->p_value = hits / total;
  r->min_p = at_best / total;
}

// Seeded (sequential) Monte Carlo over re-dealings.
void Draw(Flat* flat, Sums* sums, int resamples, uint64_t seed, int stop_after_hits,
          BlockPermutationResult* r) {
  // One re-dealing: Fisher-Yates in every block (ranges m, m - 1, ..., 2 per block of m units,
  // the blocks in order), its indices drawn as one packed sequence (packed_indices.h).
  // Every block has two levels, so at least two units and at least one draw.
  const size_t blocks = flat->offset.size() - 1;
  std::vector<uint32_t> ranges;
  for (size_t b = 0; b < blocks; ++b) {
    for (size_t k = flat->offset[b + 1] - flat->offset[b]; k > 1; --k) {
      ranges.push_back(static_cast<uint32_t>(k));
    }
  }
  const PackedPlan plan = PlanPacked(ranges);
  Rng rng(seed);
  const Flat& f = *flat;
  const size_t* offset = f.offset.data();
  int* labels = flat->labels.data();
  double* s_by_level = sums->values.data();
  double* n_by_level = MovingCounts(f, sums);
  int hits = 0;
  r->min_p = 1.0 / (1.0 + resamples);
  for (int i = 0; i < resamples; ++i) {
    size_t b = 0;
    int* l = labels;
    size_t k = offset[1];  // the draws visit the blocks in order, k = m, ..., 2 in each
    Reset(f, sums);
    // Each block's labels are summed as soon as they are dealt, while they are in cache: the same
    // additions in the same order as Statistic's one pass.
    DrawPacked(plan, &rng, [&](size_t, uint32_t j) {
      std::swap(l[k - 1], l[j]);
      if (--k == 1) {
        Accumulate(f, offset[b], offset[b + 1], s_by_level, n_by_level);
        if (++b < blocks) {
          l = labels + offset[b];
          k = offset[b + 1] - offset[b];
        }
      }
    });
    if (AtLeast(FromSums(*sums), r->statistic)) ++hits;
    if (stop_after_hits > 0 && hits >= stop_after_hits && i + 1 < resamples) {
      r->resamples = i + 1;
      r->stopped_early = true;
      r->p_value = static_cast<double>(hits) / (i + 1);  // Besag-Clifford: h / L
      return;
    }
  }
  r->resamples = resamples;
  r->p_value = (1.0 + hits) / (1.0 + resamples);
}

}  // namespace

StatusOr<BlockPermutationResult> BlockPermutationTestOfUnits(
    const std::vector<std::vector<PermutationUnit>>& input, int levels, int resamples,
    uint64_t seed, double exact_limit, int stop_after_hits) {
  if (levels < 2) return Status::InvalidArgument("BlockPermutationTest: need at least 2 levels");
  if (resamples < 1) return Status::InvalidArgument("BlockPermutationTest: resamples must be >= 1");
  if (stop_after_hits < 0) {
    return Status::InvalidArgument("BlockPermutationTest: stop_after_hits must be >= 0");
  }
  std::vector<Block> blocks;
  Sums sums;
  sums.values.assign(static_cast<size_t>(levels), 0.0);
  sums.counts.assign(static_cast<size_t>(levels), 0.0);  // the observed n_l
  for (size_t b = 0; b < input.size(); ++b) {
    if (Status st = CheckUnits(input[b], b, levels); !st.ok()) return st;
    if (input[b].empty() || !HasTwoLevels(input[b])) continue;
    blocks.push_back(CentredBlock(input[b], &sums.counts));
  }
  BlockPermutationResult r;
  if (blocks.empty()) return r;  // nothing to permute: S = 0, p = 1
  double log_total = 0;
  for (const Block& blk : blocks) log_total += LogMultinomial(blk.labels);
  r.arrangements = std::exp(log_total);
  Flat flat = LayOut(blocks);
  r.statistic = Statistic(flat, &sums);
  if (r.arrangements <= exact_limit + 0.5) {
    Enumerate(blocks, &flat, &sums, &r);
  } else {
    Draw(&flat, &sums, resamples, seed, stop_after_hits, &r);
  }
  return r;
}

StatusOr<BlockPermutationResult> BlockPermutationTest(
    const std::vector<std::vector<std::pair<int, double>>>& input, int levels, int resamples,
    uint64_t seed, double exact_limit, int stop_after_hits) {
  std::vector<std::vector<PermutationUnit>> units(input.size());
  for (size_t b = 0; b < input.size(); ++b) {
    units[b].reserve(input[b].size());
    for (const auto& [level, value] : input[b]) units[b].push_back({level, 1, value});
  }
  return BlockPermutationTestOfUnits(units, levels, resamples, seed, exact_limit, stop_after_hits);
}

}  // namespace fleetsweep::stats
