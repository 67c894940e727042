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


def rng_vectors():
    out = []
    for seed in [0, 1, 42, 0xDEADBEEFCAFEF00D]:
        r = Xoshiro(seed)
        u64 = [r.next() for _ in range(6)]
        r = Xoshiro(seed)
        idx = [r.uniform_index(n) for n in [30, 7, 1, 1000003, 30, 2]]
        out.append({"seed": seed, "u64": u64, "index_n": [30, 7, 1, 1000003, 30, 2],
                    "index": idx})
    return out

