// Tests of CoordinatorMetrics and WorkerMetrics: values set through the classes are read back
// from a real exposer scraped over loopback HTTP.
#include <cmath>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/metrics/coordinator_metrics.h"
#include "common/metrics/exposer.h"
#include "common/metrics/labels.h"
#include "common/metrics/metrics_test_util.h"
#include "common/metrics/worker_metrics.h"
#include "gtest/gtest.h"

namespace fleetsweep {
namespace {

using metrics_testing::CountSeries;
using metrics_testing::LabelMap;
using metrics_testing::Scrape;
using metrics_testing::StartLoopback;
using metrics_testing::Value;

TEST(CoordinatorMetricsTest, ValuesAppearInTheScrape) {
  auto exposer = StartLoopback();
  ASSERT_TRUE(exposer);
  CoordinatorMetrics m(exposer->registry(), "s1");
  m.SetConfigStates(5, 2, 3, 1);
  m.SetConfigsTotal(11);
  m.IncAttempts(true, "");
  m.IncAttempts(true, "ignored when ok");
  m.IncAttempts(false, "FAILURE_CLASS_TIMEOUT");
  m.IncAttempts(false, "timeout");
  m.IncAttempts(false, "out_of_memory");
  m.IncLeasesGranted();
  m.IncLeasesGranted();
  m.IncLeasesExpired();
  m.IncRetries();
  m.IncDuplicateResults();
  m.IncRefusedResults();
  m.IncRefusedResults();
  m.SetStoreWritable(false);
  m.SetWorkersConnected(2);
  m.SetSlots(4, 3);
  m.IncSamplesStored(7);
  m.IncSamplesStored(5);
  m.SetBest("time_ms", 1.5, 1.4, 1.6);
  m.SetNodeEffect("node-a", 1.02, 0.99, 1.05);
  m.ObserveStoreLatency("put_attempt", 0.002);
  m.ObserveStoreLatency("put_attempt", 0.004);

  const std::string t = Scrape(*exposer);
  const LabelMap s = {{"sweep", "s1"}};
  EXPECT_EQ(
      Value(t, "fleetsweep_coordinator_configurations", {{"sweep", "s1"}, {"state", "pending"}}),
      5);
  EXPECT_EQ(
      Value(t, "fleetsweep_coordinator_configurations", {{"sweep", "s1"}, {"state", "leased"}}), 2);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_configurations", {{"sweep", "s1"}, {"state", "done"}}),
            3);
  EXPECT_EQ(
      Value(t, "fleetsweep_coordinator_configurations", {{"sweep", "s1"}, {"state", "infeasible"}}),
      1);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_configurations_planned", s), 11);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_attempts_total",
                  {{"sweep", "s1"}, {"result", "ok"}, {"failure_class", "none"}}),
            2);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_attempts_total",
                  {{"result", "failed"}, {"failure_class", "timeout"}}),
            2);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_attempts_total",
                  {{"result", "failed"}, {"failure_class", "out_of_memory"}}),
            1);
  // Classes never seen exist at 0, so rate() has series from the first scrape.
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_attempts_total",
                  {{"result", "failed"}, {"failure_class", "wrong_result"}}),
            0);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_leases_granted_total", s), 2);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_leases_expired_total", s), 1);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_retries_total", s), 1);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_duplicate_results_total", s), 1);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_refused_results_total", s), 2);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_store_writable", s), 0);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_workers_connected", s), 2);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_slots", {{"state", "busy"}}), 3);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_slots", {{"state", "free"}}), 1);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_samples_stored_total", s), 12);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_best_value", {{"metric", "time_ms"}}), 1.5);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_best_ci_lower", {{"metric", "time_ms"}}), 1.4);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_best_ci_upper", {{"metric", "time_ms"}}), 1.6);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_node_effect", {{"node", "node-a"}}), 1.02);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_node_effect_ci_lower", {{"node", "node-a"}}), 0.99);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_node_effect_ci_upper", {{"node", "node-a"}}), 1.05);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_store_operation_duration_seconds_count",
                  {{"op", "put_attempt"}}),
            2);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_store_operation_duration_seconds_bucket",
                  {{"op", "put_attempt"}, {"le", "0.0025"}}),
            1);
}

TEST(CoordinatorMetricsTest, FailureClassLabelsAreBounded) {
  auto exposer = StartLoopback();
  ASSERT_TRUE(exposer);
  CoordinatorMetrics m(exposer->registry(), "s1");
  for (int i = 0; i < 50; ++i) m.IncAttempts(false, "stderr line " + std::to_string(i));
  m.IncAttempts(false, "");
  const std::string t = Scrape(*exposer);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_attempts_total", {{"failure_class", "other"}}), 50);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_attempts_total", {{"failure_class", "unknown"}}), 1);
  // ok/none + one series per known class, whatever the callers passed.
  EXPECT_EQ(CountSeries(t, "fleetsweep_coordinator_attempts_total"),
            1 + static_cast<int>(metrics::KnownFailureClasses().size()));
}

TEST(CoordinatorMetricsTest, AuditVerdictIsOneHot) {
  auto exposer = StartLoopback();
  ASSERT_TRUE(exposer);
  CoordinatorMetrics m(exposer->registry(), "s1");
  m.SetAuditVerdict("BLOCK_SIZE_M", "injected");
  m.SetAuditVerdict("BLOCK_SIZE_N", "not_injected");
  m.SetAuditVerdict("BLOCK_SIZE_N", "no_effect");
  const std::string t = Scrape(*exposer);
  auto v = [&](const std::string& p, const std::string& verdict) {
    return Value(t, "fleetsweep_coordinator_audit_verdict",
                 {{"parameter", p}, {"verdict", verdict}});
  };
  EXPECT_EQ(v("BLOCK_SIZE_M", "injected"), 1);
  EXPECT_EQ(v("BLOCK_SIZE_M", "not_injected"), 0);
  EXPECT_EQ(v("BLOCK_SIZE_N", "no_effect"), 1);
  EXPECT_EQ(v("BLOCK_SIZE_N", "not_injected"), 0);
  EXPECT_EQ(v("BLOCK_SIZE_N", "no_fingerprint"), 0);
  EXPECT_EQ(CountSeries(t, "fleetsweep_coordinator_audit_verdict"), 8);  // 2 params x 4 verdicts
}

TEST(CoordinatorMetricsTest, TopConfigsKeepsAtMostTenAndDropsOldSeries) {
  auto exposer = StartLoopback();
  ASSERT_TRUE(exposer);
  CoordinatorMetrics m(exposer->registry(), "s1");
  std::vector<std::pair<std::string, double>> first;
  for (int i = 0; i < 15; ++i) first.push_back({"M=" + std::to_string(i), 1.0 + i});
  m.SetTopConfigs(first);
  std::string t = Scrape(*exposer);
  EXPECT_EQ(CountSeries(t, "fleetsweep_coordinator_top_config_value"), 10);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_top_config_value", {{"rank", "1"}, {"config", "M=0"}}),
            1.0);
  EXPECT_EQ(
      Value(t, "fleetsweep_coordinator_top_config_value", {{"rank", "10"}, {"config", "M=9"}}),
      10.0);
  EXPECT_FALSE(Value(t, "fleetsweep_coordinator_top_config_value", {{"config", "M=10"}}));

  m.SetTopConfigs({{"M=7", 0.5}, {"M=0", 0.9}});
  t = Scrape(*exposer);
  EXPECT_EQ(CountSeries(t, "fleetsweep_coordinator_top_config_value"), 2);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_top_config_value", {{"rank", "1"}, {"config", "M=7"}}),
            0.5);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_top_config_value", {{"rank", "2"}, {"config", "M=0"}}),
            0.9);
  EXPECT_FALSE(
      Value(t, "fleetsweep_coordinator_top_config_value", {{"rank", "1"}, {"config", "M=0"}}));
}

TEST(CoordinatorMetricsTest, TwoSweepsShareOneRegistry) {
  auto exposer = StartLoopback();
  ASSERT_TRUE(exposer);
  CoordinatorMetrics a(exposer->registry(), "a");
  CoordinatorMetrics b(exposer->registry(), "b");
  a.SetConfigsTotal(3);
  b.SetConfigsTotal(4);
  a.SetTopConfigs({{"x", 1}});
  b.SetTopConfigs({{"y", 2}});
  b.SetTopConfigs({});
  const std::string t = Scrape(*exposer);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_configurations_planned", {{"sweep", "a"}}), 3);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_configurations_planned", {{"sweep", "b"}}), 4);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_top_config_value", {{"sweep", "a"}, {"config", "x"}}),
            1);
  EXPECT_EQ(CountSeries(t, "fleetsweep_coordinator_top_config_value"), 1);
}

TEST(CoordinatorMetricsTest, ConcurrentUpdatesAreCounted) {
  auto exposer = StartLoopback();
  ASSERT_TRUE(exposer);
  CoordinatorMetrics m(exposer->registry(), "s1");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&m, t] {
      for (int i = 0; i < 1000; ++i) {
        m.IncAttempts(i % 2 == 0, "timeout");
        m.IncSamplesStored(1);
        if (i % 100 == 0) m.SetTopConfigs({{"k" + std::to_string(t), i}});
      }
    });
  }
  for (int i = 0; i < 20; ++i) Scrape(*exposer);  // scrapes race the updates
  for (auto& th : threads) th.join();
  const std::string t = Scrape(*exposer);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_attempts_total", {{"result", "ok"}}), 2000);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_attempts_total", {{"failure_class", "timeout"}}),
            2000);
  EXPECT_EQ(Value(t, "fleetsweep_coordinator_samples_stored_total", {}), 4000);
  EXPECT_EQ(CountSeries(t, "fleetsweep_coordinator_top_config_value"), 1);
}

TEST(WorkerMetricsTest, ValuesAppearInTheScrape) {
  auto exposer = StartLoopback();
  ASSERT_TRUE(exposer);
  WorkerMetrics w(exposer->registry(), "node-a");
  w.IncExecutions(true, "");
  w.IncExecutions(false, "FAILURE_CLASS_WRONG_RESULT");
  w.ObserveExecutionSeconds(0.3);
  w.SetSlots(1, 2);
  w.IncSamples("0", 5);
  w.IncSamples("1", 2);
  w.IncSamples("0", 1);
  w.DeclareSweepMetrics("s1", {"time_ms"});
  w.SetLastSample("s1", "time_ms", 2.25);
  w.SetHeartbeatAgeSeconds(0.5);
  w.SetConnected(true);
  const std::string t = Scrape(*exposer);
  EXPECT_EQ(Value(t, "fleetsweep_worker_executions_total",
                  {{"node", "node-a"}, {"result", "ok"}, {"failure_class", "none"}}),
            1);
  EXPECT_EQ(Value(t, "fleetsweep_worker_executions_total", {{"failure_class", "wrong_result"}}), 1);
  EXPECT_EQ(Value(t, "fleetsweep_worker_executions_total", {{"failure_class", "timeout"}}), 0);
  EXPECT_EQ(Value(t, "fleetsweep_worker_execution_duration_seconds_count", {{"node", "node-a"}}),
            1);
  EXPECT_EQ(Value(t, "fleetsweep_worker_execution_duration_seconds_sum", {{"node", "node-a"}}),
            0.3);
  EXPECT_EQ(Value(t, "fleetsweep_worker_slots", {{"state", "busy"}}), 1);
  EXPECT_EQ(Value(t, "fleetsweep_worker_slots", {{"state", "free"}}), 2);
  EXPECT_EQ(Value(t, "fleetsweep_worker_samples_total", {{"device", "0"}}), 6);
  EXPECT_EQ(Value(t, "fleetsweep_worker_samples_total", {{"device", "1"}}), 2);
  EXPECT_EQ(
      Value(t, "fleetsweep_worker_last_sample_value", {{"sweep", "s1"}, {"metric", "time_ms"}}),
      2.25);
  EXPECT_EQ(Value(t, "fleetsweep_worker_heartbeat_age_seconds", {{"node", "node-a"}}), 0.5);
  EXPECT_EQ(Value(t, "fleetsweep_worker_connected", {{"node", "node-a"}}), 1);
  w.SetConnected(false);
  EXPECT_EQ(Value(Scrape(*exposer), "fleetsweep_worker_connected", {{"node", "node-a"}}), 0);
}

// Issue 15, item 14: the metric label comes from benchmark output; only declared metrics count.
TEST(WorkerMetricsTest, LastSampleSeriesAreBoundedByDeclaredMetrics) {
  auto exposer = StartLoopback();
  ASSERT_TRUE(exposer);
  WorkerMetrics w(exposer->registry(), "node-a");
  w.DeclareSweepMetrics("s1", {"time_ms", "tflops"});
  for (int i = 0; i < 500; ++i) w.SetLastSample("s1", "m" + std::to_string(i), i);
  w.SetLastSample("undeclared-sweep", "time_ms", 1);
  w.SetLastSample("s1", "time_ms", std::nan(""));
  w.SetLastSample("s1", "tflops", 7);
  EXPECT_EQ(CountSeries(Scrape(*exposer), "fleetsweep_worker_last_sample_value"), 1);
  for (int s = 2; s <= 10; ++s) {
    w.DeclareSweepMetrics("s" + std::to_string(s), {"time_ms"});
    w.SetLastSample("s" + std::to_string(s), "time_ms", s);
  }
  EXPECT_EQ(CountSeries(Scrape(*exposer), "fleetsweep_worker_last_sample_value"),
            static_cast<int>(WorkerMetrics::kMaxSweeps));
}

}  // namespace
}  // namespace fleetsweep
