// The winner test's session units (winner.h, "Sessions"): two configurations that never shared a
// persistent session are compared by their sessions, not their executions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/stats/rng.h"
#include "coordinator/aggregate/winner.h"

namespace fleetsweep {
namespace {

// `configs` identical configurations (an A/A sweep, plus `effect` on the first), each with
// `sessions` sessions of its own holding `per_session` executions: log median of an execution =
// effect (first configuration only) + offset_sd x Z_session + 0.005 x Z_execution. Ranked best
// first (minimize) as the aggregate ranks them.
struct Ranked {
  SweepResult result;
  std::vector<std::vector<double>> logs;
  std::vector<std::vector<int32_t>> sessions;
};

Ranked Simulate(int configs, int sessions, int per_session, double offset_sd, double effect,
                uint64_t seed) {
  stats::Rng rng(seed);
  std::vector<std::pair<double, size_t>> order;
  std::vector<std::vector<double>> logs;
  std::vector<std::vector<int32_t>> ids;
  int32_t next = 0;
  for (int c = 0; c < configs; ++c) {
    logs.emplace_back();
    ids.emplace_back();
    for (int s = 0; s < sessions; ++s, ++next) {
      const double offset = offset_sd * rng.StandardNormal() + (c == 0 ? effect : 0);
      for (int e = 0; e < per_session; ++e) {
        logs.back().push_back(offset + 0.005 * rng.StandardNormal());
        ids.back().push_back(next);
      }
    }
    std::vector<double> sorted = logs.back();
    std::sort(sorted.begin(), sorted.end());
    order.emplace_back(sorted[sorted.size() / 2], static_cast<size_t>(c));
  }
  std::sort(order.begin(), order.end());
  Ranked r;
  r.result.valid = true;
  for (const auto& [median, c] : order) {
    ConfigResult cr;
    cr.key = "c" + std::to_string(c);
    r.result.configs.push_back(cr);
    r.logs.push_back(logs[c]);
    r.sessions.push_back(ids[c]);
  }
  return r;
}

// Two identical configurations whose sessions (three each, three executions a session) carry an
// offset four times the execution noise (an A/A sweep): comparing sessions names a false winner
// at about the rule's 1% (300 sweeps: 5 seen, <= 8 allowed, binomial sd 1.7 around 3); comparing
// executions names one in 48 (16%): it reads the sessions' offsets as the configurations'
// difference.
TEST(WinnerSessions, SessionUnitsHoldTheFalseWinnerRate) {
  int by_session = 0, by_execution = 0;
  for (int t = 0; t < 300; ++t) {
    Ranked r = Simulate(2, 3, 3, 0.02, 0, 40 + t);
    Ranked plain = r;
    DecideWinner(r.logs, r.sessions, 2, true, {}, &r.result);
    DecideWinner(plain.logs, {}, 2, true, {}, &plain.result);
    ASSERT_EQ(r.result.winner_test.session_comparisons, 1);
    ASSERT_EQ(plain.result.winner_test.session_comparisons, 0);
    by_session += r.result.winner == 0;
    by_execution += plain.result.winner == 0;
  }
  EXPECT_LE(by_session, 8);
  EXPECT_GE(by_execution, 30) << "executions should name false winners here";
}

// A real difference of ten session offsets is still found with four sessions a configuration.
TEST(WinnerSessions, ARealWinnerIsFoundBySessions) {
  int found = 0;
  for (int t = 0; t < 50; ++t) {
    Ranked r = Simulate(3, 4, 3, 0.01, -0.1, 700 + t);
    DecideWinner(r.logs, r.sessions, 3, true, {}, &r.result);
    found += r.result.winner == 0 && r.result.configs[0].key == "c0";
  }
  EXPECT_GE(found, 45);
}

// One session per configuration: however far apart, the pair cannot be compared (p = 1, tied).
TEST(WinnerSessions, OneSessionEachIsTied) {
  Ranked r = Simulate(2, 1, 5, 0, -0.5, 1);
  DecideWinner(r.logs, r.sessions, 2, true, {}, &r.result);
  EXPECT_EQ(r.result.winner, -1);
  EXPECT_EQ(r.result.tied.size(), 2u);
  EXPECT_EQ(r.result.configs[1].p_vs_best, 1.0);
  Ranked plain = Simulate(2, 1, 5, 0, -0.5, 1);
  DecideWinner(plain.logs, {}, 2, true, {}, &plain.result);
  EXPECT_EQ(plain.result.winner, 0);  // five executions a side, 100x the noise apart
}

// Configurations that shared a session, single-execution sessions and one-shot executions keep
// the execution-level comparison: the same p, bit for bit.
TEST(WinnerSessions, OtherwiseExecutionsAreCompared) {
  const Ranked base = Simulate(3, 2, 3, 0.01, -0.02, 5);
  Ranked plain = base;
  DecideWinner(plain.logs, {}, 3, true, {}, &plain.result);
  Ranked shared = base;  // session k of every configuration is one process
  for (auto& s : shared.sessions) {
    for (int32_t& id : s) id %= 2;
  }
  Ranked single = base;
  int32_t next = 0;
  for (auto& s : single.sessions) {
    for (int32_t& id : s) id = next++;
  }
  Ranked none = base;
  for (auto& s : none.sessions) {
    for (int32_t& id : s) id = -1;
  }
  for (Ranked* r : {&shared, &single, &none}) {
    DecideWinner(r->logs, r->sessions, 3, true, {}, &r->result);
    EXPECT_EQ(r->result.winner_test.session_comparisons, 0);
    EXPECT_EQ(r->result.winner, plain.result.winner);
    for (size_t j = 1; j < 3; ++j) {
      EXPECT_EQ(r->result.configs[j].p_vs_best, plain.result.configs[j].p_vs_best);
    }
  }
}

}  // namespace
}  // namespace fleetsweep
