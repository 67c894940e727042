// fleetsweep-matmul-bench: a real CPU benchmark whose parameters change the code that runs.
//
// Computes C = A * B (float, N x N, row-major) with a blocked loop nest: block sizes BM (rows of
// C), BN (columns of C), BK (the reduction), and a loop order (ijk, ikj, jik, jki, kij, kji) that
// orders both the block loops and the loops inside a block; each order is its own loop nest
// (ikj/kij stream rows of B, jki/kji stream columns, ijk/jik accumulate dot products). It times
// --reps repetitions after one warm-up, checks C against a naive double-precision reference, and
// prints fleetsweep protocol lines (docs/executors.md) on stdout:
//   one "sample" per repetition for time_ms and for gflops, a "check", a "fingerprint" (a hash
//   of the loop order, the effective block sizes the loop nest really used, and N), "info" lines.
//
// Flags (each falls back to the env FLEETSWEEP_PARAM_<NAME> the exec executor exports):
//   --n N (192)  --bm BM (32)  --bn BN (32)  --bk BK (32)  --order O (ijk; env LOOP_ORDER or
//   ORDER)  --reps R (5)  --seed S (1)  --ignore-bk (the loop nest ignores BK and reduces over
//   the whole K range: the fingerprint then does not change with BK, as a parameter that never
//   reached the kernel should not).
// Exit status: 0 after measuring (even when the check fails: the check line says so), 2 on bad
// arguments.
#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

struct Options {
  int n = 192, bm = 32, bn = 32, bk = 32, reps = 5;
  std::string order = "ijk";
  unsigned seed = 1;
  bool ignore_bk = false;
};

const char* const kOrders[] = {"ijk", "ikj", "jik", "jki", "kij", "kji"};

[[noreturn]] void Usage(const std::string& why) {
  std::fprintf(stderr,
               "fleetsweep-matmul-bench: %s\nusage: fleetsweep-matmul-bench [--n N] [--bm BM] "
               "[--bn BN] [--bk BK] [--order ijk|ikj|jik|jki|kij|kji] [--reps R] [--seed S] "
               "[--ignore-bk]\n",
               why.c_str());
  std::exit(2);
}

// --help: the usage with every default, on stdout; exit 0.
[[noreturn]] void Help() {
  const Options d;
  std::printf(
      "fleetsweep-matmul-bench: a blocked CPU matmul that speaks the fleetsweep benchmark "
      "protocol\nusage: fleetsweep-matmul-bench [options]\n"
      "  --n N          matrix size (default %d)\n"
      "  --bm BM        row tile (default %d)\n"
      "  --bn BN        column tile (default %d)\n"
      "  --bk BK        reduction tile (default %d)\n"
      "  --order O      loop order: ijk ikj jik jki kij kji (default %s)\n"
      "  --reps R       timed repetitions, one sample each (default %d)\n"
      "  --seed S       input seed (default %u)\n"
      "  --ignore-bk    the loop nest ignores BK (tests of the injection audit)\n"
      "Each flag can also come from FLEETSWEEP_PARAM_<NAME> (N, BM, BN, BK, REPS, LOOP_ORDER or "
      "ORDER).\n",
      d.n, d.bm, d.bn, d.bk, d.order.c_str(), d.reps, d.seed);
  std::exit(0);
}

int ParseInt(const char* name, const char* text, int lo, int hi) {
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < lo || v > hi) {
    Usage(std::string(name) + " must be an integer in [" + std::to_string(lo) + ", " +
          std::to_string(hi) + "], got '" + text + "'");
  }
  return static_cast<int>(v);
}

const char* Env(const char* name) {
  const char* v = std::getenv((std::string("FLEETSWEEP_PARAM_") + name).c_str());
  return v && *v ? v : nullptr;
}

Options ParseOptions(int argc, char** argv) {
  Options o;
  struct IntOpt {
    const char* flag;
    const char* env;
    int* dst;
    int lo, hi;
  } ints[] = {{"--n", "N", &o.n, 1, 4096},
              {"--bm", "BM", &o.bm, 1, 1 << 20},
              {"--bn", "BN", &o.bn, 1, 1 << 20},
              {"--bk", "BK", &o.bk, 1, 1 << 20},
              {"--reps", "REPS", &o.reps, 1, 100000}};
  for (const IntOpt& opt : ints) {
    if (const char* v = Env(opt.env)) *opt.dst = ParseInt(opt.env, v, opt.lo, opt.hi);
  }
  if (const char* v = Env("LOOP_ORDER"))
    o.order = v;
  else if (const char* v2 = Env("ORDER"))
    o.order = v2;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--ignore-bk") {
      o.ignore_bk = true;
      continue;
    }
    if (a == "--help" || a == "-h") Help();
    if (i + 1 >= argc) Usage("missing value after " + a);
    const char* v = argv[++i];
    bool known = false;
    for (const IntOpt& opt : ints) {
      if (a == opt.flag) {
        *opt.dst = ParseInt(opt.flag, v, opt.lo, opt.hi);
        known = true;
      }
    }
    if (a == "--order") {
      o.order = v;
    } else if (a == "--seed") {
      o.seed = static_cast<unsigned>(ParseInt("--seed", v, 0, 1 << 30));
    } else if (!known) {
      Usage("unknown flag " + a);
    }
  }
  if (std::find(std::begin(kOrders), std::end(kOrders), o.order) == std::end(kOrders)) {
    Usage("unknown loop order '" + o.order + "'");
  }
  return o;
}

// The loops inside one block [i0,i1) x [j0,j1) x [k0,k1), in loop order O (0..5 = kOrders).
template <int O>
void Tile(const float* A, const float* B, float* C, int n, int i0, int i1, int j0, int j1, int k0,
          int k1) {
  if constexpr (O == 0) {  // ijk: dot products along k
    for (int i = i0; i < i1; ++i)
      for (int j = j0; j < j1; ++j) {
        float s = C[i * n + j];
        for (int k = k0; k < k1; ++k) s += A[i * n + k] * B[k * n + j];
        C[i * n + j] = s;
      }
  } else if constexpr (O == 1) {  // ikj: rows of B streamed into a row of C
    for (int i = i0; i < i1; ++i)
      for (int k = k0; k < k1; ++k) {
        const float a = A[i * n + k];
        for (int j = j0; j < j1; ++j) C[i * n + j] += a * B[k * n + j];
      }
  } else if constexpr (O == 2) {  // jik: dot products, column-major walk of C
    for (int j = j0; j < j1; ++j)
      for (int i = i0; i < i1; ++i) {
        float s = C[i * n + j];
        for (int k = k0; k < k1; ++k) s += A[i * n + k] * B[k * n + j];
        C[i * n + j] = s;
      }
  } else if constexpr (O == 3) {  // jki: columns of A streamed into a column of C
    for (int j = j0; j < j1; ++j)
      for (int k = k0; k < k1; ++k) {
        const float b = B[k * n + j];
        for (int i = i0; i < i1; ++i) C[i * n + j] += A[i * n + k] * b;
      }
  } else if constexpr (O == 4) {  // kij: rank-1 updates, row-wise
    for (int k = k0; k < k1; ++k)
      for (int i = i0; i < i1; ++i) {
        const float a = A[i * n + k];
        for (int j = j0; j < j1; ++j) C[i * n + j] += a * B[k * n + j];
      }
  } else {  // kji: rank-1 updates, column-wise
    for (int k = k0; k < k1; ++k)
      for (int j = j0; j < j1; ++j) {
        const float b = B[k * n + j];
        for (int i = i0; i < i1; ++i) C[i * n + j] += A[i * n + k] * b;
      }
  }
}

// Block loops in the same order as the tile loops. Dimension 0 = i, 1 = j, 2 = k.
template <int O>
void Blocked(const float* A, const float* B, float* C, int n, int bm, int bn, int bk) {
  static constexpr int kDims[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                      {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  const int step[3] = {bm, bn, bk};
  const int d0 = kDims[O][0], d1 = kDims[O][1], d2 = kDims[O][2];
  int lo[3];
  for (lo[d0] = 0; lo[d0] < n; lo[d0] += step[d0])
    for (lo[d1] = 0; lo[d1] < n; lo[d1] += step[d1])
      for (lo[d2] = 0; lo[d2] < n; lo[d2] += step[d2])
        Tile<O>(A, B, C, n, lo[0], std::min(lo[0] + bm, n), lo[1], std::min(lo[1] + bn, n), lo[2],
                std::min(lo[2] + bk, n));
}

using Kernel = void (*)(const float*, const float*, float*, int, int, int, int);
const Kernel kKernels[] = {Blocked<0>, Blocked<1>, Blocked<2>, Blocked<3>, Blocked<4>, Blocked<5>};

uint64_t Fnv1a64(const std::string& s) {
  uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

void Info(const char* key, const std::string& value) {
  std::printf("{\"type\":\"info\",\"key\":\"%s\",\"value\":\"%s\"}\n", key, value.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  Options o = ParseOptions(argc, argv);
  const int n = o.n;
  // What the loop nest really uses: blocks clamp to N; with --ignore-bk the reduction is whole.
  const int bm = std::min(o.bm, n), bn = std::min(o.bn, n);
  const int bk = o.ignore_bk ? n : std::min(o.bk, n);
  const int order_index =
      static_cast<int>(std::find(std::begin(kOrders), std::end(kOrders), o.order) - kOrders);
  const Kernel kernel = kKernels[order_index];

  std::vector<float> A(size_t(n) * n), B(size_t(n) * n), C(size_t(n) * n);
  std::mt19937 rng(o.seed);
  std::uniform_real_distribution<float> dist(0.1f, 1.0f);  // non-zero, no cancellation
  for (float& x : A) x = dist(rng);
  for (float& x : B) x = dist(rng);

  using Clock = std::chrono::steady_clock;
  std::fill(C.begin(), C.end(), 0.0f);
  kernel(A.data(), B.data(), C.data(), n, bm, bn, bk);  // warm-up
  const double flop = 2.0 * n * n * double(n);
  for (int r = 0; r < o.reps; ++r) {
    std::fill(C.begin(), C.end(), 0.0f);
    auto t0 = Clock::now();
    kernel(A.data(), B.data(), C.data(), n, bm, bn, bk);
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    std::printf("{\"type\":\"sample\",\"metric\":\"time_ms\",\"value\":%.9g}\n", ms);
    if (ms > 0) {
      std::printf("{\"type\":\"sample\",\"metric\":\"gflops\",\"value\":%.9g}\n",
                  flop / (ms * 1e-3) / 1e9);
    }
  }

  // Check the last product against a naive double-precision reference.
  double max_rel = 0;
  int worst = 0;
  std::vector<double> row(n);
  for (int i = 0; i < n; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    for (int k = 0; k < n; ++k) {
      const double a = A[size_t(i) * n + k];
      for (int j = 0; j < n; ++j) row[j] += a * B[size_t(k) * n + j];
    }
    for (int j = 0; j < n; ++j) {
      double rel = std::fabs(C[size_t(i) * n + j] - row[j]) / std::fabs(row[j]);
      if (!(rel <= max_rel)) {  // also catches NaN
        max_rel = std::isfinite(rel) ? rel : 1e300;
        worst = i * n + j;
      }
    }
  }
  const double tolerance = std::max(1e-5, 2.0 * n * FLT_EPSILON);
  std::printf(
      "{\"type\":\"check\",\"passed\":%s,\"max_rel_error\":%.6g,\"tolerance\":%.6g,"
      "\"detail\":\"worst C[%d][%d] vs naive double reference\"}\n",
      max_rel <= tolerance ? "true" : "false", max_rel, tolerance, worst / n, worst % n);

  char what[160];
  std::snprintf(what, sizeof(what), "matmul-bench-v1;order=%s;bm=%d;bn=%d;bk=%d;n=%d",
                o.order.c_str(), bm, bn, bk, n);
  char fp[17];
  std::snprintf(fp, sizeof(fp), "%016llx", static_cast<unsigned long long>(Fnv1a64(what)));
  std::printf("{\"type\":\"fingerprint\",\"value\":\"%s\"}\n", fp);
  Info("ran", what);
  Info("n", std::to_string(n));
  Info("reps", std::to_string(o.reps));
#ifdef __VERSION__
  Info("compiler", __VERSION__);
#endif
  return 0;
}
