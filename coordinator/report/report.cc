#include "coordinator/report/report.h"

#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>

#include "common/store/store.h"
#include "coordinator/report/report_data.h"
#include "coordinator/report/report_executions.h"
#include "coordinator/report/report_parts.h"
#include "coordinator/report/sweep_inputs.h"
#include "spdlog/spdlog.h"

namespace fleetsweep {
namespace {

using Visitor = std::function<Status(const v1::Attempt&)>;

// The panels' executions in one pass over options.attempts, else options.for_each_attempt, else
// DIR/store's attempts (streamed). nullopt when there is no source (a missing or locked store)
// or reading failed (logged): the page is then written without those panels.
std::optional<report::ReportExecutions> GatherExecutions(const std::string& dir,
                                                         const nlohmann::json& results,
                                                         const ReportOptions& options) {
  auto for_each = options.for_each_attempt;
  if (options.attempts != nullptr) {
    for_each = [&](const Visitor& visit) {
      for (const auto& a : *options.attempts) FS_RETURN_IF_ERROR(visit(a));
      return Status::Ok();
    };
  }
  std::unique_ptr<ResultStore> store;
  const std::string sweep = results.value("sweep", "");
  if (!for_each) {
    auto opened = OpenEmbeddedStore(dir);
    if (!opened.ok()) return std::nullopt;
    store = std::move(*opened);
    for_each = [&](const Visitor& visit) { return store->ForEachAttempt(sweep, visit); };
  }
  const report::ReportData d = report::BuildReportData(results);
  report::ExecutionCollector collect(d);
  Status read = for_each([&](const v1::Attempt& a) {
    collect.Add(a);
    return Status::Ok();
  });
  if (!read.ok()) {
    spdlog::warn("report: executions not read ({}): no distributions or progress panels",
                 read.message());
    return std::nullopt;
  }
  return collect.Take();
}

}  // namespace

Status WriteReport(const std::string& dir, const ReportOptions& options) {
  const std::string in_path = dir + "/results.json";
  std::ifstream in(in_path, std::ios::binary);
  if (!in) return Status::NotFound(in_path + ": cannot read (run the sweep first)");
  std::stringstream buf;
  buf << in.rdbuf();
  nlohmann::json results = nlohmann::json::parse(buf.str(), nullptr, /*allow_exceptions=*/false);
  if (results.is_discarded() || !results.is_object()) {
    return Status::InvalidArgument(in_path + ": not a JSON object");
  }
  const std::optional<report::ReportExecutions> executions =
      GatherExecutions(dir, results, options);
  FS_ASSIGN_OR_RETURN(std::string html, report::RenderWithExecutions(
                                            results, options, executions ? &*executions : nullptr));
  const std::string path = dir + "/report.html", tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Status::Unavailable(tmp + ": cannot write");
    out << html;
    if (!out.flush()) return Status::Unavailable(tmp + ": write failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return Status::Unavailable(path + ": cannot rename from " + tmp);
  }
  return Status::Ok();
}

}  // namespace fleetsweep
