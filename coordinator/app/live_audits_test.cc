// LiveAudits (the live metrics, best configuration and audit verdicts, published from the
// attempts the serving thread hands over) against a real Prometheus exposer and a finished sweep.
#include "coordinator/app/live_audits.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/metrics/coordinator_metrics.h"
#include "common/metrics/metrics_test_util.h"
#include "common/store/file_store.h"
#include "common/store/store.h"
#include "coordinator/app/runner_test_support.h"
#include "tests/support/temp_dir.h"

namespace fleetsweep {
namespace {

// A finished sweep of kSpec: its scheduler, the attempts it counted (through the observer, as the
// runner feeds LiveAudits) and what the store holds.
struct FinishedSweep {
  std::unique_ptr<testing::TempDir> dir;
  std::unique_ptr<ResultStore> store;
  SweepSpec spec;
  std::vector<v1::Attempt> counted;
  std::unique_ptr<Scheduler> scheduler;

  std::vector<v1::ConfigRecord> Records() const {
    std::vector<v1::ConfigRecord> out;
    for (int i = 0; i < scheduler->configs().size(); ++i) {
      out.push_back(scheduler->configs().Record(i));
    }
    return out;
  }
  LiveBatch Batch(double now, bool with_attempts) const {
    LiveBatch b;
    b.now = now;
    b.progress = scheduler->GetProgress();
    if (with_attempts) {
      b.attempts = counted;
      b.records = Records();
    }
    return b;
  }
};

void RunFinishedSweep(FinishedSweep* f) {
  auto dir = testing::TempDir::Create();
  ASSERT_TRUE(dir.ok());
  f->dir = std::make_unique<testing::TempDir>(std::move(dir).value());
  auto store = FileStore::Open(f->dir->Join("store"));
  ASSERT_TRUE(store.ok());
  f->store = std::move(store).value();
  auto spec = ParseSpecText(kSpec, "l.yaml");
  ASSERT_TRUE(spec.ok());
  f->spec = *spec;
  SchedulerOptions so;
  so.epoch = "e1";
  so.on_attempt_counted = [f](const v1::Attempt& a) { f->counted.push_back(a); };
  f->scheduler = std::make_unique<Scheduler>(f->spec, so, f->store.get());
  ASSERT_TRUE(f->scheduler->Init().ok());
  double now = 0;
  RunAll(*f->scheduler, &now);
  ASSERT_TRUE(f->scheduler->Finished());
  ASSERT_EQ(f->counted.size(), 9u);
}

void ExpectSweepPublished(const std::string& t) {
  EXPECT_EQ(metrics_testing::Value(t, "fleetsweep_coordinator_configurations",
                                   {{"sweep", "runner"}, {"state", "done"}}),
            3);
  // The best is A=1 (median of 11.00, 11.01, 11.02 over its executions).
  auto best = metrics_testing::Value(t, "fleetsweep_coordinator_best_value",
                                     {{"sweep", "runner"}, {"metric", "t"}});
  ASSERT_TRUE(best.has_value()) << t;
  EXPECT_NEAR(*best, 11.01, 1e-9);
  EXPECT_EQ(metrics_testing::CountSeries(t, "fleetsweep_coordinator_top_config_value"), 3);
  // Every variant reported the same fingerprint: A was not injected.
  EXPECT_EQ(metrics_testing::Value(
                t, "fleetsweep_coordinator_audit_verdict",
                {{"sweep", "runner"}, {"parameter", "A"}, {"verdict", "not_injected"}}),
            1)
      << t;
}

// Progress (the configurations' states) is published, no best configuration.
void ExpectProgressOnly(const std::string& t) {
  EXPECT_EQ(metrics_testing::Value(t, "fleetsweep_coordinator_configurations",
                                   {{"sweep", "runner"}, {"state", "done"}}),
            3);
  EXPECT_FALSE(metrics_testing::Value(t, "fleetsweep_coordinator_best_value",
                                      {{"sweep", "runner"}, {"metric", "t"}})
                   .has_value());
}

TEST(LiveAudits, PublishesProgressBestAndAuditsFromHandedAttemptsOnTheirInterval) {
  FinishedSweep f;
  ASSERT_NO_FATAL_FAILURE(RunFinishedSweep(&f));
  auto exposer = metrics_testing::StartLoopback();
  ASSERT_TRUE(exposer);
  CoordinatorMetrics m(exposer->registry(), "runner");
  // Starts from the pending records, as a fresh sweep does; everything arrives in batches.
  std::vector<v1::ConfigRecord> pending = f.Records();
  for (auto& r : pending) r.set_state(v1::CONFIG_STATE_PENDING);
  LiveAudits audits(f.spec, &m, LiveAuditOptions{}, pending, std::vector<v1::Attempt>{});
  audits.Hand(f.Batch(1000, true));
  audits.Drain();
  EXPECT_EQ(audits.aggregate_rounds(), 1);
  ExpectSweepPublished(metrics_testing::Scrape(*exposer));
  // The aggregate is published every 2 s of the batches' clock, not on every batch.
  audits.Hand(f.Batch(1001, false));
  audits.Drain();
  EXPECT_EQ(audits.aggregate_rounds(), 1);
  audits.Hand(f.Batch(1002, false));
  audits.Drain();
  EXPECT_EQ(audits.aggregate_rounds(), 2);
}

// A fresh sweep's live audits start with no configuration at all (not the whole space): each
// one enters with the first batch that hands its attempts and record.
TEST(LiveAudits, ConfigurationsEnterWithTheirFirstAttempts) {
  FinishedSweep f;
  ASSERT_NO_FATAL_FAILURE(RunFinishedSweep(&f));
  auto exposer = metrics_testing::StartLoopback();
  ASSERT_TRUE(exposer);
  CoordinatorMetrics m(exposer->registry(), "runner");
  LiveAudits audits(f.spec, &m, LiveAuditOptions{}, {}, std::vector<v1::Attempt>{});
  const std::string first_key = f.counted.front().config_key();
  LiveBatch first = f.Batch(1000, false), rest = f.Batch(1002, false);
  for (const auto& a : f.counted)
    (a.config_key() == first_key ? first : rest).attempts.push_back(a);
  for (const auto& r : f.Records())
    (r.config_key() == first_key ? first : rest).records.push_back(r);
  ASSERT_FALSE(rest.attempts.empty());
  audits.Hand(std::move(first));
  audits.Drain();
  EXPECT_EQ(metrics_testing::CountSeries(metrics_testing::Scrape(*exposer),
                                         "fleetsweep_coordinator_top_config_value"),
            1);
  audits.Hand(std::move(rest));
  audits.Drain();
  EXPECT_EQ(audits.aggregate_rounds(), 2);
  ExpectSweepPublished(metrics_testing::Scrape(*exposer));
}

TEST(LiveAudits, StartsFromTheAttemptsCountedBeforeServing) {
  FinishedSweep f;
  ASSERT_NO_FATAL_FAILURE(RunFinishedSweep(&f));
  auto exposer = metrics_testing::StartLoopback();
  ASSERT_TRUE(exposer);
  CoordinatorMetrics m(exposer->registry(), "runner");
  auto stored = f.store->LoadAttempts(f.spec.name);
  ASSERT_TRUE(stored.ok());
  LiveAudits audits(f.spec, &m, LiveAuditOptions{}, f.Records(), *stored);
  audits.Hand(f.Batch(0, false));
  audits.Drain();
  EXPECT_EQ(audits.aggregate_rounds(), 1);
  ExpectSweepPublished(metrics_testing::Scrape(*exposer));
}

TEST(LiveAudits, PastMaxLiveAttemptsPublishesProgressOnly) {
  FinishedSweep f;
  ASSERT_NO_FATAL_FAILURE(RunFinishedSweep(&f));
  auto exposer = metrics_testing::StartLoopback();
  ASSERT_TRUE(exposer);
  CoordinatorMetrics m(exposer->registry(), "runner");
  LiveAuditOptions o;
  o.max_live_attempts = 8;  // the sweep counted 9
  LiveAudits audits(f.spec, &m, o, f.Records(), std::vector<v1::Attempt>{});
  EXPECT_TRUE(audits.aggregating());
  audits.Hand(f.Batch(0, true));
  audits.Drain();
  EXPECT_EQ(audits.aggregate_rounds(), 0);
  EXPECT_FALSE(audits.aggregating()) << "the runner stops handing attempts over";
  ExpectProgressOnly(metrics_testing::Scrape(*exposer));
}

// At the default bound: exactly max_live_attempts counted attempts are still aggregated (the
// audit thread holds no copy of them, only the compact log), one more drops the aggregate.
TEST(LiveAudits, TheDefaultBoundAggregatesUpToItAndNotPast) {
  FinishedSweep f;
  ASSERT_NO_FATAL_FAILURE(RunFinishedSweep(&f));
  auto exposer = metrics_testing::StartLoopback();
  ASSERT_TRUE(exposer);
  CoordinatorMetrics m(exposer->registry(), "runner");
  const LiveAuditOptions o;
  LiveAudits audits(f.spec, &m, o, f.Records(), std::vector<v1::Attempt>{});
  int64_t handed = 0;
  while (handed < o.max_live_attempts) {  // the sweep's attempts over and over, in batches
    LiveBatch b = f.Batch(0, false);
    for (int i = 0; i < 10000 && handed < o.max_live_attempts; ++i, ++handed) {
      b.attempts.push_back(f.counted[static_cast<size_t>(handed) % f.counted.size()]);
    }
    b.records = f.Records();
    audits.Hand(std::move(b));
    audits.Drain();
  }
  EXPECT_TRUE(audits.aggregating());
  EXPECT_EQ(audits.aggregate_rounds(), 1);  // the first batch's (the clock stood still)
  ExpectSweepPublished(metrics_testing::Scrape(*exposer));
  LiveBatch one = f.Batch(10, false);
  one.attempts.push_back(f.counted.front());
  audits.Hand(std::move(one));
  audits.Drain();
  EXPECT_FALSE(audits.aggregating());
  EXPECT_EQ(audits.aggregate_rounds(), 1) << "a round past the bound";
}

TEST(LiveAudits, UnknownEarlierAttemptsPublishProgressOnly) {
  FinishedSweep f;
  ASSERT_NO_FATAL_FAILURE(RunFinishedSweep(&f));
  auto exposer = metrics_testing::StartLoopback();
  ASSERT_TRUE(exposer);
  CoordinatorMetrics m(exposer->registry(), "runner");
  // A resumed sweep whose earlier attempts could not be read: a best from the new attempts
  // alone would be wrong, so none is published.
  LiveAudits audits(f.spec, &m, LiveAuditOptions{}, f.Records(), std::nullopt);
  EXPECT_FALSE(audits.aggregating());
  audits.Hand(f.Batch(0, true));
  audits.Drain();
  EXPECT_EQ(audits.aggregate_rounds(), 0);
  ExpectProgressOnly(metrics_testing::Scrape(*exposer));
}

TEST(LiveAudits, WithoutMetricsDoesNothing) {
  auto spec = ParseSpecText(kSpec, "l.yaml");
  ASSERT_TRUE(spec.ok());
  LiveAudits audits(*spec, nullptr, LiveAuditOptions{}, {}, std::nullopt);
  audits.Hand(LiveBatch{});
  audits.Drain();
  EXPECT_EQ(audits.aggregate_rounds(), 0);
}

}  // namespace
}  // namespace fleetsweep
