// Error rate and power of the winner test when persistent sessions carry offsets
// (coordinator/aggregate/winner.h, "Sessions"; docs/honest-measurement.md section 5).
//
// Simulated sweeps: every execution's log median = its session's offset (normal, sd `offset`)
// + the configuration's effect (config 0: `effect`, others 0) + noise (sd 0.005). Two kinds of
// design:
//   fixed   hand-made designs of which sessions each configuration ran in (A/A only);
//   random  `configs` x `execs` executions dealt in random order into sessions of `per`
//           executions (what one slot recycling every `per` executions gives).
// Each sweep is decided twice, on the same values: with the sessions (what fleetsweep does) and
// without them (every execution independent evidence: the rule for one-shot sweeps). A/A rows
// count false winners; rows with an effect count sweeps whose winner is config 0.
//
// usage: fleetsweep-winner-sessions-bench [--sweeps N]        the table of docs section 5
//        fleetsweep-winner-sessions-bench --random C E P OFFSET EFFECT [--sweeps N]
// Exit 2 on bad arguments.
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "common/stats/rng.h"
#include "coordinator/aggregate/winner.h"

namespace {

using fleetsweep::ConfigResult;
using fleetsweep::DecideWinner;
using fleetsweep::SweepResult;
using Design = std::vector<std::vector<int32_t>>;  // per configuration: each execution's session

constexpr double kNoise = 0.005;

struct Outcome {
  bool named = false;  // A/A: any winner named; otherwise: config 0 named the winner
  int fit = 0, within = 0, sessions = 0;
};

// Ranks by median (as the aggregate does) and decides; `with_sessions` false hides the sessions.
Outcome Decide(const std::vector<std::vector<double>>& logs, const Design& design,
               bool with_sessions, bool aa) {
  std::vector<std::pair<double, size_t>> order;
  for (size_t c = 0; c < logs.size(); ++c) {
    std::vector<double> s = logs[c];
    std::sort(s.begin(), s.end());
    order.emplace_back(s[s.size() / 2], c);
  }
  std::sort(order.begin(), order.end());
  SweepResult r;
  r.valid = true;
  std::vector<std::vector<double>> ranked_logs;
  Design ranked_sessions;
  for (const auto& [median, c] : order) {
    ConfigResult cr;
    cr.key = std::to_string(c);
    r.configs.push_back(cr);
    ranked_logs.push_back(logs[c]);
    ranked_sessions.push_back(design[c]);
  }
  DecideWinner(ranked_logs, with_sessions ? ranked_sessions : Design{}, logs.size(), true, {}, &r);
  Outcome o;
  o.named = r.winner == 0 && (aa || r.configs[0].key == "0");
  o.fit = r.winner_test.fit_comparisons;
  o.within = r.winner_test.within_session_comparisons;
  o.sessions = r.winner_test.session_comparisons;
  return o;
}

std::vector<std::vector<double>> Values(const Design& design, double offset, double effect,
                                        fleetsweep::stats::Rng* rng) {
  std::vector<double> offsets;
  std::vector<std::vector<double>> logs(design.size());
  for (size_t c = 0; c < design.size(); ++c) {
    for (int32_t s : design[c]) {
      while (offsets.size() <= static_cast<size_t>(s))
        offsets.push_back(offset * rng->StandardNormal());
      logs[c].push_back(offsets[s] + (c == 0 ? effect : 0) + kNoise * rng->StandardNormal());
    }
  }
  return logs;
}

Design RandomDesign(int configs, int execs, int per, fleetsweep::stats::Rng* rng) {
  std::vector<int> order;
  for (int c = 0; c < configs; ++c) order.insert(order.end(), execs, c);
  for (size_t i = order.size() - 1; i > 0; --i)
    std::swap(order[i], order[rng->UniformIndex(i + 1)]);
  Design design(configs);
  for (size_t i = 0; i < order.size(); ++i)
    design[order[i]].push_back(static_cast<int32_t>(i / per));
  return design;
}

struct Row {
  std::string design;
  double offset = 0, effect = 0;
  int sweeps = 0, with = 0, without = 0;
  long fit = 0, within = 0, sessions = 0;
};

void Add(const Design& design, double offset, double effect, uint64_t seed, Row* row) {
  fleetsweep::stats::Rng rng(seed);
  const auto logs = Values(design, offset, effect, &rng);
  const Outcome a = Decide(logs, design, true, effect == 0),
                b = Decide(logs, design, false, effect == 0);
  ++row->sweeps;
  row->with += a.named;
  row->without += b.named;
  row->fit += a.fit;
  row->within += a.within;
  row->sessions += a.sessions;
}

void Print(const Row& r) {
  std::printf(
      "%-34s offset %.3f effect %+.3f  %s: sessions %6.2f%%  executions %6.2f%%   "
      "(%d sweeps; pairs by fit %ld, within shared %ld, session means %ld)\n",
      r.design.c_str(), r.offset, r.effect, r.effect == 0 ? "false winners" : "winner found",
      100.0 * r.with / r.sweeps, 100.0 * r.without / r.sweeps, r.sweeps, r.fit, r.within,
      r.sessions);
  std::fflush(stdout);
}

Row RandomRow(int configs, int execs, int per, double offset, double effect, int sweeps) {
  Row row;
  row.design = "random " + std::to_string(configs) + " cfg x " + std::to_string(execs) +
               " exec, sessions of " + std::to_string(per);
  row.offset = offset;
  row.effect = effect;
  for (int t = 0; t < sweeps; ++t) {
    fleetsweep::stats::Rng rng(77 + t);
    const Design design = RandomDesign(configs, execs, per, &rng);
    Add(design, offset, effect, 1000003ULL * (t + 1), &row);
  }
  return row;
}

// Whole-string numbers: "3x", "" or an out-of-range value is refused (atoi would read 3, 0, ...).
bool ParseInt(const std::string& s, int* out) {
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || errno != 0 || v < INT_MIN || v > INT_MAX) return false;
  *out = static_cast<int>(v);
  return true;
}

bool ParseDouble(const std::string& s, double* out) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || errno != 0 || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

int BadNumber(const char* what, const std::string& got) {
  std::fprintf(stderr, "fleetsweep-winner-sessions-bench: %s: not a number: '%s'\n", what,
               got.c_str());
  return 2;
}

int Usage() {
  std::fprintf(stderr,
               "usage: fleetsweep-winner-sessions-bench [--sweeps N]\n"
               "       fleetsweep-winner-sessions-bench --random CONFIGS EXECS PER OFFSET EFFECT "
               "[--sweeps N]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int sweeps = 5000;
  std::vector<std::string> random;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--sweeps") && i + 1 < argc) {
      if (!ParseInt(argv[++i], &sweeps)) return BadNumber("--sweeps", argv[i]);
    } else if (!std::strcmp(argv[i], "--random") && i + 5 < argc) {
      for (int k = 0; k < 5; ++k) random.push_back(argv[++i]);
    } else {
      return Usage();
    }
  }
  if (sweeps < 1) return Usage();
  if (!random.empty()) {
    static const char* kNames[] = {"CONFIGS", "EXECS", "PER", "OFFSET", "EFFECT"};
    int n[3] = {0, 0, 0};
    double x[2] = {0, 0};
    for (int k = 0; k < 3; ++k) {
      if (!ParseInt(random[k], &n[k])) return BadNumber(kNames[k], random[k]);
    }
    for (int k = 0; k < 2; ++k) {
      if (!ParseDouble(random[3 + k], &x[k])) return BadNumber(kNames[3 + k], random[3 + k]);
    }
    if (n[0] < 2 || n[1] < 1 || n[2] < 1) return Usage();
    Print(RandomRow(n[0], n[1], n[2], x[0], x[1], sweeps));
    return 0;
  }
  const std::vector<std::pair<const char*, Design>> fixed = {
      {"one shared session + own of 3", {{0, 1, 1, 1, 2, 2, 2}, {0, 3, 3, 3, 4, 4, 4}}},
      {"4:1 / 1:4 in two sessions", {{0, 0, 0, 0, 1}, {0, 1, 1, 1, 1}}},
      {"3 configs, uneven", {{0, 0, 0, 1, 2, 2}, {0, 1, 1, 1, 3, 3}, {2, 3, 3, 4, 4, 4}}},
  };
  for (const auto& [name, design] : fixed) {
    for (double offset : {0.0, 0.02, 0.05}) {
      Row row;
      row.design = name;
      row.offset = offset;
      for (int t = 0; t < sweeps; ++t) Add(design, offset, 0, 5000 + t, &row);
      Print(row);
    }
  }
  struct Case {
    int configs, execs, per;
    double offset, effect;
  };
  const std::vector<Case> cases = {
      {2, 6, 4, 0.02, 0},       {5, 6, 4, 0.02, 0},      {10, 6, 4, 0.01, 0},
      {2, 6, 4, 0.02, -0.01},   {5, 6, 4, 0.02, -0.02},  {10, 6, 4, 0.01, -0.02},
      {5, 10, 3, 0.05, -0.03},  {2, 10, 7, 0.02, -0.01}, {10, 10, 20, 0.02, -0.01},
      {10, 6, 12, 0.01, -0.02}, {10, 6, 4, 0, -0.02},    {10, 6, 2, 0, -0.02},
  };
  for (const Case& c : cases)
    Print(RandomRow(c.configs, c.execs, c.per, c.offset, c.effect, sweeps));
  return 0;
}
