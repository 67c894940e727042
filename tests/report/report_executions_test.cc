// Unit tests of the report's executions panels: ExecutionCollector's one pass, and WriteReport
// streaming the executions (for_each_attempt) to the same page a vector gives.
#include "coordinator/report/report_executions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "coordinator/report/report.h"
#include "coordinator/report/report_data.h"
#include "tests/report/report_fixtures.h"

namespace fleetsweep {
namespace {

using nlohmann::json;
using report_fixtures::Results;

v1::Attempt Exec(const std::string& key, std::vector<double> samples, bool ok = true,
                 bool reference = false, int64_t started_ms = 60000, double duration_s = 1) {
  v1::Attempt a;
  a.set_config_key(key);
  a.set_ok(ok);
  a.set_reference(reference);
  a.set_started_unix_ms(started_ms);
  a.set_duration_seconds(duration_s);
  for (double v : samples) {
    auto* s = a.add_samples();
    s->set_metric("time_ms");
    s->set_value(v);
  }
  return a;
}

std::vector<v1::Attempt> Executions() {
  return {Exec("k2", {2.0, 2.2}),
          Exec("k1", {1.0, 3.0, 1.2}),
          Exec("k1", {0.9}),
          Exec("k1", {5.0}, /*ok=*/false),
          Exec("k3", {NAN}),
          Exec("k1", {7.0}, true, /*reference=*/true, /*started_ms=*/1000),
          Exec("other", {4.0}, true, false, 120000, 2),
          Exec("k2", {2.5}, true, false, 0)};
}

std::string SectionOf(const std::string& html, const std::string& id) {
  const size_t at = html.find("<section id=\"" + id + "\">");
  if (at == std::string::npos) return "";
  return html.substr(at, html.find("</section>", at) - at);
}

TEST(ReportExecutions, OnePassKeepsRankedValuesAndEveryFinishedExecution) {
  const json r = Results();
  const report::ReportData d = report::BuildReportData(r);
  report::ExecutionCollector collect(d);
  for (const auto& a : Executions()) collect.Add(a);
  const report::ReportExecutions e = collect.Take();
  ASSERT_EQ(e.values.size(), d.configs.size());
  EXPECT_EQ(e.values[0], (std::vector<double>{1.2, 0.9}));  // k1: failed and reference left out
  EXPECT_EQ(e.values[1], (std::vector<double>{2.1, 2.5}));  // k2: medians, unstarted kept
  EXPECT_TRUE(e.values[2].empty());                         // k3: no finite sample
  EXPECT_EQ(e.first_start_ms, 1000);                        // the reference started first
  EXPECT_EQ(e.failed, 1);
  // Started, ok, not reference: k2, k1, k1, k3 (NaN value), other; not the unstarted k2.
  ASSERT_EQ(e.finished.size(), 5u);
  EXPECT_DOUBLE_EQ(e.finished[4].first, 122000);
  EXPECT_DOUBLE_EQ(e.finished[4].second, 4.0);
  EXPECT_TRUE(std::isnan(e.finished[3].second));
}

TEST(Report, StreamedExecutionsDrawTheSamePanelsAsAVectorAndAFailedStreamDrawsNone) {
  const auto attempts = Executions();
  ReportOptions from_vector;
  from_vector.attempts = &attempts;
  auto a = RenderReportHtml(Results(), from_vector);
  ASSERT_TRUE(a.ok());
  const std::string dist = SectionOf(*a, "distributions"), prog = SectionOf(*a, "progress");
  ASSERT_FALSE(dist.empty());
  ASSERT_FALSE(prog.empty());
  EXPECT_NE(prog.find("(5 executions, 1 failed)"), std::string::npos) << prog;
  EXPECT_NE(dist.find("#1 BM=16 ORDER=ijk (2)"), std::string::npos) << dist;

  // WriteReport with a streamed source gives the same page.
  const std::string dir = testing::TempDir() + "/report_stream";
  std::filesystem::create_directories(dir);
  {
    std::ofstream f(dir + "/results.json");
    f << Results().dump();
  }
  int visits = 0;
  ReportOptions streamed;
  streamed.for_each_attempt = [&](const std::function<Status(const v1::Attempt&)>& visit) {
    for (const auto& x : attempts) {
      ++visits;
      FS_RETURN_IF_ERROR(visit(x));
    }
    return Status::Ok();
  };
  ASSERT_TRUE(WriteReport(dir, streamed).ok());
  EXPECT_EQ(visits, static_cast<int>(attempts.size()));
  std::ifstream in(dir + "/report.html");
  std::stringstream page;
  page << in.rdbuf();
  EXPECT_EQ(SectionOf(page.str(), "distributions"), dist);
  EXPECT_EQ(SectionOf(page.str(), "progress"), prog);

  ReportOptions failing;
  failing.for_each_attempt = [](const std::function<Status(const v1::Attempt&)>&) {
    return Status::Unavailable("store gone");
  };
  ASSERT_TRUE(WriteReport(dir, failing).ok());  // the page is still written, without the panels
  std::ifstream in2(dir + "/report.html");
  std::stringstream page2;
  page2 << in2.rdbuf();
  EXPECT_NE(page2.str().find("id=\"ranking\""), std::string::npos);
  EXPECT_EQ(page2.str().find("id=\"distributions\""), std::string::npos);
  EXPECT_EQ(page2.str().find("id=\"progress\""), std::string::npos);
}

}  // namespace
}  // namespace fleetsweep
