// aggregate_bench: cost of the coordinator's per-configuration aggregation.
//
// For `configs` configurations of `samples` samples each (default 10,000 x 30, synthetic
// log-normal timings): Summarize (median, MAD, mean, stddev) and a 95% percentile bootstrap CI of
// the median with `resamples` resamples (default 2000), then one Kruskal-Wallis test across all
// configurations. Prints the wall time of each phase. Not part of the test suite.
//
//   aggregate_bench [--configs N] [--samples N] [--resamples N] [--threads N]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "common/stats/stats.h"

namespace fs = fleetsweep::stats;

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// CPU seconds used by the whole process so far (all threads): on a shared machine the wall time
// includes waiting for a core, the CPU time is the cost.
double ProcessCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

int IntFlag(int argc, char** argv, const char* name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return std::atoi(argv[i + 1]);
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const int configs = IntFlag(argc, argv, "--configs", 10000);
  const int samples = IntFlag(argc, argv, "--samples", 30);
  const int resamples = IntFlag(argc, argv, "--resamples", 2000);
  const int threads = std::max(1, IntFlag(argc, argv, "--threads", 1));

  // Synthetic timings: configuration c has a true median of 1 + c/configs ms and 5% log-normal
  // noise, drawn from the portable Rng so every run measures the same data.
  std::vector<std::vector<double>> data(configs, std::vector<double>(samples));
  fs::Rng rng(12345);
  for (int c = 0; c < configs; ++c) {
    const double center = 1.0 + static_cast<double>(c) / configs;
    for (double& x : data[c]) {
      double u;
      do u = rng.Uniform01();
      while (u == 0.0);
      x = center * std::exp(0.05 * fs::NormalQuantile(u));
    }
  }

  std::vector<fs::Summary> summaries(configs);
  std::vector<fs::Interval> cis(configs);
  const auto t0 = Clock::now();
  const double c0 = ProcessCpuSeconds();
  auto work = [&](int begin, int end, double* summary_s) {
    fs::BootstrapWorkspace ws;
    const auto s0 = Clock::now();
    for (int c = begin; c < end; ++c) summaries[c] = *fs::Summarize(data[c]);
    const auto s1 = Clock::now();
    for (int c = begin; c < end; ++c) {
      cis[c] = *fs::BootstrapMedianCI(data[c], 0.95, resamples, 0x5EED0000ULL + c, &ws);
    }
    *summary_s = Seconds(s0, s1);
  };
  std::vector<double> summary_s(threads, 0.0);
  if (threads == 1) {
    work(0, configs, &summary_s[0]);
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      const int begin = static_cast<int>(static_cast<long long>(configs) * t / threads);
      const int end = static_cast<int>(static_cast<long long>(configs) * (t + 1) / threads);
      pool.emplace_back(work, begin, end, &summary_s[t]);
    }
    for (auto& th : pool) th.join();
  }
  const auto t1 = Clock::now();
  const double c1 = ProcessCpuSeconds();
  const auto kw = fs::KruskalWallis(data);
  const auto t2 = Clock::now();
  const double c2 = ProcessCpuSeconds();
  if (!kw.ok()) {
    std::fprintf(stderr, "KruskalWallis: %s\n", kw.status().ToString().c_str());
    return 1;
  }

  double width = 0;
  for (int c = 0; c < configs; ++c) width += fs::RelativeHalfWidth(cis[c], summaries[c].median);
  const double per_config = Seconds(t0, t1);
  std::printf("aggregate_bench: %d configs x %d samples, %d resamples, %d thread(s)\n", configs,
              samples, resamples, threads);
  std::printf("  phase                               wall_s   cpu_s\n");
  std::printf("  summarize (median, MAD, mean, sd)   %6.3f       - (thread 0 only)\n",
              summary_s[0]);
  std::printf("  summarize + bootstrap CI            %6.3f  %6.3f  (%.1f us CPU/config)\n",
              per_config, c1 - c0, 1e6 * (c1 - c0) / configs);
  std::printf("  Kruskal-Wallis, %d groups        %6.3f  %6.3f  (H=%.1f p=%.3g eps2=%.3f)\n",
              configs, Seconds(t1, t2), c2 - c1, kw->h, kw->p_value, kw->epsilon_squared);
  std::printf("  total                               %6.3f  %6.3f\n", Seconds(t0, t2), c2 - c0);
  std::printf("  mean relative CI half-width: %.4f\n", width / configs);
  return 0;
}
