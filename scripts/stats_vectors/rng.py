"""Rng: splitmix64 + xoshiro256** transcribed with Python integers (common/stats/rng.h)."""



MASK64 = (1 << 64) - 1


# ---------------------------------------------------------------- Rng (xoshiro256**)
def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & MASK64


class Xoshiro:
    def __init__(self, seed):
        self.s = []
        st = seed
        for _ in range(4):
            st, v = splitmix64(st)
            self.s.append(v)
        self.half = None

    def next(self):
        s = self.s
        result = (rotl((s[1] * 5) & MASK64, 7) * 9) & MASK64
        t = (s[1] << 17) & MASK64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result

    def next32(self):
        if self.half is not None:
            v, self.half = self.half >> 32, None
            return v
        self.half = self.next()
        return self.half & 0xFFFFFFFF

    def uniform_index(self, n):
        threshold = ((1 << 32) - n) % n
        while True:
            m = self.next32() * n
            if (m & 0xFFFFFFFF) >= threshold:
                return m >> 32


PACKED_LIMIT = 1 << 56


def packed_indices(r, ranges):
    """common/stats/packed_indices.h: greedy groups of ranges with product <= 2^56, one Lemire
    draw on a 64-bit output per group, its mixed-radix digits most significant first."""
    out = []
    i = 0
    while i < len(ranges):
        product, j = 1, i
        while j < len(ranges) and (j == i or product * ranges[j] <= PACKED_LIMIT):
            product *= ranges[j]
            j += 1
        threshold = ((1 << 64) - product) % product
        while True:
            m = r.next() * product
            if (m & MASK64) >= threshold:
                break
        u = m >> 64
        digits = []
        for n in reversed(ranges[i:j]):
            u, d = divmod(u, n)
            digits.append(d)
        out.extend(reversed(digits))
        i = j
    return out


PACKED_CASES = [[30] * 30, [3] * 90, [30, 30, 7, 1, 3, 1000003, 4000000000, 4000000000, 2],
                list(range(200, 1, -1))]


def rng_vectors():
    out = []
    for seed in [0, 1, 42, 0xDEADBEEFCAFEF00D]:
        r = Xoshiro(seed)
        u64 = [r.next() for _ in range(6)]
        r = Xoshiro(seed)
        idx = [r.uniform_index(n) for n in [30, 7, 1, 1000003, 30, 2]]
        r = Xoshiro(seed)
        packed = [packed_indices(r, ranges) for ranges in PACKED_CASES]
        out.append({"seed": seed, "u64": u64, "index_n": [30, 7, 1, 1000003, 30, 2],
                    "index": idx, "packed_ranges": PACKED_CASES, "packed": packed})
    return out

