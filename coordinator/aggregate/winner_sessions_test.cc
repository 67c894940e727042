// The winner test's session units (winner.h, "Sessions"): which units each pair is compared by,
// and the false-winner rates and power that result (the fit itself: session_fit_test.cc).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "common/stats/rng.h"
#include "coordinator/aggregate/winner.h"
#include "coordinator/aggregate/winner_units.h"

namespace fleetsweep {
namespace {

struct Ranked {
  SweepResult result;
  std::vector<std::vector<double>> logs;
  std::vector<std::vector<int32_t>> sessions;
};

// Ranks configurations best first (minimize) by their median log execution median, as the
// aggregate ranks them.
Ranked Rank(const std::vector<std::vector<double>>& logs,
            const std::vector<std::vector<int32_t>>& ids) {
  std::vector<std::pair<double, size_t>> order;
  for (size_t c = 0; c < logs.size(); ++c) {
    std::vector<double> sorted = logs[c];
    std::sort(sorted.begin(), sorted.end());
    order.emplace_back(sorted[sorted.size() / 2], c);
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

// `configs` identical configurations (an A/A sweep, plus `effect` on the first), each with
// `sessions` sessions of its own holding `per_session` executions: log median of an execution =
// effect (first configuration only) + offset_sd x Z_session + 0.005 x Z_execution. Ranked best
// first (minimize) as the aggregate ranks them.
Ranked Simulate(int configs, int sessions, int per_session, double offset_sd, double effect,
                uint64_t seed) {
  stats::Rng rng(seed);
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
  }
  return Rank(logs, ids);
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

// A design: `design[c]` lists the session of each execution of configuration c; sessions with
// the same id are one process, whose offset (offset_sd x Z) every configuration in it shares.
// Log median = offset + effect (configuration 0 only) + 0.005 x Z_execution.
Ranked RunDesign(const std::vector<std::vector<int32_t>>& design, double offset_sd, double effect,
                 uint64_t seed) {
  stats::Rng rng(seed);
  std::vector<double> offsets;
  for (const auto& sessions : design) {
    for (int32_t s : sessions) {
      while (offsets.size() <= static_cast<size_t>(s))
        offsets.push_back(offset_sd * rng.StandardNormal());
    }
  }
  std::vector<std::vector<double>> logs;
  for (size_t c = 0; c < design.size(); ++c) {
    logs.emplace_back();
    for (int32_t s : design[c]) {
      logs.back().push_back(offsets[s] + (c == 0 ? effect : 0) + 0.005 * rng.StandardNormal());
    }
  }
  return Rank(logs, design);
}

// The pair's design alone picks its units.
TEST(WinnerSessions, TheDesignPicksTheUnits) {
  auto unit = [](const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
    return ChoosePairUnit(CountSessions(a), CountSessions(b));
  };
  EXPECT_EQ(unit({0, 1, 2}, {3, 4, 5}), PairUnit::kExecutions);      // one execution a session
  EXPECT_EQ(unit({-1, -1}, {-1, -1}), PairUnit::kExecutions);        // one-shot
  EXPECT_EQ(unit({0, 0, 0}, {0, 0}), PairUnit::kExecutions);         // one shared session
  EXPECT_EQ(unit({0, 0, 1, 1}, {0, 1}), PairUnit::kExecutions);      // same proportions
  EXPECT_EQ(unit({0, 0, 1}, {2, 2, 3}), PairUnit::kSessions);        // never shared
  EXPECT_EQ(unit({0, 1, 1}, {0, 2, 2}), PairUnit::kWithinSessions);  // shared one, not the rest
  EXPECT_EQ(unit({0, 0, 0, 1}, {0, 1, 1, 1}), PairUnit::kWithinSessions);  // other proportions
  EXPECT_EQ(unit({0, 0, -1}, {0, 0}), PairUnit::kWithinSessions);          // a one-shot beside them
}

// The within-session difference by hand: session 0 holds a = {1, 2}, b = {3, 4} (difference 2,
// weight 2 x 2 / 4 = 1), session 1 holds a = {10}, b = {13} (difference 3, weight 1/2); a's
// session 2 is not shared and is left out. D = (2 + 1.5) / 1.5; residual ss 1 on 2 df, no prior:
// var(D) = (1 / 2) / 1.5; p = 2 x sf of t on 2 df, sf(t) = (1 - t / sqrt(t^2 + 2)) / 2.
TEST(WinnerSessions, WithinSessionsDifferenceByHand) {
  double diff = 0;
  const double p =
      WithinSessionsP({1, 2, 10, 50}, {0, 0, 1, 2}, {3, 4, 13}, {0, 0, 1}, 0.0, 0.0, &diff);
  const double d = 3.5 / 1.5, t = d / std::sqrt(0.5 / 1.5);
  EXPECT_NEAR(diff, d, 1e-12);
  EXPECT_NEAR(p, 1 - t / std::sqrt(t * t + 2), 1e-9);
  // A prior of 4 df at variance 0.25 joins the residual: (4 x 0.25 + 1) / (4 + 2) on 6 df.
  double diff2 = 0;
  const double p2 =
      WithinSessionsP({1, 2, 10, 50}, {0, 0, 1, 2}, {3, 4, 13}, {0, 0, 1}, 0.25, 4.0, &diff2);
  EXPECT_NEAR(diff2, d, 1e-12);
  EXPECT_LT(p2, p);  // more df, smaller variance
  // No shared session, or no df at all: untestable.
  EXPECT_EQ(WithinSessionsP({1, 2}, {0, 0}, {3, 4}, {1, 1}, 0.1, 10, &diff), 1.0);
  EXPECT_EQ(WithinSessionsP({1}, {0}, {3}, {0}, 0.0, 0.0, &diff), 1.0);
}

// A/A: two configurations that shared one session (an execution each) and ran their other six
// executions in sessions of their own, with session offsets four times the execution noise.
// Comparing executions (what fleetsweep did for any pair that shared a session) reads the
// offsets as a difference; the two-way fit compares them within the shared session and holds the
// rule's rate (300 sweeps at family_alpha 1%: expected <= 1.5, <= 8 allowed).
TEST(WinnerSessions, UnevenlySharedSessionsHoldTheFalseWinnerRate) {
  const std::vector<std::vector<int32_t>> design = {{0, 1, 1, 1, 2, 2, 2}, {0, 3, 3, 3, 4, 4, 4}};
  int within = 0, by_execution = 0;
  for (int t = 0; t < 300; ++t) {
    Ranked r = RunDesign(design, 0.02, 0, 900 + t);
    Ranked plain = r;
    DecideWinner(r.logs, r.sessions, 2, true, {}, &r.result);
    DecideWinner(plain.logs, {}, 2, true, {}, &plain.result);
    ASSERT_EQ(r.result.winner_test.fit_comparisons, 1);
    ASSERT_EQ(r.result.winner_test.session_comparisons, 0);
    within += r.result.winner == 0;
    by_execution += plain.result.winner == 0;
  }
  EXPECT_LE(within, 8);
  EXPECT_GE(by_execution, 30) << "executions should name false winners here";
}

// A real difference (four times the execution noise) is found within the shared session, though
// each configuration also ran an execution in a session of its own whose offset is ten times the
// noise.
TEST(WinnerSessions, ARealWinnerIsFoundByTheFit) {
  const std::vector<std::vector<int32_t>> design = {{0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 2}};
  int found = 0;
  for (int t = 0; t < 50; ++t) {
    Ranked r = RunDesign(design, 0.05, -0.02, 1300 + t);
    DecideWinner(r.logs, r.sessions, 2, true, {}, &r.result);
    EXPECT_EQ(r.result.winner_test.fit_comparisons, 1);
    found += r.result.winner == 0 && r.result.configs[0].key == "c0";
  }
  EXPECT_GE(found, 45);
}

// c0 (the best, by 0.05: ten times the noise, since the c0 - c1 difference goes through c2 and
// its residual has 8 df) and c1 never shared a session and each ran one, so their session means
// cannot be compared; c2 ran in both sessions and the fit connects them.
TEST(WinnerSessions, TheFitComparesPairsThatNeverSharedASession) {
  const std::vector<std::vector<int32_t>> design = {{0, 0, 0}, {1, 1, 1}, {0, 0, 0, 1, 1, 1}};
  int found = 0;
  for (int t = 0; t < 50; ++t) {
    Ranked r = RunDesign(design, 0.01, -0.05, 1700 + t);
    DecideWinner(r.logs, r.sessions, 3, true, {}, &r.result);
    EXPECT_EQ(r.result.winner_test.fit_comparisons, 2);
    EXPECT_EQ(r.result.winner_test.session_comparisons, 0);
    found += r.result.winner == 0 && r.result.configs[0].key == "c0";
  }
  EXPECT_GE(found, 45);
}

// Five configurations x six executions dealt at random to sessions of four.
std::vector<std::vector<int32_t>> RandomShortSessions(uint64_t seed) {
  stats::Rng rng(seed);
  std::vector<int> order;
  for (int c = 0; c < 5; ++c) order.insert(order.end(), 6, c);
  for (size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[rng.UniformIndex(i + 1)]);
  std::vector<std::vector<int32_t>> design(5);
  for (size_t i = 0; i < order.size(); ++i) design[order[i]].push_back(static_cast<int32_t>(i / 4));
  return design;
}

// A/A with many configurations dealt at random to short sessions (five configurations x six
// executions, sessions of four, offsets four times the noise): the fit holds the rule's rate.
TEST(WinnerSessions, TheFitHoldsTheFalseWinnerRateInShortRandomSessions) {
  int false_winners = 0, fitted = 0;
  for (int t = 0; t < 300; ++t) {
    const std::vector<std::vector<int32_t>> design = RandomShortSessions(2100 + t);
    Ranked r = RunDesign(design, 0.02, 0, 2100 + t);
    DecideWinner(r.logs, r.sessions, 5, true, {}, &r.result);
    false_winners += r.result.winner == 0;
    fitted += r.result.winner_test.fit_comparisons;
  }
  EXPECT_LE(false_winners, 8);
  EXPECT_GT(fitted, 300);  // most pairs are not comparable by executions here
}

// Above the fit's size (256 connected configurations) unevenly shared pairs are compared within
// their shared sessions instead.
TEST(WinnerSessions, LargeSweepsCompareWithinSharedSessions) {
  std::vector<std::vector<int32_t>> design = {{0, 1, 1, 1}, {0, 2, 2, 2}};
  for (int c = 2; c < 300; ++c) design.push_back({0, 3 + c});
  Ranked r = RunDesign(design, 0.01, -0.05, 3);
  DecideWinner(r.logs, r.sessions, 300, true, {}, &r.result);
  ASSERT_EQ(r.result.configs[0].key, "c0");
  EXPECT_EQ(r.result.winner_test.fit_comparisons, 0);
  EXPECT_EQ(r.result.winner_test.within_session_comparisons, 299);
}

// Every compared configuration names the units of its comparison (results.json
// "unit_vs_best"), and the names agree with the winner test's counts of each kind.
void ExpectUnitsMatchCounts(const SweepResult& r, size_t ranked) {
  std::map<std::string, int> seen;
  EXPECT_EQ(r.configs[0].unit_vs_best, "");  // the best is not compared with itself
  for (size_t j = 1; j < ranked; ++j) ++seen[r.configs[j].unit_vs_best];
  const WinnerTest& t = r.winner_test;
  EXPECT_EQ(seen["fit"], t.fit_comparisons);
  EXPECT_EQ(seen["sessions"], t.session_comparisons);
  EXPECT_EQ(seen["within_sessions"], t.within_session_comparisons);
  EXPECT_EQ(seen["executions"], static_cast<int>(ranked) - 1 - t.fit_comparisons -
                                    t.session_comparisons - t.within_session_comparisons);
  EXPECT_EQ(seen.size() - seen.count("fit") - seen.count("sessions") -
                seen.count("within_sessions") - seen.count("executions"),
            0u);
}

TEST(WinnerSessions, EachComparisonNamesItsUnits) {
  // sessions: never shared, three executions in each of three sessions
  Ranked s = Simulate(2, 3, 3, 0.02, 0, 40);
  DecideWinner(s.logs, s.sessions, 2, true, {}, &s.result);
  EXPECT_EQ(s.result.configs[1].unit_vs_best, "sessions");
  ExpectUnitsMatchCounts(s.result, 2);
  // no sessions recorded: executions
  Ranked plain = Simulate(2, 3, 3, 0.02, 0, 40);
  DecideWinner(plain.logs, {}, 2, true, {}, &plain.result);
  EXPECT_EQ(plain.result.configs[1].unit_vs_best, "executions");
  // the fit, and executions, in random short sessions
  std::map<std::string, int> kinds;
  for (int t = 0; t < 20; ++t) {
    const std::vector<std::vector<int32_t>> design = RandomShortSessions(5100 + t);
    Ranked r = RunDesign(design, 0.02, 0, 5100 + t);
    DecideWinner(r.logs, r.sessions, 5, true, {}, &r.result);
    ExpectUnitsMatchCounts(r.result, 5);
    for (size_t j = 1; j < 5; ++j) ++kinds[r.result.configs[j].unit_vs_best];
  }
  EXPECT_GT(kinds["fit"], 0);
  // within shared sessions, past the fit's size
  std::vector<std::vector<int32_t>> large = {{0, 1, 1, 1}, {0, 2, 2, 2}};
  for (int c = 2; c < 300; ++c) large.push_back({0, 3 + c});
  Ranked w = RunDesign(large, 0.01, -0.05, 3);
  DecideWinner(w.logs, w.sessions, 300, true, {}, &w.result);
  EXPECT_EQ(w.result.configs[1].unit_vs_best, "within_sessions");
  ExpectUnitsMatchCounts(w.result, 300);
}

}  // namespace
}  // namespace fleetsweep
