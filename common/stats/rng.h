// Rng: a small, fixed, portable pseudo-random generator for reproducible statistics.
//
// The stream is xoshiro256** (Blackman and Vigna) whose 256-bit state is filled from the 64-bit
// seed with splitmix64. Both are defined bit for bit, so a given seed yields the same stream on
// every compiler, standard library and machine (std::uniform_int_distribution does not give that
// guarantee). Changing this stream changes every bootstrap interval that fleetsweep has recorded:
// stats_test pins its first outputs against values computed independently in Python.
//
// Thread-safety: an Rng is a plain value; one instance must not be used by two threads at once.
// Give each thread its own Rng (e.g. seeded with the configuration hash).
#pragma once

#include <cmath>
#include <cstdint>

namespace fleetsweep::stats {

// One step of splitmix64: advances *state and returns the next output.
inline uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    uint64_t sm = seed;
    for (uint64_t& word : s_) word = SplitMix64(&sm);
  }

  // Next 64 uniformly distributed bits (xoshiro256**).
  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  // Uniform double in [0, 1) with 53 random bits.
  double Uniform01() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  // A standard normal draw (Box-Muller from two Uniform01 draws, u first; enough for
  // simulations: tests and benches).
  double StandardNormal() {
    const double u = 1.0 - Uniform01(), v = Uniform01();
    return std::sqrt(-2 * std::log(u)) * std::cos(6.283185307179586 * v);
  }

  // Uniform integer in [0, n), exactly unbiased (Lemire's multiply-shift with rejection) for
  // 0 < n < 2^32. Each call consumes one or, rarely, more 32-bit halves of Next(); n == 0 is a
  // caller bug (returns 0).
  uint32_t UniformIndex(uint32_t n) {
    if (n == 0) return 0;
    uint64_t m = static_cast<uint64_t>(Next32()) * n;
    if (static_cast<uint32_t>(m) < n) {  // rare: only then can the draw fall in the biased zone
      const uint32_t threshold = static_cast<uint32_t>(-n) % n;  // (2^32 - n) mod n
      while (static_cast<uint32_t>(m) < threshold) m = static_cast<uint64_t>(Next32()) * n;
    }
    return static_cast<uint32_t>(m >> 32);
  }

  // Next 32 random bits: the low half of Next() first, then its high half.
  uint32_t Next32() {
    if (have_half_) {
      have_half_ = false;
      return static_cast<uint32_t>(half_ >> 32);
    }
    half_ = Next();
    have_half_ = true;
    return static_cast<uint32_t>(half_);
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  uint64_t s_[4];
  uint64_t half_ = 0;
  bool have_half_ = false;
};

}  // namespace fleetsweep::stats
