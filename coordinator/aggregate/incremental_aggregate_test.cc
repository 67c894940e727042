// IncrementalAggregate == Aggregate: random sweeps (two nodes with a node effect, a reference
// configuration, failures, NaN samples, a bounded second metric, records that change state) fed
// in random batches; after every batch the incremental result must equal a full Aggregate over
// the same attempts and the latest records, field for field (compared as results.json).
#include "coordinator/aggregate/incremental_aggregate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/stats/rng.h"
#include "coordinator/aggregate/incremental_aggregate_test_support.h"
#include "coordinator/aggregate/results_writer.h"

namespace fleetsweep {
namespace {

using incremental_test::Records;
using incremental_test::Spec;
using incremental_test::Sweep;

int Pick(stats::Rng* rng, int n) { return std::min(n - 1, static_cast<int>(rng->Uniform01() * n)); }

v1::Attempt RandomAttempt(const Sweep& sweep, stats::Rng* rng, int seq) {
  v1::Attempt a;
  const bool reference = rng->Uniform01() < 0.2;
  const int c = reference ? 0 : Pick(rng, static_cast<int>(sweep.records.size()));
  const bool slow = rng->Uniform01() < 0.5;
  a.set_config_key(sweep.records[c].config_key());
  a.set_attempt_id("a" + std::to_string(seq));
  a.set_node(slow ? "slow" : "fast");
  a.set_reference(reference);
  a.set_started_unix_ms(1000 + seq);
  a.set_ok(rng->Uniform01() < 0.85);
  if (!a.ok()) {
    a.set_failure_class(rng->Uniform01() < 0.5 ? v1::FAILURE_CLASS_TIMEOUT
                                               : v1::FAILURE_CLASS_EXIT_CODE);
    a.set_failure_detail("detail " + std::to_string(seq));
    return a;
  }
  // A changes the fingerprint, B does not (so B is "not injected").
  a.set_fingerprint("fp" + sweep.records[c].params().at("A"));
  const double exec = sweep.truth[c] * (slow ? 1.2 : 1.0) * (1 + 0.01 * (rng->Uniform01() - 0.5));
  const int n = 1 + Pick(rng, 4);
  for (int i = 0; i < n; ++i) {
    auto* s = a.add_samples();
    s->set_metric("time_ms");
    s->set_value(rng->Uniform01() < 0.03 ? NAN : exec * (1 + 0.004 * (rng->Uniform01() - 0.5)));
  }
  if (rng->Uniform01() < 0.7) {
    auto* s = a.add_samples();
    s->set_metric("mem");
    s->set_value(0.9 + 0.2 * rng->Uniform01());
  }
  return a;
}

void RandomRecordChange(Sweep* sweep, stats::Rng* rng, IncrementalAggregate* inc) {
  v1::ConfigRecord& r = sweep->records[Pick(rng, static_cast<int>(sweep->records.size()))];
  const double u = rng->Uniform01();
  if (u < 0.4) {
    r.set_state(v1::CONFIG_STATE_DONE);
  } else if (u < 0.6) {
    r.set_state(v1::CONFIG_STATE_INFEASIBLE);
    r.set_last_failure(v1::FAILURE_CLASS_TIMEOUT);
    r.set_last_failure_detail("gave up");
  } else if (u < 0.8) {
    r.set_state(v1::CONFIG_STATE_LEASED);
  } else {
    r.set_state(v1::CONFIG_STATE_DONE);
    r.set_eliminated(true);
  }
  inc->UpdateRecord(r);
}

TEST(IncrementalAggregate, EqualsAFullAggregateAfterEveryRandomBatch) {
  const SweepSpec spec = Spec();
  AggregateOptions options;
  options.resamples = 200;
  int batches = 0, applied = 0, ranked_changes = 0, rest_tier = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    stats::Rng rng(seed);
    options.seed = seed;
    options.remove_node_effects = seed % 4 != 0;
    // Odd seeds: only the best two get the full bootstrap, so configurations change tier as the
    // ranking changes (RetierCIs).
    options.full_ci_top = seed % 2 == 1 ? 2 : 100;
    options.rest_resamples = 50;
    Sweep sweep = Records();
    IncrementalAggregate inc(spec, sweep.records, options);
    EXPECT_EQ(inc.dirty(), 6);
    std::vector<v1::Attempt> all;
    std::string previous_best;
    const int total = 40 + Pick(&rng, 120);
    while (static_cast<int>(all.size()) < total) {
      const int batch = 1 + Pick(&rng, 15);
      std::set<std::string> touched;
      for (int i = 0; i < batch; ++i) {
        all.push_back(RandomAttempt(sweep, &rng, static_cast<int>(all.size())));
        inc.Add(all.back());
        const v1::Attempt& a = all.back();
        if (a.ok() && !a.reference() && a.samples_size() > 0) touched.insert(a.config_key());
      }
      if (rng.Uniform01() < 0.3) RandomRecordChange(&sweep, &rng, &inc);
      // Only the configurations with new counted (ok) attempts are recomputed (all of them
      // before the first Result).
      EXPECT_EQ(inc.dirty(), all.size() == static_cast<size_t>(batch)
                                 ? 6
                                 : static_cast<int64_t>(touched.size()));
      SweepResult got = inc.Result();
      EXPECT_EQ(inc.dirty(), 0);
      AggregateOptions threaded = options;  // the final path splits the work over threads
      threaded.threads = 3;
      SweepResult want = Aggregate(spec, sweep.records, all, threaded);
      ASSERT_EQ(ResultsToJson(got).dump(1), ResultsToJson(want).dump(1))
          << "seed " << seed << " after " << all.size() << " attempts";
      ++batches;
      for (size_t k = 0; k < got.configs.size(); ++k) {
        const ConfigResult& c = got.configs[k];
        if (c.primary.n == 0 || c.violates_bound) continue;  // ranked ones come first
        const bool top = k < static_cast<size_t>(options.full_ci_top);
        EXPECT_EQ(c.primary.resamples, top ? 200 : 50) << "seed " << seed << " rank " << k + 1;
        if (!top) ++rest_tier;
      }
      if (got.node_effects_applied) ++applied;
      if (!got.configs.empty() && got.configs[0].key != previous_best) ++ranked_changes;
      previous_best = got.configs.empty() ? "" : got.configs[0].key;
    }
  }
  // The comparison covered both node-effect paths and a changing ranking.
  EXPECT_GT(batches, 50);
  EXPECT_GT(applied, 0);
  EXPECT_LT(applied, batches);
  EXPECT_GT(ranked_changes, 8);
  EXPECT_GT(rest_tier, 50);
}

// Finish builds its aggregate from records it gives up (their keys and parameters move into the
// entries): the result must equal the one built from a kept copy, infeasible records' failures
// included, and every given-up record is left empty.
TEST(IncrementalAggregate, ConsumedRecordsGiveTheSameResultAndAreEmptied) {
  const SweepSpec spec = Spec();
  AggregateOptions options;
  options.resamples = 200;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    stats::Rng rng(seed);
    options.seed = seed;
    Sweep sweep = Records();
    IncrementalAggregate scratch(spec, sweep.records, options);
    for (int i = 0; i < 4; ++i) RandomRecordChange(&sweep, &rng, &scratch);
    std::vector<v1::Attempt> all;
    for (int i = 0; i < 60; ++i) all.push_back(RandomAttempt(sweep, &rng, i));
    IncrementalAggregate kept(spec, sweep.records, options);
    std::vector<v1::ConfigRecord> given = sweep.records;
    IncrementalAggregate consumed(spec, std::move(given), options);
    EXPECT_EQ(consumed.configurations(), 6);
    for (const auto& r : given) {
      EXPECT_TRUE(r.config_key().empty()) << "seed " << seed;
      EXPECT_EQ(r.params_size(), 0) << "seed " << seed;
    }
    for (const auto& a : all) {
      kept.Add(a);
      consumed.Add(a);
    }
    const SweepResult want = kept.TakeResult();
    const SweepResult got = consumed.TakeResult();
    ASSERT_EQ(ResultsToJson(got).dump(1), ResultsToJson(want).dump(1)) << "seed " << seed;
    EXPECT_EQ(got.configs.size(), 6u);
  }
}

// A cancelled Result (the live audits stopping on SIGINT) refreshes nothing more, leaves what it
// skipped dirty, and the next Result is still exactly the full Aggregate.
TEST(IncrementalAggregate, ACancelledResultLeavesTheStateExactForTheNextOne) {
  const SweepSpec spec = Spec();
  std::atomic<bool> cancel{false};
  AggregateOptions options;
  options.resamples = 200;
  options.cancel = &cancel;
  stats::Rng rng(5);
  Sweep sweep = Records();
  IncrementalAggregate inc(spec, sweep.records, options);
  std::vector<v1::Attempt> all;
  for (int i = 0; i < 60; ++i) {
    all.push_back(RandomAttempt(sweep, &rng, i));
    inc.Add(all.back());
  }
  (void)inc.Result();  // everything clean
  for (int i = 60; i < 90; ++i) {
    all.push_back(RandomAttempt(sweep, &rng, i));
    inc.Add(all.back());
  }
  const int64_t dirty = inc.dirty();
  ASSERT_GT(dirty, 0);
  cancel.store(true);
  SweepResult partial = inc.Result();
  EXPECT_EQ(inc.dirty(), dirty) << "a cancelled Result refreshed configurations";
  EXPECT_TRUE(partial.configs.empty()) << "a cancelled Result got past the summaries";
  cancel.store(false);
  SweepResult got = inc.Result();
  AggregateOptions plain = options;
  plain.cancel = nullptr;
  SweepResult want = Aggregate(spec, sweep.records, all, plain);
  EXPECT_EQ(ResultsToJson(got).dump(1), ResultsToJson(want).dump(1));
  EXPECT_EQ(inc.dirty(), 0);
}

// The live audits' way: start with no configuration and Track each one's record when its first
// attempt arrives. Untracked configurations hold no entry; the result equals a full Aggregate over
// the tracked records in the order they were tracked.
TEST(IncrementalAggregate, TrackingOnFirstAttemptEqualsAggregateOfTheTrackedRecords) {
  const SweepSpec spec = Spec();
  AggregateOptions options;
  options.resamples = 200;
  int batches = 0, partial = 0;
  for (uint64_t seed = 11; seed <= 16; ++seed) {
    stats::Rng rng(seed);
    options.seed = seed;
    Sweep sweep = Records();
    IncrementalAggregate inc(spec, {}, options);
    EXPECT_EQ(inc.configurations(), 0);
    std::vector<v1::Attempt> all;
    std::vector<size_t> tracked;  // indices into sweep.records, in tracking order
    const int total = 10 + Pick(&rng, 60);
    while (static_cast<int>(all.size()) < total) {
      const int batch = 1 + Pick(&rng, 4);
      for (int i = 0; i < batch; ++i) {
        all.push_back(RandomAttempt(sweep, &rng, static_cast<int>(all.size())));
        size_t c = 0;
        while (sweep.records[c].config_key() != all.back().config_key()) ++c;
        if (std::find(tracked.begin(), tracked.end(), c) == tracked.end()) tracked.push_back(c);
        inc.Track(sweep.records[c]);  // as a batch hands the record with the attempt
        inc.Add(all.back());
      }
      if (rng.Uniform01() < 0.3) RandomRecordChange(&sweep, &rng, &inc);
      EXPECT_EQ(inc.configurations(), static_cast<int64_t>(tracked.size()));
      if (tracked.size() < sweep.records.size()) ++partial;
      SweepResult got = inc.Result();
      std::vector<v1::ConfigRecord> records;
      for (size_t c : tracked) records.push_back(sweep.records[c]);
      SweepResult want = Aggregate(spec, records, all, options);
      ASSERT_EQ(ResultsToJson(got).dump(1), ResultsToJson(want).dump(1))
          << "seed " << seed << " after " << all.size() << " attempts";
      ++batches;
    }
  }
  EXPECT_GT(batches, 20);
  EXPECT_GT(partial, 3);  // the comparison covered rounds with configurations not yet tracked
}

// The compact execution log (execution_log.h) keeps what node effects and the warm-state audit
// read: on a three-node sweep in persistent sessions (a planted slow node, a slow first
// execution, reference attempts) fed the live way, the verdicts are the planted ones, equal a
// full Aggregate's, and their counts equal those taken from the attempts themselves.
TEST(IncrementalAggregate, LoggedExecutionsKeepWhatNodeEffectsAndWarmStateRead) {
  const SweepSpec spec = Spec();
  AggregateOptions options;
  options.resamples = 200;
  stats::Rng rng(21);
  Sweep sweep = Records();
  IncrementalAggregate inc(spec, {}, options);
  std::vector<v1::Attempt> all;
  const char* nodes[] = {"n1", "n2", "n3"};
  const double node_effect[] = {1.0, 1.3, 1.0};
  std::map<std::string, int> reference_attempts, reference_samples, executions;
  int positioned = 0, max_position = 0;
  for (int i = 0; i < 900; ++i) {
    v1::Attempt a;
    const bool reference = i % 10 == 0;
    const int c = reference ? 0 : Pick(&rng, 6);
    const int n = Pick(&rng, 3);
    const int position = 1 + (i / 3) % 6;  // sessions of six executions
    a.set_config_key(sweep.records[c].config_key());
    a.set_attempt_id("a" + std::to_string(i));
    a.set_node(nodes[n]);
    a.set_reference(reference);
    a.set_started_unix_ms(1000 + i);
    a.set_ok(true);
    a.set_fingerprint("fp" + sweep.records[c].params().at("A"));
    (*a.mutable_info())["session.position"] = std::to_string(position);
    (*a.mutable_info())["session.id"] = "s" + std::to_string(i / 18);
    const double exec = sweep.truth[c] * node_effect[n] * (position == 1 ? 1.2 : 1.0) *
                        (1 + 0.002 * (rng.Uniform01() - 0.5));
    for (int k = 0; k < 3; ++k) {
      auto* s = a.add_samples();
      s->set_metric("time_ms");
      s->set_value(exec * (1 + 0.001 * (rng.Uniform01() - 0.5)));
    }
    if (reference) {
      ++reference_attempts[a.node()];
      reference_samples[a.node()] += a.samples_size();
    }
    ++executions[a.node()];
    ++positioned;
    max_position = std::max(max_position, position);
    all.push_back(a);
    inc.Track(sweep.records[c]);
    inc.Add(a);
  }
  SweepResult got = inc.Result();
  ASSERT_EQ(ResultsToJson(got).dump(1),
            ResultsToJson(Aggregate(spec, sweep.records, all, options)).dump(1));
  // Warm state: every execution had a position; the slow first execution is found.
  EXPECT_EQ(got.warm_state.executions, positioned);
  EXPECT_EQ(got.warm_state.max_position, max_position);
  EXPECT_TRUE(got.warm_state.persistent);
  EXPECT_EQ(got.warm_state.first_vs_later.verdict, "differs");
  EXPECT_NEAR(got.warm_state.first_vs_later.change, 1 / 1.2 - 1, 0.02);
  // Its warning is whole (it was cut at 63 characters: "... measures +20.0% aga").
  const std::string warm_warning = "warm state: the first execution of a session measures +";
  const auto warned =
      std::find_if(got.warnings.begin(), got.warnings.end(),
                   [&](const std::string& w) { return w.rfind(warm_warning, 0) == 0; });
  ASSERT_NE(warned, got.warnings.end()) << testing::PrintToString(got.warnings);
  EXPECT_NE(warned->find("% against later ones (p = "), std::string::npos) << *warned;
  EXPECT_NE(warned->find("): prepare must warm up what the timing needs"), std::string::npos)
      << *warned;
  // Node effects: every node, the slow one found from all data and from its references alone.
  ASSERT_EQ(got.node_effects.size(), 3u);
  EXPECT_TRUE(got.node_effects_applied) << got.node_effects_note;
  for (const NodeEffect& e : got.node_effects) {
    EXPECT_EQ(e.reference_attempts, reference_attempts[e.node]) << e.node;
    EXPECT_EQ(e.reference_samples, reference_samples[e.node]) << e.node;
    EXPECT_TRUE(e.drift_tested) << e.node;
    EXPECT_EQ(e.executions, executions[e.node]) << e.node;  // every configuration ran on all
  }
  // The slow node is 1.3x the others (effects are normalised so the median node is 1).
  EXPECT_NEAR(got.node_effects[1].effect / got.node_effects[0].effect, 1.3, 0.01);
  EXPECT_NEAR(got.node_effects[1].reference_effect / got.node_effects[0].reference_effect, 1.3,
              0.01);
  // The corrected primary metric no longer carries the node: the best is the fastest truth.
  EXPECT_EQ(got.configs[0].key, sweep.records[0].config_key());
}

TEST(IncrementalAggregate, FailedAndReferenceAttemptsDirtyNothing) {
  const SweepSpec spec = Spec();
  Sweep sweep = Records();
  IncrementalAggregate inc(spec, sweep.records, AggregateOptions{});
  std::vector<v1::Attempt> all;
  (void)inc.Result();
  EXPECT_EQ(inc.dirty(), 0);
  v1::Attempt failed;
  failed.set_config_key(sweep.records[2].config_key());
  failed.set_ok(false);
  failed.set_failure_class(v1::FAILURE_CLASS_TIMEOUT);
  v1::Attempt reference;
  reference.set_config_key(sweep.records[0].config_key());
  reference.set_ok(true);
  reference.set_reference(true);
  reference.add_samples()->set_metric("time_ms");
  for (const auto& a : {failed, reference}) {
    all.push_back(a);
    inc.Add(a);
  }
  EXPECT_EQ(inc.dirty(), 0);
  SweepResult r = inc.Result();
  EXPECT_EQ(r.total_attempts, 2);
  EXPECT_EQ(r.failed_attempts, 1);
  EXPECT_EQ(ResultsToJson(r).dump(), ResultsToJson(Aggregate(spec, sweep.records, all)).dump());
}

// Add finds a configuration through the log's key index once it has an entry: an attempt Added
// before its configuration is Tracked counts only in the totals, every later one (ok or failed)
// counts for it; samples of two metrics interleaved in one attempt land in their own metrics.
TEST(IncrementalAggregate, AttemptsBeforeTrackAreNotCountedThoseAfterAre) {
  const SweepSpec spec = Spec();
  Sweep sweep = Records();
  IncrementalAggregate inc(spec, {}, AggregateOptions{});
  auto attempt = [&](bool ok, std::vector<std::pair<const char*, double>> samples) {
    v1::Attempt a;
    a.set_config_key(sweep.records[3].config_key());
    a.set_node("n1");
    a.set_ok(ok);
    if (!ok) a.set_failure_class(v1::FAILURE_CLASS_TIMEOUT);
    for (const auto& [metric, value] : samples) {
      auto* s = a.add_samples();
      s->set_metric(metric);
      s->set_value(value);
    }
    return a;
  };
  inc.Add(attempt(true, {{"time_ms", 99}, {"mem", 9}}));  // not tracked yet: totals only
  inc.Track(sweep.records[3]);
  inc.Add(attempt(true, {{"time_ms", 12}, {"mem", 1.0}, {"time_ms", 14}, {"mem", 1.02}}));
  inc.Add(attempt(false, {}));
  inc.Add(attempt(true, {{"mem", 1.01}, {"time_ms", 13}, {"time_ms", NAN}}));
  SweepResult r = inc.Result();
  EXPECT_EQ(r.total_attempts, 4);
  EXPECT_EQ(r.failed_attempts, 1);
  ASSERT_EQ(r.configs.size(), 1u);
  const ConfigResult& c = r.configs[0];
  EXPECT_EQ(c.attempts, 3);
  EXPECT_EQ(c.ok_attempts, 2);
  EXPECT_EQ(c.failed_attempts, 1);
  EXPECT_EQ(c.raw_primary.n, 2);        // executions (the one before Track not counted)
  EXPECT_EQ(c.raw_primary.samples, 3);  // 12, 14, 13: the NaN dropped
  EXPECT_DOUBLE_EQ(c.raw_primary.median, 13);
  ASSERT_EQ(c.metrics.count("mem"), 1u);
  EXPECT_EQ(c.metrics.at("mem").n, 2);
  EXPECT_EQ(c.metrics.at("mem").samples, 3);
  EXPECT_DOUBLE_EQ(c.metrics.at("mem").median, 1.01);
}

// Memory (issue 16): an entry (one per configuration that ran) without its samples, maps and
// texts. 768 bytes is jemalloc's size class below the 1,040-byte entry that embedded the
// summaries twice (1,280-byte class): a field added past it costs 25% more per configuration.
}  // namespace
}  // namespace fleetsweep
