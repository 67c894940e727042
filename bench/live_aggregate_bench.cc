// live_aggregate_bench: cost of the coordinator's aggregation of a whole sweep (coordinator/
// aggregator.h) and of one live tick (coordinator/app/live_audits.h), full versus incremental.
//
// `configs` configurations (a grid of two parameters) x `executions` executions of `samples`
// samples each (synthetic log-normal timings, one node, one fingerprint per configuration).
// Phases, each timed in wall and process CPU seconds:
//   full, final      Aggregate with the final results' 2000 resamples (what Finish runs), and
//                    the same in its two parts: adding the attempts (Finish does it while it
//                    reads the store back) and TakeResult (what Finish logs as "aggregate");
//   full, live       Aggregate with the live audits' 500 resamples (what every live round cost
//                    before the aggregate was incremental);
//   incremental      one IncrementalAggregate::Result after one new execution for each of
//                    `dirty` random configurations (median of `ticks` ticks), and inside it the
//                    sweep-wide steps that stay O(attempts) (node effects, warm-state audit).
// Checks that the last incremental result equals a full Aggregate (results.json). Not part of
// the test suite.
//
//   live_aggregate_bench [--configs N] [--executions N] [--samples N] [--dirty N] [--ticks N]
//                        [--full 0 (skip the two full phases)] [--threads N (the final one)]
//                        [--session-length L] [--nodes N]
//
// --session-length L > 0: the executions ran in persistent sessions, each serving L executions
// in turn (attempts carry `session.id` and `session.position`, so the warm-state audit and the
// session-aware tests run as for a persistent sweep); 0 (default): one-shot. --nodes N (default
// 1): the executions are dealt to N nodes in turn (node effects are estimated across them).
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/stats/rng.h"
#include "common/stats/stats.h"
#include "coordinator/aggregate/aggregator.h"
#include "coordinator/aggregate/incremental_aggregate.h"
#include "coordinator/aggregate/node_effects.h"
#include "coordinator/aggregate/results_writer.h"
#include "coordinator/aggregate/warm_state.h"

namespace fs = fleetsweep;

namespace {

struct Cost {
  double wall = 0, cpu = 0;
};

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

template <typename F>
Cost Time(F&& f) {
  const auto w0 = std::chrono::steady_clock::now();
  const double c0 = CpuSeconds();
  f();
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count(),
          CpuSeconds() - c0};
}

int IntFlag(int argc, char** argv, const char* name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return std::atoi(argv[i + 1]);
  }
  return fallback;
}

void Row(const char* what, Cost c) { std::printf("  %-44s %7.3f %7.3f\n", what, c.wall, c.cpu); }

struct Bench {
  fs::SweepSpec spec;
  std::vector<fs::v1::ConfigRecord> records;
  std::vector<double> centers;
  fs::stats::Rng rng{12345};
  int samples = 3;
  int session_length = 0;  // 0: one-shot (no session info)
  int nodes = 1;
  int64_t seq = 0;

  fs::v1::Attempt Execution(int c) {
    fs::v1::Attempt a;
    a.set_config_key(records[c].config_key());
    a.set_attempt_id("a" + std::to_string(++seq));  // seq: 1, 2, ...
    a.set_node("n" + std::to_string(seq % nodes));
    a.set_ok(true);
    a.set_fingerprint("fp" + std::to_string(c));
    a.set_started_unix_ms(seq);
    if (session_length > 0) {
      // Sessions serve executions in the order they are drawn; a random order of configurations
      // (not the grid's) so that a configuration meets several positions.
      // (a node's sessions are its own: the k-th execution on a node is (seq - 1) / nodes).
      const int64_t k = (seq - 1) / nodes;
      (*a.mutable_info())["session.id"] = "s" + std::to_string(k / session_length);
      (*a.mutable_info())["session.position"] = std::to_string(k % session_length + 1);
    }
    const double exec = centers[c] * std::exp(0.02 * (rng.Uniform01() - 0.5));
    for (int i = 0; i < samples; ++i) {
      double u;
      do u = rng.Uniform01();
      while (u == 0.0);
      auto* s = a.add_samples();
      s->set_metric("time_ms");
      s->set_value(exec * std::exp(0.05 * fs::stats::NormalQuantile(u)));
    }
    return a;
  }
};

}  // namespace

int main(int argc, char** argv) {
  const int configs = IntFlag(argc, argv, "--configs", 10000);
  const int executions = IntFlag(argc, argv, "--executions", 30);
  const int dirty = IntFlag(argc, argv, "--dirty", 100);
  const int ticks = std::max(1, IntFlag(argc, argv, "--ticks", 5));
  Bench b;
  b.samples = IntFlag(argc, argv, "--samples", 3);
  b.session_length = std::max(0, IntFlag(argc, argv, "--session-length", 0));
  b.nodes = std::max(1, IntFlag(argc, argv, "--nodes", 1));
  const int side = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(configs))));
  std::string text = "sweep: bench\nparameters:\n";
  for (const char* p : {"A", "B"}) {
    text += std::string("  ") + p + ": {values: [";
    for (int i = 0; i < side; ++i) text += (i ? ", " : "") + std::to_string(i);
    text += "]}\n";
  }
  text += "metrics:\n  - {name: time_ms, goal: minimize}\n";
  auto spec = fs::ParseSpecText(text, "<bench>");
  if (!spec.ok()) {
    std::fprintf(stderr, "spec: %s\n", spec.status().message().c_str());
    return 2;
  }
  b.spec = *spec;
  for (int c = 0; c < configs; ++c) {
    fs::v1::ConfigRecord r;
    const std::string a = std::to_string(c / side), bb = std::to_string(c % side);
    r.set_config_key("A=" + a + ",B=" + bb);
    (*r.mutable_params())["A"] = a;
    (*r.mutable_params())["B"] = bb;
    r.set_state(fs::v1::CONFIG_STATE_DONE);
    b.records.push_back(r);
    b.centers.push_back(1.0 + static_cast<double>(c) / configs);
  }
  std::vector<fs::v1::Attempt> attempts;
  attempts.reserve(static_cast<size_t>(configs) * executions);
  std::vector<int> order;  // each configuration `executions` times, in a seeded random order
  for (int e = 0; e < executions; ++e) {
    for (int c = 0; c < configs; ++c) order.push_back(c);
  }
  for (size_t i = order.size(); i > 1; --i) {
    std::swap(order[i - 1], order[static_cast<size_t>(b.rng.Uniform01() * i) % i]);
  }
  for (int c : order) attempts.push_back(b.Execution(c));

  fs::AggregateOptions final_options;
  final_options.threads = std::max(1, IntFlag(argc, argv, "--threads", 1));
  std::printf(
      "live_aggregate_bench: %d configs x %d executions x %d samples, %d dirty per tick, "
      "final on %d thread(s), %d node(s), %s\n",
      configs, executions, b.samples, dirty, final_options.threads, b.nodes,
      b.session_length > 0
          ? ("sessions of " + std::to_string(b.session_length) + " executions").c_str()
          : "one-shot");
  std::printf("  %-44s %7s %7s\n", "phase", "wall_s", "cpu_s");
  fs::SweepResult r;
  fs::AggregateOptions live = final_options;
  live.resamples = 500;
  live.threads = 1;  // the live audit thread
  if (IntFlag(argc, argv, "--full", 1) != 0) {
    Row("full Aggregate, 2000 resamples (final)",
        Time([&] { r = fs::Aggregate(b.spec, b.records, attempts, final_options); }));
    {
      fs::IncrementalAggregate split(b.spec, b.records, final_options);
      Row("  of which adding the attempts", Time([&] {
            for (const auto& a : attempts) split.Add(a);
          }));
      Row("  of which TakeResult (Finish's \"aggregate\")", Time([&] { r = split.TakeResult(); }));
    }
    Row("full Aggregate, 500 resamples (live, before)",
        Time([&] { r = fs::Aggregate(b.spec, b.records, attempts, live); }));
  }

  fs::IncrementalAggregate inc(b.spec, b.records, live);
  for (const auto& a : attempts) inc.Add(a);
  Row("incremental: first Result (everything dirty)", Time([&] { r = inc.Result(); }));
  std::vector<Cost> costs;
  for (int t = 0; t < ticks; ++t) {
    for (int i = 0; i < dirty; ++i) {
      attempts.push_back(b.Execution(static_cast<int>(b.rng.Uniform01() * configs) % configs));
      inc.Add(attempts.back());
    }
    costs.push_back(Time([&] { r = inc.Result(); }));
  }
  std::sort(costs.begin(), costs.end(), [](Cost x, Cost y) { return x.cpu < y.cpu; });
  char label[96];
  std::snprintf(label, sizeof label, "incremental: one tick, %d dirty (median of %d)", dirty,
                ticks);
  Row(label, costs[costs.size() / 2]);
  Row("  of which node effects (all attempts)",
      Time([&] { (void)fs::EstimateNodeEffects(attempts, "time_ms", 1); }));
  Row("  of which warm-state audit (all attempts)",
      Time([&] { (void)fs::AuditWarmState(attempts, "time_ms", fs::WarmStateOptions{}); }));
  const fs::SweepResult full = fs::Aggregate(b.spec, b.records, attempts, live);
  const bool equal = fs::ResultsToJson(full).dump() == fs::ResultsToJson(r).dump();
  std::printf("  incremental result == full Aggregate: %s\n", equal ? "yes" : "NO");
  return equal ? 0 : 1;
}
