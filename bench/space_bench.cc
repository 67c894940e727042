// fleetsweep-space-bench: how fast the space layer counts and expands large spaces.
//
// Builds specs of 1,000,000 and 10,000,000 raw configurations (3 or 4 integer parameters and 2
// constraints), then times CountSpace and a full SpaceIterator expansion (each Config copied out,
// as a scheduler would). Prints one table row per space with the peak RSS of the process
// (getrusage ru_maxrss) after that row, which shows that expansion memory does not grow with the
// space. Usage: fleetsweep-space-bench [--max-configs N] (default 10000000).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/space/expand.h"
#include "common/space/spec.h"

namespace {

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// CPU seconds of this process (the build machine is shared; wall time alone can mislead).
double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

double PeakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux: kilobytes
}

std::string SpecText(int params) {
  std::string text = "sweep: bench\nparameters:\n";
  text += "  a: {range: {from: 1, to: 100}}\n";
  text += "  b: {range: {from: 1, to: 100}}\n";
  text += "  c: {range: {from: 1, to: 100}}\n";
  if (params >= 4) text += "  d: {values: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]}\n";
  text += "  fixed_one: {fixed: 7, reason: bench}\n";
  text += "  ignored: {inert: true, values: [1, 2], reason: bench}\n";
  text += "constraints:\n";
  text += "  - \"a % 7 != 0 or b > 50\"\n";
  text += "  - \"a + b + c >= 60\"\n";
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t max_configs = 10000000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--max-configs") == 0)
      max_configs = std::strtoull(argv[i + 1], nullptr, 10);
  }
  std::printf("%-10s %10s %10s %8s %8s %10s %9s %11s %13s\n", "space", "raw", "final", "parse_s",
              "count_s", "count_cpu", "expand_s", "expand_cpu", "peak_rss_MiB");
  for (int params : {3, 4}) {
    uint64_t size = params == 3 ? 1000000 : 10000000;
    if (size > max_configs) continue;
    auto start = std::chrono::steady_clock::now();
    auto spec = fleetsweep::ParseSpecText(SpecText(params), "<bench>");
    double parse_s = Seconds(start);
    if (!spec.ok()) {
      std::fprintf(stderr, "%s\n", spec.status().ToString().c_str());
      return 1;
    }
    start = std::chrono::steady_clock::now();
    double cpu = CpuSeconds();
    auto counts = fleetsweep::CountSpace(*spec);
    double count_s = Seconds(start);
    double count_cpu = CpuSeconds() - cpu;
    if (!counts.ok()) {
      std::fprintf(stderr, "%s\n", counts.status().ToString().c_str());
      return 1;
    }
    start = std::chrono::steady_clock::now();
    cpu = CpuSeconds();
    fleetsweep::SpaceIterator it(*spec);
    fleetsweep::Config config;
    uint64_t expanded = 0, checksum = 0;
    while (it.Next(&config)) {
      ++expanded;
      checksum += static_cast<uint64_t>(config.begin()->second.as_int());
    }
    double expand_s = Seconds(start);
    double expand_cpu = CpuSeconds() - cpu;
    if (expanded != counts->final_count || !it.status().ok()) {
      std::fprintf(stderr, "mismatch: expanded %llu, counted %llu\n",
                   static_cast<unsigned long long>(expanded),
                   static_cast<unsigned long long>(counts->final_count));
      return 1;
    }
    std::printf("%-10s %10.0f %10llu %8.3f %8.3f %10.3f %9.3f %11.3f %13.1f\n",
                (std::to_string(params) + " params").c_str(), counts->after_pinned,
                static_cast<unsigned long long>(counts->final_count), parse_s, count_s, count_cpu,
                expand_s, expand_cpu, PeakRssMiB());
    if (checksum == 0) std::printf("(checksum 0)\n");
  }
  return 0;
}
