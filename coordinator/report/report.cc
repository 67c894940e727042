#include "coordinator/report/report.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "coordinator/report/sweep_inputs.h"

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
  ReportOptions with_attempts = options;
  StatusOr<SweepInputs> inputs = Status::NotFound("");
  if (options.attempts == nullptr) {
    inputs = LoadSweepInputs(dir);  // a locked or missing store leaves attempts empty
    if (inputs.ok()) with_attempts.attempts = &inputs->attempts;
  }
  FS_ASSIGN_OR_RETURN(std::string html, RenderReportHtml(results, with_attempts));
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
