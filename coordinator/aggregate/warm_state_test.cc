// The warm-state audit by its error rates on simulated sweeps with known truths: no false
// "differs" beyond its level when sessions change nothing, and planted first-execution penalties
// and drifts found.
#include "coordinator/aggregate/warm_state.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>

namespace fleetsweep {
namespace {

struct Truth {
  double first = 0;  // first execution of a session is (1 + first) times slower
  double drift = 0;  // each position adds this share
  int recycle = 8;   // session.max_executions
  int slots = 2;
  double session_sd = 0;  // each session's own log offset: normal with this sd
};

// 12 configurations x 6 executions in a random order over `slots` slots whose sessions recycle
// after `recycle` executions; 3% log-normal noise; configuration effects up to 2x. Every attempt
// names its session (`session.id`); the sessions' offsets come from a stream of their own.
std::vector<v1::Attempt> Simulate(const Truth& t, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, 0.03);
  std::vector<int> order;
  for (int c = 0; c < 12; ++c) {
    for (int e = 0; e < 6; ++e) order.push_back(c);
  }
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<int> done(t.slots, 0);
  std::mt19937_64 offsets_rng(seed ^ 0x0ff5e7);
  std::normal_distribution<double> offset_of(0, 1);
  std::map<std::string, double> offsets;
  std::vector<v1::Attempt> out;
  for (size_t i = 0; i < order.size(); ++i) {
    const int slot = static_cast<int>(i % t.slots);
    const int session = done[slot] / t.recycle;
    const int position = done[slot]++ % t.recycle + 1;
    const int c = order[i];
    const std::string id = "s" + std::to_string(slot) + "-" + std::to_string(session);
    if (!offsets.count(id)) offsets[id] = t.session_sd * offset_of(offsets_rng);
    double mean = (1 + c / 12.0) * (position == 1 ? 1 + t.first : 1) * (1 + t.drift * position) *
                  std::exp(offsets[id]);
    v1::Attempt a;
    a.set_config_key("c" + std::to_string(c));
    a.set_node("n1");
    a.set_ok(true);
    (*a.mutable_info())["session.position"] = std::to_string(position);
    (*a.mutable_info())["session.id"] = id;
    for (int s = 0; s < 5; ++s) {
      auto* x = a.add_samples();
      x->set_metric("t");
      x->set_value(mean * std::exp(noise(rng)));
    }
    out.push_back(std::move(a));
  }
  return out;
}

WarmStateOptions Fast() {
  WarmStateOptions o;
  o.resamples = 999;
  return o;
}

TEST(WarmStateTest, HoldsItsLevelWhenSessionsChangeNothing) {
  int false_first = 0, false_drift = 0, false_between = 0, tested = 0, tested_between = 0;
  const int sweeps = 300;
  for (int seed = 1; seed <= sweeps; ++seed) {
    WarmStateOptions o = Fast();
    o.seed = seed;
    WarmStateAudit w = AuditWarmState(Simulate(Truth{}, seed), "t", o);
    ASSERT_TRUE(w.persistent);
    tested += w.first_vs_later.verdict != "inconclusive" && w.first_vs_later.verdict != "untested";
    false_first += w.first_vs_later.verdict == "differs";
    false_drift += w.drift.verdict == "differs";
    false_between += w.between_sessions.verdict == "differs";
    tested_between +=
        w.between_sessions.verdict == "differs" || w.between_sessions.verdict == "no_difference";
  }
  EXPECT_GE(tested_between, sweeps * 9 / 10);
  EXPECT_LE(false_between, 8);
  EXPECT_GE(tested, sweeps * 9 / 10) << "the design should reach alpha";
  // alpha = 1%: 3 expected of 300; 9 or more has probability < 0.5% under the level.
  EXPECT_LE(false_first, 8);
  EXPECT_LE(false_drift, 8);
}

TEST(WarmStateTest, FindsAPlantedFirstExecutionPenalty) {
  int found = 0, drift_flagged = 0;
  for (int seed = 1; seed <= 100; ++seed) {
    WarmStateOptions o = Fast();
    o.seed = seed;
    WarmStateAudit w = AuditWarmState(Simulate(Truth{0.10, 0}, seed), "t", o);
    if (w.first_vs_later.verdict == "differs") {
      ++found;
      EXPECT_GT(w.first_vs_later.change, -0.2);
      EXPECT_LT(w.first_vs_later.change, 0) << "later executions are faster";
    }
    drift_flagged += w.drift.verdict == "differs";
  }
  EXPECT_GE(found, 90);
  EXPECT_LE(drift_flagged, 5) << "a first-execution penalty is not a drift";
}

TEST(WarmStateTest, FindsAPlantedDrift) {
  int found = 0;
  for (int seed = 1; seed <= 100; ++seed) {
    WarmStateOptions o = Fast();
    o.seed = seed;
    WarmStateAudit w = AuditWarmState(Simulate(Truth{0, 0.02, 8}, seed), "t", o);
    if (w.drift.verdict == "differs") {
      ++found;
      EXPECT_GT(w.drift.change, 0) << "late executions are slower";
    }
  }
  EXPECT_GE(found, 80);
}

// The sessions' starts are summed from the attempts that opened them (session.start_seconds),
// beside every ok attempt's duration; a failed attempt, a malformed or negative value counts
// nothing.
TEST(WarmStateTest, SessionStartsAreSummedFromTheAttemptsThatOpenedThem) {
  std::vector<v1::Attempt> attempts = Simulate(Truth{}, 7);
  double durations = 0;
  int starts = 0;
  for (auto& a : attempts) {
    a.set_duration_seconds(0.25);
    durations += 0.25;
    if (a.info().at("session.position") == "1") {
      (*a.mutable_info())["session.start_seconds"] = "0.5";
      ++starts;
    }
  }
  v1::Attempt failed = attempts.front();
  failed.set_ok(false);
  v1::Attempt bad = attempts.front();
  (*bad.mutable_info())["session.start_seconds"] = "-3";
  bad.set_duration_seconds(0.25);
  attempts.push_back(failed);
  attempts.push_back(bad);
  durations += 0.25;
  WarmStateAudit w = AuditWarmState(attempts, "t", Fast());
  ASSERT_GT(starts, 1);
  EXPECT_EQ(w.session_starts, starts);
  EXPECT_DOUBLE_EQ(w.session_start_seconds, 0.5 * starts);
  EXPECT_DOUBLE_EQ(w.attempt_seconds, durations);
}

TEST(WarmStateTest, OneShotAndSingleSessionAreNotCalledClean) {
  Truth one_shot;
  one_shot.recycle = 1;  // every execution is position 1
  WarmStateAudit w = AuditWarmState(Simulate(one_shot, 1), "t");
  EXPECT_FALSE(w.persistent);
  EXPECT_EQ(w.first_vs_later.verdict, "untested");
  EXPECT_FALSE(w.note.empty());
  Truth single;
  single.slots = 1;
  single.recycle = 1000;  // one session for the whole sweep: one first execution
  WarmStateAudit s = AuditWarmState(Simulate(single, 1), "t");
  EXPECT_TRUE(s.persistent);
  EXPECT_EQ(s.max_position, 72);
  EXPECT_TRUE(s.first_vs_later.verdict == "inconclusive" || s.first_vs_later.verdict == "untested")
      << s.first_vs_later.verdict;
  EXPECT_NE(s.note.find("max_executions"), std::string::npos);
}

TEST(WarmStateTest, ExecutionsWithoutPositionOrSamplesAreLeftOut) {
  std::vector<v1::Attempt> a = Simulate(Truth{}, 2);
  v1::Attempt bare;
  bare.set_config_key("c0");
  bare.set_ok(true);
  a.push_back(bare);  // no position, no samples
  v1::Attempt failed = a[0];
  failed.set_ok(false);
  a.push_back(failed);
  WarmStateAudit w = AuditWarmState(a, "t");
  EXPECT_EQ(w.executions, 72);
}

// Sessions that each keep an offset as large as the execution noise (3%): the between-sessions
// test finds them in at least 90 of 100 sweeps (12 configurations x 6 executions, sessions of 8
// executions on 2 slots: each configuration meets 2-5 of the 18 sessions).
TEST(WarmStateTest, FindsSessionsThatKeepAnOffset) {
  int found = 0;
  Truth t;
  t.session_sd = 0.03;
  for (int seed = 1; seed <= 100; ++seed) {
    WarmStateOptions o = Fast();
    o.seed = seed;
    const WarmStateAudit w = AuditWarmState(Simulate(t, seed), "t", o);
    found += w.between_sessions.verdict == "differs";
    if (seed == 1) {
      EXPECT_EQ(w.between_sessions.blocks, 12);
      EXPECT_GT(w.between_sessions.group_a, 24);  // sessions summed over the blocks
      EXPECT_EQ(w.between_sessions.group_b, 72);
      EXPECT_GT(w.between_sessions.change, 0.03);
    }
  }
  EXPECT_GE(found, 90);
}

// The cost bound (WarmStateOptions::visits) at the scale of these simulated sweeps: a budget of
// 18,000 visits at 500 draws tests a seeded half of the blocks. The subset is chosen from the
// design, so the level still holds (the same binomial bound as above), and planted effects are
// still found (with half the data: less power than the whole design's).
WarmStateOptions Bounded(int seed) {
  WarmStateOptions o = Fast();
  o.seed = seed;
  o.visits = 18000;
  o.min_resamples = 500;
  return o;
}

TEST(WarmStateTest, ABoundedTestOfASubsetHoldsItsLevel) {
  int false_first = 0, false_drift = 0, false_between = 0, subset = 0;
  const int sweeps = 300;
  for (int seed = 1; seed <= sweeps; ++seed) {
    const WarmStateAudit w = AuditWarmState(Simulate(Truth{}, seed), "t", Bounded(seed));
    subset += w.drift.tested_blocks < w.drift.blocks;
    false_first += w.first_vs_later.verdict == "differs";
    false_drift += w.drift.verdict == "differs";
    false_between += w.between_sessions.verdict == "differs";
  }
  std::printf("bounded, no effect: differs first %d, drift %d, between %d of %d\n", false_first,
              false_drift, false_between, sweeps);
  EXPECT_EQ(subset, sweeps) << "every drift test should have run on a subset of its blocks";
  EXPECT_LE(false_first, 8);
  EXPECT_LE(false_drift, 8);
  EXPECT_LE(false_between, 8);
}

TEST(WarmStateTest, ABoundedTestOfASubsetFindsPlantedEffects) {
  int first = 0, drift = 0, between = 0;
  Truth sessions;
  sessions.session_sd = 0.03;
  for (int seed = 1; seed <= 100; ++seed) {
    const WarmStateOptions o = Bounded(seed);
    first +=
        AuditWarmState(Simulate(Truth{0.10, 0}, seed), "t", o).first_vs_later.verdict == "differs";
    drift += AuditWarmState(Simulate(Truth{0, 0.02, 8}, seed), "t", o).drift.verdict == "differs";
    between +=
        AuditWarmState(Simulate(sessions, seed), "t", o).between_sessions.verdict == "differs";
  }
  std::printf("bounded, planted: found first %d, drift %d, between %d of 100\n", first, drift,
              between);
  EXPECT_GE(first, 60);    // 76 at the time of writing
  EXPECT_GE(drift, 80);    // 98
  EXPECT_GE(between, 75);  // 92
}

// Without a bound in the way the whole design is tested.
TEST(WarmStateTest, ASmallDesignIsTestedWhole) {
  const WarmStateAudit w = AuditWarmState(Simulate(Truth{}, 3), "t", Fast());
  EXPECT_EQ(w.drift.tested_blocks, w.drift.blocks);
  EXPECT_EQ(w.between_sessions.tested_blocks, w.between_sessions.blocks);
}

}  // namespace
}  // namespace fleetsweep
