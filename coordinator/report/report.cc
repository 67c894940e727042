#include "coordinator/report/report.h"

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

#include "common/store/store.h"
#include "coordinator/report/report_data.h"
#include "coordinator/report/report_executions.h"
#include "coordinator/report/sweep_inputs.h"
#include "spdlog/spdlog.h"

namespace fleetsweep {

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
  ReportOptions with_executions = options;
  report::ReportExecutions executions;
  if (options.executions == nullptr && options.attempts == nullptr) {
    auto for_each = options.for_each_attempt;
    std::unique_ptr<ResultStore> store;  // DIR/store, when neither source was given
    const std::string sweep = results.value("sweep", "");
    if (!for_each) {
      auto opened = OpenEmbeddedStore(dir);  // a locked or missing store: no panels
      if (opened.ok()) {
        store = std::move(*opened);
        for_each = [&](const std::function<Status(const v1::Attempt&)>& visit) {
          return store->ForEachAttempt(sweep, visit);
        };
      }
    }
    if (for_each) {
      const report::ReportData d = report::BuildReportData(results);
      report::ExecutionCollector collect(d);
      Status read = for_each([&](const v1::Attempt& a) {
        collect.Add(a);
        return Status::Ok();
      });
      if (read.ok()) {
        executions = collect.Take();
        with_executions.executions = &executions;
      } else {
        spdlog::warn("report: executions not read ({}): no distributions or progress panels",
                     read.message());
      }
    }
  }
  FS_ASSIGN_OR_RETURN(std::string html, RenderReportHtml(results, with_executions));
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
