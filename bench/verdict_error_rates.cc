// verdict_error_rates: how often fleetsweep's verdicts are wrong, measured on planted benchmarks
// whose truth is known. A bench (not a test): it runs many seeded simulated sweeps through the
// REAL scheduler (assignment, adaptive repetitions, the reference) and the REAL aggregator
// (hierarchical bootstrap, winner rule, effect audit, node effects), with synthetic attempts in
// place of processes, and prints a markdown table (docs/honest-measurement.md keeps one).
//
//   fleetsweep-verdict-bench [--sweeps N] [--seed S] [--threads T] [--check]
//
// --check: also test every rate that docs/honest-measurement.md states (bench/verdict_claims.h:
// exact one-sided binomial tests at alpha 1e-3), print one row per claim and exit 1 when any
// fails. ctest runs it (tests/CMakeLists.txt, verdict_error_rates) with 300 sweeps.
//
// Noise model of an execution of configuration c on node k:
//   sample = base(c) * node(k) * exp(0.01 Z_exec) * slow * exp(0.02 Z_sample), 5 samples,
// Z standard normal, slow = 1.5 with probability 5% when noise is injected ("noisy": a shared
// machine), else 1. Two single-slot workers (nodes n0, n1); n1 is 1.2x slow in the node scenario.
// "best of 16": one configuration 3% faster than 15 equal others (the winner rule's power when
// many configurations compete). "A/A, 3 names, sessions of 8": each slot's benchmark process lives
// for 8 executions (`session.id` / `session.position` in the attempt's info) and multiplies its
// executions by an offset of its own, exp(0.03 Z_session): the session-aware tests must not read
// the offsets as differences (the same sweep is also aggregated with the sessions hidden, as a
// one-shot sweep's would be, to show what counting executions would claim).
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench/mem_store.h"
#include "bench/verdict_claims.h"
#include "common/space/spec.h"
#include "common/stats/rng.h"
#include "common/store/store.h"
#include "coordinator/aggregate/aggregator.h"
#include "coordinator/scheduler/scheduler.h"
#include "spdlog/spdlog.h"

namespace fleetsweep {
namespace {

enum class Kind { kAA2, kAA8, kAASessions, kIgnored, kPower3, kBestOf16, kSlowNode };

struct Scenario {
  Kind kind;
  const char* name;
  std::string params;  // spec parameters section
  std::string extra;   // e.g. reference
  bool fingerprints = false;
  int session_length = 0;  // > 0: persistent sessions of this many executions, with offsets
};

std::vector<Scenario> Scenarios() {
  return {
      {Kind::kAA2, "A/A, 2 names", "  alias: {values: [a, b]}\n", ""},
      {Kind::kAA8, "A/A, 8 names", "  alias: {values: [a, b, c, d, e, f, g, h]}\n", ""},
      {Kind::kAASessions, "A/A, 3 names, sessions of 8", "  alias: {values: [a, b, c]}\n", "",
       false, 8},
      {Kind::kIgnored, "ignored parameter", "  N: {values: [1, 2]}\n  ignored: {values: [x, y]}\n",
       "", true},
      {Kind::kPower3, "real 3% difference", "  X: {values: [1, 2]}\n", ""},
      {Kind::kPower3, "real 3% difference, sessions of 8", "  X: {values: [1, 2, 3]}\n", "", false,
       8},
      {Kind::kBestOf16, "best of 16 by 3%",
       "  X: {values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]}\n", ""},
      {Kind::kSlowNode, "1.2x slow node", "  M: {values: [1, 2, 3, 4]}\n", "reference: {M: 1}\n"},
  };
}

double Base(Kind k, const google::protobuf::Map<std::string, std::string>& p) {
  switch (k) {
    case Kind::kIgnored:
      return 10.0 * (p.at("N") == "2" ? 1.3 : 1.0);
    case Kind::kPower3:  // X = 1 is 3% faster than every other level
    case Kind::kBestOf16:
      return 10.0 * (p.at("X") == "1" ? 1.0 : 1.03);
    case Kind::kSlowNode:
      return 10.0 * std::pow(1.1, std::stoi(p.at("M")) - 1);
    default:
      return 10.0;
  }
}

struct Outcome {
  bool winner = false, wrong_winner = false, right_winner = false;
  bool winner_hidden = false;  // sessions hidden: a winner (A/A), the right winner (power)
  int fit_pairs = 0;           // sessions: pairs the winner test compared through the fit
  bool active = false;         // the tested parameter (alias / ignored / X) called active
  bool contradiction = false;  // ignored: not_injected yet active flagged
  double node_ratio = NAN;     // effect(n1) / effect(n0)
  bool ci_covers = false, applied = false, wrong_direction = false, ranking_ok = true;
  int executions = 0;
};

Outcome RunSweep(const Scenario& sc, bool noisy, uint64_t seed) {
  const std::string text =
      "sweep: bench\nexecutor: {type: exec, command: [\"/bin/true\"]}\n"
      "parameters:\n" +
      sc.params + "metrics: [{name: time_ms, goal: minimize}]\n" + sc.extra;
  auto spec = ParseSpecText(text, "bench.yaml");
  if (!spec.ok()) {
    std::fprintf(stderr, "%s\n", spec.status().ToString().c_str());
    std::exit(2);
  }
  MemStore store;
  SchedulerOptions so;
  so.seed = seed;
  so.epoch = "b" + std::to_string(seed);
  Scheduler sched(*spec, so, &store);
  if (!sched.Init().ok()) std::exit(2);
  const char* nodes[] = {"n0", "n1"};
  for (const char* n : nodes) {
    v1::Hello h;
    h.mutable_node()->set_node(n);
    h.mutable_node()->set_slots(1);
    sched.OnHello(n, h, 0);
  }
  stats::Rng rng(seed * 0x9E3779B97F4A7C15ULL + 17);
  int64_t clock = 0;
  Outcome out;
  // Sessions (kAASessions): per node, the running session's id, position and offset.
  struct Session {
    int id = 0, position = 0;
    double offset = 1;
  };
  std::map<std::string, Session> sessions;
  for (int round = 0; round < 10000 && !sched.Finished(); ++round) {
    for (const char* n : nodes) {
      for (auto& l : sched.OnWorkRequest(n, 1, 0)) {
        v1::Result r;
        r.set_lease_id(l.lease_id());
        r.set_sweep(l.sweep());
        v1::Attempt* a = r.mutable_attempt();
        a->set_config_key(l.config_key());
        a->set_attempt_id(l.lease_id());
        a->set_node(n);
        a->set_ok(true);
        a->set_reference(l.reference());
        a->set_started_unix_ms(++clock);
        if (sc.fingerprints) a->set_fingerprint("N=" + l.params().at("N"));
        const double node = sc.kind == Kind::kSlowNode && n[1] == '1' ? 1.2 : 1.0;
        const double slow = noisy && rng.Uniform01() < 0.05 ? 1.5 : 1.0;
        double exec =
            Base(sc.kind, l.params()) * node * std::exp(0.01 * rng.StandardNormal()) * slow;
        if (sc.session_length > 0) {
          Session& ss = sessions[n];
          if (ss.position == 0 || ss.position == sc.session_length) {
            ss = {ss.id + 1, 0, std::exp(0.03 * rng.StandardNormal())};
          }
          ++ss.position;
          (*a->mutable_info())["session.id"] = std::to_string(ss.id);
          (*a->mutable_info())["session.position"] = std::to_string(ss.position);
          exec *= ss.offset;
        }
        for (int i = 0; i < 5; ++i) {
          auto* s = a->add_samples();
          s->set_metric("time_ms");
          s->set_value(exec * std::exp(0.02 * rng.StandardNormal()));
        }
        if (!l.reference()) ++out.executions;
        (void)sched.OnResult(n, r, 0);
      }
    }
  }
  auto records = store.LoadConfigs("bench");
  auto attempts = store.LoadAttempts("bench");
  AggregateOptions ao;
  ao.seed = seed;
  SweepResult res = Aggregate(*spec, *records, *attempts, ao);
  out.winner = res.winner >= 0;
  if (sc.session_length > 0) {
    out.fit_pairs = res.winner_test.fit_comparisons;
    std::vector<v1::Attempt> hidden = *attempts;
    for (auto& a : hidden) a.mutable_info()->clear();
    const SweepResult h = Aggregate(*spec, *records, hidden, ao);
    out.winner_hidden =
        h.winner >= 0 && (sc.kind != Kind::kPower3 || h.configs[h.winner].params.at("X") == "1");
  }
  const std::string tested = sc.kind == Kind::kIgnored                                ? "ignored"
                             : sc.kind == Kind::kPower3 || sc.kind == Kind::kBestOf16 ? "X"
                             : sc.kind == Kind::kSlowNode                             ? "M"
                                                                                      : "alias";
  for (const auto& v : res.inert) {
    if (v.param == tested) out.active = v.verdict == Effect::kActive;
  }
  for (const auto& c : res.contradictions) out.contradiction |= c.param == tested;
  if (out.winner) {
    const auto& p = res.configs[res.winner].params;
    // A/A and ignored: two or more configurations share the best truth, so any winner is false.
    out.right_winner = sc.kind == Kind::kPower3 || sc.kind == Kind::kBestOf16 ? p.at("X") == "1"
                       : sc.kind == Kind::kSlowNode                           ? p.at("M") == "1"
                                                                              : false;
    out.wrong_winner = !out.right_winner;
  }
  if (sc.kind == Kind::kSlowNode && res.node_effects.size() == 2) {
    const NodeEffect& f = res.node_effects[0];
    const NodeEffect& s = res.node_effects[1];
    out.node_ratio = s.effect / f.effect;
    out.ci_covers = s.ci_low <= std::sqrt(1.2) && std::sqrt(1.2) <= s.ci_high;
    out.applied = res.node_effects_applied;
    out.wrong_direction = out.applied && s.effect < f.effect;
    for (size_t i = 0; i + 1 < res.configs.size(); ++i) {
      if (std::stoi(res.configs[i].params.at("M")) != static_cast<int>(i) + 1)
        out.ranking_ok = false;
    }
  }
  return out;
}

struct Tally {
  int sweeps = 0, winner = 0, wrong_winner = 0, right_winner = 0, active = 0, contradiction = 0;
  int found = 0, estimates = 0, within5 = 0, covers = 0, applied = 0, wrong_direction = 0;
  int ranking_ok = 0, winner_hidden = 0;
  long fit_pairs = 0;
  double ratio_sum = 0, ratio_min = INFINITY, ratio_max = -INFINITY;
  long executions = 0;
  void Add(const Outcome& o) {
    ++sweeps;
    winner += o.winner;
    wrong_winner += o.wrong_winner;
    right_winner += o.right_winner;
    active += o.active;
    contradiction += o.contradiction;
    found += o.right_winner || o.active;
    executions += o.executions;
    ranking_ok += o.ranking_ok;
    winner_hidden += o.winner_hidden;
    fit_pairs += o.fit_pairs;
    if (std::isfinite(o.node_ratio)) {
      ++estimates;
      within5 += std::fabs(o.node_ratio / 1.2 - 1) <= 0.05;
      covers += o.ci_covers;
      applied += o.applied;
      wrong_direction += o.wrong_direction;
      ratio_sum += o.node_ratio;
      ratio_min = std::min(ratio_min, o.node_ratio);
      ratio_max = std::max(ratio_max, o.node_ratio);
    }
  }
};

std::string Pct(int k, int n) {
  char b[64];
  std::snprintf(b, sizeof b, "%d/%d (%.1f%%)", k, n, n ? 100.0 * k / n : 0.0);
  return b;
}

// The stated rates (docs/honest-measurement.md, "Error rates"): a false winner in at most 1% of
// sweeps, a false "active" at the test's 5% level, every false "active" on a not-injected
// parameter flagged, a real 3% difference found in >= 90% of sweeps (with and without 1.5x
// executions), the node effect within 5% of the truth in >= 95% and its 95% CI covering the
// truth in >= 90% of sweeps.
void AddClaims(const Scenario& sc, bool noisy, const Tally& t, ClaimCheck* check) {
  const std::string head = std::string(sc.name) + (noisy ? ", noisy: " : ": ");
  const int n = t.sweeps;
  switch (sc.kind) {
    case Kind::kAA2:
    case Kind::kAA8:
    case Kind::kAASessions:
      check->AtMost(head + "false winner", t.winner, n, 0.01);
      check->AtMost(head + "alias called active", t.active, n, 0.05);
      break;
    case Kind::kIgnored:
      check->AtMost(head + "ignored called active", t.active, n, 0.05);
      check->Equal(head + "every false active flagged as a contradiction", t.contradiction,
                   t.active);
      check->AtMost(head + "false winner", t.winner, n, 0.01);
      break;
    case Kind::kPower3:
      // With sessions the power is measured, not claimed (their offsets are as large as the
      // difference): docs/honest-measurement.md section 5.
      if (sc.session_length == 0) check->AtLeast(head + "found", t.found, n, 0.90);
      check->AtMost(head + "wrong winner", t.wrong_winner, n, 0.01);
      break;
    case Kind::kBestOf16:
      check->AtMost(head + "wrong winner", t.wrong_winner, n, 0.01);
      break;
    case Kind::kSlowNode:
      check->AtLeast(head + "estimate within 5%", t.within5, t.estimates, 0.95);
      check->AtLeast(head + "95% CI covers the truth", t.covers, t.estimates, 0.90);
      check->AtMost(head + "applied in the wrong direction", t.wrong_direction, t.estimates, 0.01);
      check->AtMost(head + "false winner", t.wrong_winner, n, 0.01);
      break;
  }
}

}  // namespace
}  // namespace fleetsweep

int main(int argc, char** argv) {
  using namespace fleetsweep;
  spdlog::set_level(spdlog::level::off);  // the scheduler logs every sweep's start
  int sweeps = 1000, threads = 1;
  uint64_t seed = 1;
  bool check_claims = false;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--check")) {
      check_claims = true;
    } else if (has_value && !std::strcmp(argv[i], "--sweeps")) {
      sweeps = std::atoi(argv[++i]);
    } else if (has_value && !std::strcmp(argv[i], "--seed")) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (has_value && !std::strcmp(argv[i], "--threads")) {
      threads = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "fleetsweep-verdict-bench: unknown or incomplete argument '%s'\n"
                   "usage: fleetsweep-verdict-bench [--sweeps N] [--seed S] [--threads T] "
                   "[--check]\n",
                   argv[i]);
      return 2;
    }
  }
  if (sweeps < 1 || threads < 1) {
    std::fprintf(stderr, "fleetsweep-verdict-bench: --sweeps and --threads must be >= 1\n");
    return 2;
  }
  ClaimCheck claims;
  std::printf("| scenario | noise | sweeps | executions/sweep | verdict measured | result |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const Scenario& sc : Scenarios()) {
    for (bool noisy : {false, true}) {
      Tally total;
      std::mutex mu;
      std::atomic<int> next{0};
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&] {
          for (int i = next++; i < sweeps; i = next++) {
            Outcome o = RunSweep(sc, noisy, seed * 1000003 + static_cast<uint64_t>(i));
            std::lock_guard<std::mutex> lock(mu);
            total.Add(o);
          }
        });
      }
      for (auto& th : pool) th.join();
      const int n = total.sweeps;
      char head[160];
      std::snprintf(head, sizeof head, "| %s | %s | %d | %.1f |", sc.name,
                    noisy ? "5% of executions 1.5x" : "none", n,
                    static_cast<double>(total.executions) / n);
      switch (sc.kind) {
        case Kind::kAA2:
        case Kind::kAA8:
          std::printf("%s false winner | %s |\n", head, Pct(total.winner, n).c_str());
          std::printf("%s alias called active | %s |\n", head, Pct(total.active, n).c_str());
          break;
        case Kind::kAASessions:
          std::printf("%s false winner | %s |\n", head, Pct(total.winner, n).c_str());
          std::printf("%s false winner, sessions hidden (executions as units) | %s |\n", head,
                      Pct(total.winner_hidden, n).c_str());
          std::printf("%s alias called active | %s |\n", head, Pct(total.active, n).c_str());
          std::printf("%s winner-test pairs by the session fit | %.2f per sweep |\n", head,
                      static_cast<double>(total.fit_pairs) / n);
          break;
        case Kind::kIgnored:
          std::printf("%s ignored called active | %s |\n", head, Pct(total.active, n).c_str());
          std::printf("%s contradiction flagged | %s |\n", head,
                      Pct(total.contradiction, n).c_str());
          std::printf("%s false winner (N=1 x or y) | %s |\n", head, Pct(total.winner, n).c_str());
          break;
        case Kind::kBestOf16:
          std::printf("%s winner X=1 | %s |\n", head, Pct(total.right_winner, n).c_str());
          std::printf("%s wrong winner (X != 1) | %s |\n", head,
                      Pct(total.wrong_winner, n).c_str());
          break;
        case Kind::kPower3:
          std::printf("%s found (winner X=1 or X active) | %s |\n", head,
                      Pct(total.found, n).c_str());
          std::printf("%s winner X=1 | %s |\n", head, Pct(total.right_winner, n).c_str());
          if (sc.session_length > 0) {
            std::printf("%s winner X=1, sessions hidden (executions as units) | %s |\n", head,
                        Pct(total.winner_hidden, n).c_str());
          }
          std::printf("%s wrong winner (X != 1) | %s |\n", head,
                      Pct(total.wrong_winner, n).c_str());
          break;
        case Kind::kSlowNode: {
          char b[200];
          std::snprintf(b, sizeof b, "mean %.4f, range [%.4f, %.4f]",
                        total.estimates ? total.ratio_sum / total.estimates : NAN, total.ratio_min,
                        total.ratio_max);
          std::printf("%s estimate of 1.2 | %s |\n", head, b);
          std::printf("%s estimate within 5%% of 1.2 | %s |\n", head,
                      Pct(total.within5, total.estimates).c_str());
          std::printf("%s 95%% CI covers the truth | %s |\n", head,
                      Pct(total.covers, total.estimates).c_str());
          std::printf("%s correction applied | %s |\n", head,
                      Pct(total.applied, total.estimates).c_str());
          std::printf("%s applied in the wrong direction | %s |\n", head,
                      Pct(total.wrong_direction, total.estimates).c_str());
          std::printf("%s ranking = truth | %s |\n", head, Pct(total.ranking_ok, n).c_str());
          std::printf("%s false winner (M=1 is right) | %s |\n", head,
                      Pct(total.wrong_winner, n).c_str());
          break;
        }
      }
      AddClaims(sc, noisy, total, &claims);
      std::fflush(stdout);
    }
  }
  if (!check_claims) return 0;
  std::printf("\n| claim | observed | p under the bound | result |\n|---|---|---|---|\n");
  for (const auto& row : claims.Rows()) std::printf("%s\n", row.c_str());
  std::printf("\n%d of %zu claims failed\n", claims.Failures(), claims.Rows().size());
  return claims.Failures() == 0 ? 0 : 1;
}
