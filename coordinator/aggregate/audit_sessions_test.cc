// The effect test's session units (audit.h, AuditEffects with sessions): a parameter whose levels
// never share a persistent benchmark session is tested by re-dealing whole sessions.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "common/stats/rng.h"
#include "coordinator/aggregate/audit.h"

namespace fleetsweep {
namespace {

ConfigResult Cfg(int a, int b, double median) {
  ConfigResult c;
  c.params = {{"A", std::to_string(a)}, {"B", std::to_string(b)}};
  c.key = "A" + std::to_string(a) + "B" + std::to_string(b);
  c.status = ConfigOutcome::kDone;
  c.ok_attempts = 3;
  c.primary.n = 3;
  c.primary.median = median;
  return c;
}

// A session-key parameter A (2 levels) and a free parameter B (`blocks` values): each level of A
// runs in `sessions` sessions of its own, and every session serves one execution of each
// configuration of its level (so a session spans every block). Log median of an execution:
// 0.1 b + effect x a + offset_sd x Z_session + 0.01 x Z_execution.
struct Sweep {
  std::vector<ConfigResult> configs;
  std::vector<std::vector<double>> logs;
  std::vector<std::vector<int32_t>> sessions;
};

Sweep SessionBound(int blocks, int sessions, double effect, double offset_sd, uint64_t seed) {
  stats::Rng rng(seed);
  std::vector<double> offset(static_cast<size_t>(2 * sessions));
  for (double& o : offset) o = offset_sd * rng.StandardNormal();
  Sweep w;
  for (int b = 0; b < blocks; ++b) {
    for (int a = 0; a < 2; ++a) {
      w.configs.push_back(Cfg(a, b, std::exp(0.1 * b + effect * a)));
      w.logs.emplace_back();
      w.sessions.emplace_back();
      for (int s = 0; s < sessions; ++s) {
        const int id = a * sessions + s;
        w.logs.back().push_back(0.1 * b + effect * a + offset[static_cast<size_t>(id)] +
                                0.01 * rng.StandardNormal());
        w.sessions.back().push_back(id);
      }
    }
  }
  return w;
}

// A parameter that does nothing while each session adds an offset as large as the execution
// noise, 300 designs of 4 blocks x 2 levels x 6 sessions a level: re-dealing sessions calls it
// active at about the 5% level (binomial sd ~4 around 15); re-dealing executions (as without
// sessions) far more often: it reads the sessions' offsets as the levels' effects.
TEST(AuditEffectsSessions, SessionRedealingHoldsItsLevelWithSessionOffsets) {
  EffectOptions by_execution;
  by_execution.redealing = Redealing::kExecutions;
  int active_s = 0, active_e = 0;
  for (int t = 0; t < 300; ++t) {
    const Sweep w = SessionBound(4, 6, 0, 0.01, 500 + t);
    EffectOptions o;
    o.seed = by_execution.seed = t;
    const InertVerdict s = AuditEffects(w.configs, w.logs, w.sessions, {"A"}, o)[0];
    const InertVerdict e = AuditEffects(w.configs, w.logs, w.sessions, {"A"}, by_execution)[0];
    ASSERT_EQ(s.redealing, "sessions");
    ASSERT_EQ(s.units, 12);  // sessions, in one stratum: each spans all 4 blocks
    ASSERT_EQ(s.observations, 48);
    ASSERT_TRUE(s.exact);  // 924 arrangements
    ASSERT_EQ(s.test, "block_permutation_ranks_log_execution_medians_sessions_redealt");
    ASSERT_EQ(e.redealing, "executions");
    active_s += s.verdict == Effect::kActive;
    active_e += e.verdict == Effect::kActive;
  }
  EXPECT_LE(active_s, 27);
  EXPECT_GE(active_s, 5) << "far below the level: the test lost its power";
  EXPECT_GE(active_e, 40) << "the execution-level test should be anti-conservative here";
}

// A real difference of twice the sessions' offset is found by re-dealing sessions.
TEST(AuditEffectsSessions, SessionRedealingFindsARealDifference) {
  int active = 0;
  for (int t = 0; t < 100; ++t) {
    const Sweep w = SessionBound(4, 6, 0.02, 0.01, 900 + t);
    EffectOptions o;
    o.seed = t;
    active += AuditEffects(w.configs, w.logs, w.sessions, {"A"}, o)[0].verdict == Effect::kActive;
  }
  EXPECT_GE(active, 70);
}

// One session per level: the session's offset and the level's effect cannot be told apart, so
// even a 20x larger difference is "inconclusive", never "active"; the note says why.
TEST(AuditEffectsSessions, OneSessionPerLevelIsInconclusive) {
  Sweep one = SessionBound(5, 3, 0.2, 0, 1);
  for (auto& s : one.sessions) {
    for (int32_t& id : s) id = id < 3 ? 0 : 1;  // each level's three executions: one session
  }
  const InertVerdict v = AuditEffects(one.configs, one.logs, {}, {"A"})[0];
  EXPECT_EQ(v.verdict, Effect::kActive);  // without sessions: 30 executions re-dealt
  const InertVerdict u = AuditEffects(one.configs, one.logs, one.sessions, {"A"})[0];
  EXPECT_EQ(u.redealing, "sessions");
  EXPECT_EQ(u.units, 2);
  EXPECT_EQ(u.verdict, Effect::kInconclusive);
  EXPECT_GT(u.min_p, 0.05);
  EXPECT_NE(u.note.find("too few sessions"), std::string::npos) << u.note;
}

// Sessions that hold both levels (a parameter the session does not depend on), sessions of one
// execution each, one-shot executions (-1) and a forced unit leave the test as without sessions:
// the same p, bit for bit.
TEST(AuditEffectsSessions, OtherwiseTheTestIsUnchanged) {
  const Sweep w = SessionBound(4, 6, 0.01, 0.005, 7);
  EffectOptions o;
  const InertVerdict plain = AuditEffects(w.configs, w.logs, {"A"}, o)[0];
  EXPECT_EQ(plain.redealing, "executions");

  Sweep mixed = w;  // session s serves execution s of both levels
  for (auto& s : mixed.sessions) {
    for (int32_t& id : s) id %= 6;
  }
  Sweep single = w;  // every execution a session of its own
  int32_t next = 0;
  for (auto& s : single.sessions) {
    for (int32_t& id : s) id = next++;
  }
  Sweep none = w;
  for (auto& s : none.sessions) {
    for (int32_t& id : s) id = -1;
  }
  for (const Sweep* x : {&mixed, &single, &none}) {
    const InertVerdict v = AuditEffects(x->configs, x->logs, x->sessions, {"A"}, o)[0];
    EXPECT_EQ(v.redealing, "executions");
    EXPECT_EQ(v.units, plain.units);
    EXPECT_EQ(v.p_value, plain.p_value);
    EXPECT_EQ(v.test, plain.test);
  }
  EffectOptions forced = o;
  forced.redealing = Redealing::kExecutions;
  const InertVerdict f = AuditEffects(w.configs, w.logs, w.sessions, {"A"}, forced)[0];
  EXPECT_EQ(f.redealing, "executions");
  EXPECT_EQ(f.p_value, plain.p_value);
}

// Strata: sessions join the blocks they span; sessions that never meet stay in separate strata.
// Two groups of blocks, each served by its own sessions (2 a level), give 2 strata of 4
// sessions: 6 x 6 = 36 arrangements; with two levels S cannot tell an arrangement from its mirror
// (every label swapped), so the best one and its mirror give p = min_p = 2 / 36.
TEST(AuditEffectsSessions, SessionsJoinTheBlocksTheySpan) {
  Sweep w = SessionBound(4, 2, 0.05, 0, 3);
  for (size_t i = 0; i < w.configs.size(); ++i) {
    const bool second = w.configs[i].params.at("B") >= "2";
    for (int32_t& id : w.sessions[i]) id += second ? 100 : 0;
  }
  const InertVerdict v = AuditEffects(w.configs, w.logs, w.sessions, {"A"})[0];
  EXPECT_EQ(v.redealing, "sessions");
  EXPECT_EQ(v.units, 8);
  EXPECT_TRUE(v.exact);
  EXPECT_DOUBLE_EQ(v.arrangements, 36);
  EXPECT_NEAR(v.min_p, 2.0 / 36, 1e-12);
  EXPECT_NEAR(v.p_value, 2.0 / 36, 1e-12);
}

}  // namespace
}  // namespace fleetsweep
