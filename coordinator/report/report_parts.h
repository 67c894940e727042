// Internal to the report page (report_html.cc, report_sections.cc): shared helpers and the
// sections that show the audit findings. Not a public interface. Pure functions; thread-safe.
#pragma once

#include <map>
#include <sstream>
#include <string>

#include "common/status.h"
#include "coordinator/report/report.h"
#include "coordinator/report/report_data.h"
#include "coordinator/report/report_executions.h"
#include "fleetsweep/v1/data.pb.h"
#include "nlohmann/json.hpp"

namespace fleetsweep::report {

// "a=1 b=x" over the parameters that vary between configurations.
std::string ParamsText(const ReportData& d, const std::map<std::string, std::string>& p);
// Coloured tags and details for one parameter's audit object (ReportData effects[].audit).
std::string VerdictTags(const nlohmann::json& audit);
// A list of JSON objects (or an object keyed by name) as a table with the union of their keys.
void JsonTable(const nlohmann::json& list, std::ostringstream& o);
// The sections with ids "infeasible", "nodes" and "fingerprints", and "other".
void InfeasibleSection(const nlohmann::json& r, const ReportData& d, std::ostringstream& o);
void NodesSection(const nlohmann::json& r, const ReportData& d, std::ostringstream& o);
void OtherSection(const nlohmann::json& r, std::ostringstream& o);
// "parallel" (report_panels.cc): parallel coordinates over the parameters that vary, one line
// per configuration with results, best on top. Nothing when no parameter varies.
void ParallelSection(const ReportData& d, std::ostringstream& o);
// From the executions (report_panels.cc): "distributions" (each configuration's executions, the
// best `max_rows`) and "progress" (values over time, best so far). Nothing without executions.
void DistributionsSection(const ReportData& d, const ReportExecutions& e, int max_rows,
                          std::ostringstream& o);
void ProgressSection(const ReportData& d, const ReportExecutions& e, std::ostringstream& o);

// RenderReportHtml with the executions already gathered (WriteReport streams them); null: as
// RenderReportHtml, from options.attempts when set, else no distributions or progress panels.
StatusOr<std::string> RenderWithExecutions(const nlohmann::json& results,
                                           const ReportOptions& options,
                                           const ReportExecutions* executions);

}  // namespace fleetsweep::report
