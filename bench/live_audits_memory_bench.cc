// live_audits_memory_bench: the heap the live audits (coordinator/app/live_audits.h) hold per
// counted attempt, measured through their public interface as the serving thread feeds them.
//
// `attempts` attempts shaped like a persistent session's (attempt id, worker, node, slot,
// fingerprint, stdout tail, the session.* and exec.* info a worker sets, `samples` samples of
// time_ms) are handed over in batches of 1,000 with their configurations' records; each attempt
// is a new configuration of three parameters until `configs` configurations exist, then they
// repeat (--configs 0: every attempt a new configuration, as in bench/large_sweep_bench.py). One
// aggregate round runs at the end (its cached summaries are part of the footprint). Prints the
// heap in use (glibc mallinfo2: arena + mmapped) before and after, and the difference per
// attempt. The attempts are generated batch by batch, so the harness itself holds one batch.
// Not part of the test suite.
//
//   live_audits_memory_bench [--attempts N] [--configs N] [--samples N] [--nodes N]
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/metrics/coordinator_metrics.h"
#include "coordinator/app/live_audits.h"
#include "prometheus/registry.h"

namespace fs = fleetsweep;

namespace {

int64_t Flag(int argc, char** argv, const char* name, int64_t fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return std::atoll(argv[i + 1]);
  }
  return fallback;
}

size_t HeapInUse() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

constexpr int kLevels = 100;  // per parameter: 1,000,000 configurations

std::string Key(int64_t c) {
  char b[64];
  std::snprintf(b, sizeof b, "A=%lld,B=%lld,C=%lld", static_cast<long long>(c / 10000),
                static_cast<long long>(c / kLevels % kLevels), static_cast<long long>(c % kLevels));
  return b;
}

fs::v1::ConfigRecord Record(int64_t c) {
  fs::v1::ConfigRecord r;
  r.set_config_key(Key(c));
  (*r.mutable_params())["A"] = std::to_string(c / 10000);
  (*r.mutable_params())["B"] = std::to_string(c / kLevels % kLevels);
  (*r.mutable_params())["C"] = std::to_string(c % kLevels);
  r.set_state(fs::v1::CONFIG_STATE_DONE);
  r.set_seq(c);
  return r;
}

fs::v1::Attempt Attempt(int64_t seq, int64_t c, int samples, int nodes) {
  fs::v1::Attempt a;
  const int node = static_cast<int>(seq % nodes);
  a.set_config_key(Key(c));
  a.set_attempt_id(Key(c) + "-" + std::to_string(seq));
  a.set_worker_id("worker-node" + std::to_string(node) + "-1234");
  a.set_node("node" + std::to_string(node));
  a.set_slot(static_cast<int>(seq % 2));
  a.set_ok(true);
  a.set_fingerprint("fp-" + std::to_string(c % 7));
  a.set_started_unix_ms(1700000000000 + seq);
  a.set_duration_seconds(0.001);
  a.set_stdout_tail("{\"type\":\"sample\",\"metric\":\"time_ms\",\"value\":1.2345}\n");
  auto& info = *a.mutable_info();
  info["session.mode"] = "persistent";
  info["session.id"] = "s" + std::to_string(seq / 50);
  info["session.position"] = std::to_string(1 + seq % 50);
  info["session.age_s"] = "12.5";
  info["exec.stdout_bytes"] = "64";
  info["exec.stderr_bytes"] = "0";
  for (int i = 0; i < samples; ++i) {
    auto* s = a.add_samples();
    s->set_metric("time_ms");
    s->set_value(1.0 + 1e-3 * static_cast<double>((c * 7 + seq + i) % 97));
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t attempts = Flag(argc, argv, "--attempts", 200000);
  int64_t configs = Flag(argc, argv, "--configs", 0);
  const int samples = static_cast<int>(Flag(argc, argv, "--samples", 1));
  const int nodes = static_cast<int>(std::max<int64_t>(1, Flag(argc, argv, "--nodes", 2)));
  if (configs <= 0) configs = attempts;
  auto spec = fs::ParseSpecText(
      "sweep: mem\nparameters:\n  A: {values: [0]}\n  B: {values: [0]}\n  C: {values: [0]}\n"
      "metrics:\n  - {name: time_ms, goal: minimize}\n",
      "<bench>");
  if (!spec.ok()) {
    std::fprintf(stderr, "spec: %s\n", spec.status().message().c_str());
    return 2;
  }
  prometheus::Registry registry;
  fs::CoordinatorMetrics metrics(registry, "mem");
  fs::LiveAuditOptions options;
  options.aggregate_every_s = 1e9;  // one round at the start (empty) and one at the end
  options.max_live_attempts = attempts;
  malloc_trim(0);
  const size_t before = HeapInUse();
  {
    fs::LiveAudits audits(*spec, &metrics, options, {}, std::vector<fs::v1::Attempt>{});
    int64_t seq = 0;
    while (seq < attempts) {
      fs::LiveBatch batch;
      batch.now = seq + 1000 >= attempts ? 2e9 : 0;  // the last batch runs a round
      for (int i = 0; i < 1000 && seq < attempts; ++i, ++seq) {
        const int64_t c = seq % configs;
        batch.attempts.push_back(Attempt(seq, c, samples, nodes));
        batch.records.push_back(Record(c));
      }
      audits.Hand(std::move(batch));
      audits.Drain();
    }
    const size_t after = HeapInUse();
    std::printf(
        "live_audits_memory_bench: %lld attempts, %lld configurations, %d sample(s), %d node(s), "
        "aggregating %s, %d round(s)\n",
        static_cast<long long>(attempts), static_cast<long long>(configs), samples, nodes,
        audits.aggregating() ? "yes" : "no", audits.aggregate_rounds());
    std::printf("  heap in use: before %.1f MiB, after %.1f MiB: %.0f bytes per attempt\n",
                before / 1048576.0, after / 1048576.0,
                static_cast<double>(after - before) / static_cast<double>(attempts));
  }
  return 0;
}
