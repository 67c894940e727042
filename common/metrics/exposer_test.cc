// Tests of MetricsExposer (a real HTTP server on loopback port 0) and of the exposition format
// with `promtool check metrics`.
#include "common/metrics/exposer.h"

#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/metrics/coordinator_metrics.h"
#include "common/metrics/labels.h"
#include "common/metrics/metrics_test_util.h"
#include "common/metrics/worker_metrics.h"
#include "gtest/gtest.h"

namespace fleetsweep {
namespace {

using metrics_testing::FindPromtool;
using metrics_testing::HttpGet;
using metrics_testing::PromtoolCheck;
using metrics_testing::Scrape;
using metrics_testing::StartLoopback;

TEST(MetricsExposerTest, PortZeroPicksDistinctFreePortsAndServes) {
  auto a = StartLoopback();
  auto b = StartLoopback();
  ASSERT_TRUE(a && b);
  EXPECT_GT(a->port(), 0);
  EXPECT_GT(b->port(), 0);
  EXPECT_NE(a->port(), b->port());
  EXPECT_EQ(a->url(), "http://127.0.0.1:" + std::to_string(a->port()) + "/metrics");
  auto r = HttpGet(a->port(), "/metrics");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
}

TEST(MetricsExposerTest, BusyPortIsUnavailableNotAnException) {
  auto a = StartLoopback();
  ASSERT_TRUE(a);
  auto b = MetricsExposer::Start(a->port(), "127.0.0.1");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(b.status().message().find(std::to_string(a->port())), std::string::npos);
}

TEST(MetricsExposerTest, PortOutOfRangeIsInvalidArgument) {
  EXPECT_EQ(MetricsExposer::Start(70000).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(MetricsExposer::Start(-1).status().code(), StatusCode::kInvalidArgument);
}

TEST(MetricsExposerTest, StopsServingWhenDestroyed) {
  auto a = StartLoopback();
  ASSERT_TRUE(a);
  const int port = a->port();
  a.reset();
  EXPECT_FALSE(HttpGet(port, "/metrics").has_value());
}

TEST(PromtoolTest, ScrapedExpositionPassesPromtoolCheckMetrics) {
  const std::string promtool = FindPromtool();
  if (promtool.empty()) GTEST_SKIP() << "promtool not found (Debian package `prometheus`)";
  auto exposer = StartLoopback();
  ASSERT_TRUE(exposer);
  CoordinatorMetrics c(exposer->registry(), "s1");
  WorkerMetrics w(exposer->registry(), "node-a");
  c.SetConfigStates(1, 1, 1, 1);
  c.IncAttempts(false, "signal");
  c.SetBest("time_ms", 1, 0.9, 1.1);
  c.SetNodeEffect("node-a", 1, 0.9, 1.1);
  c.SetAuditVerdict("p", "injected");
  c.ObserveStoreLatency("load_configs", 0.01);
  c.SetTopConfigs({{"p=1", 1.0}});
  w.IncExecutions(true, "");
  w.ObserveExecutionSeconds(1);
  w.IncSamples("0", 1);
  w.SetLastSample("s1", "time_ms", 1);
  const std::string t = Scrape(*exposer);
  ASSERT_FALSE(t.empty());
  auto [rc, out] = PromtoolCheck(promtool, t);
  EXPECT_EQ(rc, 0) << "promtool check metrics said:\n" << out;

  // The check has teeth: a counter without _total is rejected.
  auto [bad_rc, bad_out] = PromtoolCheck(
      promtool, "# HELP fleetsweep_bad Bad.\n# TYPE fleetsweep_bad counter\nfleetsweep_bad 1\n");
  EXPECT_NE(bad_rc, 0) << bad_out;
}

}  // namespace
}  // namespace fleetsweep
