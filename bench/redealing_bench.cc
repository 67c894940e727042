// redealing_bench: the effect test (AuditEffects) re-dealing executions versus whole
// configurations, on seeded simulated designs whose truth is known; prints a markdown table
// (docs/honest-measurement.md section 2 keeps one). A bench, not a test.
//
//   fleetsweep-redealing-bench [--sims N] [--seed S] [--threads T] [--set small|large|sessions]
//
// A design: `blocks` blocks x `levels` levels of the tested parameter (a complete grid: one
// configuration per level and block) x `executions` executions each. The log median of an
// execution of the configuration at level l in block b is
//   0.01 b + effect x l / (levels - 1) + offset_sd x Z_config + 0.01 x Z_execution,
// Z standard normal: `offset_sd` > 0 gives each configuration a persistent random offset (its
// executions are correlated; the parameter still does nothing when effect = 0). Each row runs
// `sims` designs and counts "active" (p <= 0.05) for each re-dealing (executions, configurations,
// and the audit's automatic choice, whose pick is counted too). Rows "power" scale the effect as
// k x 0.01 / sqrt(blocks x executions) so that the execution-level test's power stays comparable
// while the blocks vary. --set large: designs above kConfigurationRedealingMinExecutions.
// --set sessions: the offset belongs to persistent benchmark SESSIONS instead: the tested
// parameter is in the session key (its levels never share a session), each level runs in
// `sessions` sessions that serve every block (or, `span` false, each configuration has
// `sessions` of its own: every parameter in the key), the executions spread evenly over them,
// and the automatic choice is given the sessions (its unit: sessions when they hold one level).
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/stats/rng.h"
#include "coordinator/aggregate/audit.h"

namespace fs = fleetsweep;

namespace {

struct Scenario {
  const char* kind;  // "null" or "power"
  int blocks, levels, executions;
  double effect;     // log ratio between the last level and the first
  double offset_sd;  // per-configuration (per-session with sessions) random offset (log scale)
  int sessions = 0;  // per level (span) or per configuration; 0: none (one-shot)
  bool span = true;  // a session serves every block of its level
};

struct Counts {
  std::atomic<int> exec{0}, config{0}, autom{0}, auto_config{0}, auto_sessions{0};
};

double Gauss(fs::stats::Rng* rng) {
  double u;
  do u = rng->Uniform01();
  while (u == 0.0);
  return std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * rng->Uniform01());
}

// One simulated design: configurations (params P and Q, Q naming the block) and their
// executions' log medians.
void Simulate(const Scenario& s, uint64_t seed, std::vector<fs::ConfigResult>* configs,
              std::vector<std::vector<double>>* logs, std::vector<std::vector<int32_t>>* sessions) {
  fs::stats::Rng rng(seed);
  std::vector<double> session_offset;
  if (s.sessions > 0) {
    const int count = s.sessions * s.levels * (s.span ? 1 : s.blocks);
    for (int i = 0; i < count; ++i) session_offset.push_back(s.offset_sd * Gauss(&rng));
  }
  for (int b = 0; b < s.blocks; ++b) {
    for (int l = 0; l < s.levels; ++l) {
      fs::ConfigResult c;
      c.params = {{"P", std::to_string(l)}, {"Q", std::to_string(b)}};
      c.key = "P=" + std::to_string(l) + ",Q=" + std::to_string(b);
      c.status = fs::ConfigOutcome::kDone;
      const double centre = 0.01 * b + s.effect * l / (s.levels - 1) +
                            (s.sessions > 0 ? 0 : s.offset_sd * Gauss(&rng));
      std::vector<double> x;
      std::vector<int32_t> ids;
      for (int e = 0; e < s.executions; ++e) {
        if (s.sessions == 0) {
          x.push_back(centre + 0.01 * Gauss(&rng));
          continue;
        }
        const int first = (s.span ? l : b * s.levels + l) * s.sessions;
        ids.push_back(first + e % s.sessions);
        x.push_back(centre + session_offset[static_cast<size_t>(ids.back())] + 0.01 * Gauss(&rng));
      }
      c.primary.n = s.executions;
      c.primary.median = std::exp(centre);
      c.ok_attempts = s.executions;
      configs->push_back(std::move(c));
      logs->push_back(std::move(x));
      sessions->push_back(std::move(ids));
    }
  }
}

bool Active(const std::vector<fs::ConfigResult>& configs,
            const std::vector<std::vector<double>>& logs,
            const std::vector<std::vector<int32_t>>& sessions, fs::Redealing redealing,
            uint64_t seed, std::string* redealt) {
  fs::EffectOptions o;
  o.redealing = redealing;
  o.seed = seed;
  const auto v = fs::AuditEffects(configs, logs, sessions, {"P"}, o);
  if (redealt != nullptr) *redealt = v[0].redealing;
  return v[0].verdict == fs::Effect::kActive;
}

void RunRow(const Scenario& s, int sims, uint64_t seed, int threads, Counts* c) {
  std::atomic<int> next{0};
  auto work = [&] {
    for (int i = next++; i < sims; i = next++) {
      std::vector<fs::ConfigResult> configs;
      std::vector<std::vector<double>> logs;
      std::vector<std::vector<int32_t>> sessions;
      const uint64_t sim_seed = seed * 1000003 + static_cast<uint64_t>(i);
      Simulate(s, sim_seed, &configs, &logs, &sessions);
      c->exec += Active(configs, logs, sessions, fs::Redealing::kExecutions, sim_seed, nullptr);
      c->config +=
          Active(configs, logs, sessions, fs::Redealing::kConfigurations, sim_seed, nullptr);
      std::string redealt;
      c->autom += Active(configs, logs, sessions, fs::Redealing::kAuto, sim_seed, &redealt);
      c->auto_config += redealt == "configurations";
      c->auto_sessions += redealt == "sessions";
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

int Flag(int argc, char** argv, const char* name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return std::atoi(argv[i + 1]);
  }
  return fallback;
}

std::string Share(int k, int n) {
  char b[48];
  std::snprintf(b, sizeof b, "%d/%d (%.1f%%)", k, n, 100.0 * k / n);
  return b;
}

// --set small: designs below kConfigurationRedealingMinExecutions (the automatic choice keeps
// executions there; the rows compare the two re-dealings); --set large: above it.
std::vector<Scenario> Scenarios(const std::string& set) {
  // Power rows: effect = k x 0.01 / sqrt(blocks x executions), k set for an execution-level
  // power of about 75% whatever the blocks (2 levels: z ~ k / sqrt(2); 10 and 100 levels: the
  // non-centrality of a linear effect, ~12 and ~35).
  const double k2 = 3.96, k10 = 3.5, k100 = 2.05;
  auto power = [](int blocks, int levels, int executions, double k) {
    return Scenario{"power", blocks, levels, executions, k * 0.01 / std::sqrt(blocks * executions),
                    0};
  };
  std::vector<Scenario> s;
  if (set == "sessions") {
    // blocks x levels x executions, effect, offset sd, sessions, span
    return {{"null", 4, 2, 6, 0, 0, 6, true},          {"null", 4, 2, 6, 0, 0.005, 6, true},
            {"null", 4, 2, 6, 0, 0.01, 6, true},       {"null", 10, 2, 6, 0, 0.01, 3, true},
            {"null", 4, 10, 6, 0, 0.01, 3, true},      {"null", 6, 3, 3, 0, 0.01, 1, false},
            {"null", 20, 2, 4, 0, 0.01, 2, false},     {"power", 4, 2, 6, 0.02, 0.01, 6, true},
            {"power", 10, 2, 12, 0.02, 0.01, 6, true}, {"power", 20, 2, 4, 0.01, 0.01, 2, false},
            {"power", 6, 3, 3, 0.02, 0.01, 1, false}};
  }
  if (set == "small") {
    s.insert(s.end(), {{"null", 20, 2, 30, 0, 0},
                       {"null", 20, 2, 30, 0, 0.005},
                       {"null", 20, 2, 30, 0, 0.01},
                       {"null", 40, 10, 10, 0, 0},
                       {"null", 40, 10, 10, 0, 0.01},
                       {"null", 3, 100, 10, 0, 0.01}});
    for (int blocks : {10, 20, 50, 100}) s.push_back(power(blocks, 2, 10, k2));
    for (int blocks : {5, 12, 20, 50}) s.push_back(power(blocks, 10, 10, k10));
    for (int blocks : {3, 5, 10}) s.push_back(power(blocks, 100, 10, k100));
  } else {
    s.insert(s.end(), {{"null", 400, 2, 30, 0, 0},
                       {"null", 400, 2, 30, 0, 0.01},
                       power(400, 2, 30, k2),
                       {"null", 100, 10, 30, 0, 0},
                       {"null", 100, 10, 30, 0, 0.01},
                       power(100, 10, 30, k10),
                       {"null", 50, 100, 5, 0, 0.01},
                       power(50, 100, 5, k100),
                       power(10, 100, 30, k100)});
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const int sims = Flag(argc, argv, "--sims", 500);
  const uint64_t seed = static_cast<uint64_t>(Flag(argc, argv, "--seed", 1));
  const int threads = std::max(1, Flag(argc, argv, "--threads", 1));
  std::string set = "small";
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--set") == 0) set = argv[i + 1];
  }
  std::printf("redealing_bench: %s designs, %d per row, seed %llu\n\n", set.c_str(), sims,
              static_cast<unsigned long long>(seed));
  const bool with_sessions = set == "sessions";
  if (with_sessions) {
    std::printf(
        "| truth | blocks x levels x executions | effect | session offset sd | sessions | active, "
        "executions re-dealt | active, configurations re-dealt | active, auto | auto re-dealt "
        "sessions |\n|---|---|---|---|---|---|---|---|---|\n");
  } else {
    std::printf(
        "| truth | blocks x levels x executions | effect | config offset sd | active, executions "
        "re-dealt | active, configurations re-dealt | active, auto | auto re-dealt "
        "configurations |\n|---|---|---|---|---|---|---|---|\n");
  }
  for (const Scenario& s : Scenarios(set)) {
    Counts c;
    RunRow(s, sims, seed, threads, &c);
    if (with_sessions) {
      std::printf("| %s | %d x %d x %d | %.4f | %.3f | %d %s | %s | %s | %s | %d/%d |\n", s.kind,
                  s.blocks, s.levels, s.executions, s.effect, s.offset_sd, s.sessions,
                  s.span ? "a level, spanning the blocks" : "a configuration",
                  Share(c.exec, sims).c_str(), Share(c.config, sims).c_str(),
                  Share(c.autom, sims).c_str(), c.auto_sessions.load(), sims);
      std::fflush(stdout);
      continue;
    }
    std::printf("| %s | %d x %d x %d | %.4f | %.3f | %s | %s | %s | %d/%d |\n", s.kind, s.blocks,
                s.levels, s.executions, s.effect, s.offset_sd, Share(c.exec, sims).c_str(),
                Share(c.config, sims).c_str(), Share(c.autom, sims).c_str(), c.auto_config.load(),
                sims);
    std::fflush(stdout);
  }
  return 0;
}
