// The sweep report: ONE self-contained HTML page (inline CSS and inline SVG, no JavaScript, no
// external resources) built from a results.json document (docs/results.md, docs/report.md).
//
// Thread-safety: pure functions apart from the file I/O of WriteReport; thread-safe.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "fleetsweep/v1/data.pb.h"
#include "nlohmann/json.hpp"

namespace fleetsweep {

struct ReportOptions {
  // Parameters of the heatmap. Empty: the two swept parameters with the largest effect.
  std::string x_param, y_param;
  int max_ranked_rows = 40;  // rows of the table and of the distributions panel
  // The sweep's executions, for the distributions and progress panels, as a vector (not owned;
  // may be null) or, for WriteReport only, streamed: for_each_attempt calls its argument once per
  // attempt (a store's ForEachAttempt), so no copy of every attempt is held. With neither,
  // WriteReport streams them from DIR/store when it is there and not locked, and
  // RenderReportHtml leaves the panels out. A failed stream leaves the panels out too.
  const std::vector<v1::Attempt>* attempts = nullptr;
  std::function<Status(const std::function<Status(const v1::Attempt&)>&)> for_each_attempt;
};

// Renders the page. kInvalidArgument when x_param / y_param name no parameter of the sweep.
// Every string from the document is HTML-escaped.
StatusOr<std::string> RenderReportHtml(const nlohmann::json& results,
                                       const ReportOptions& options = {});

// Reads DIR/results.json (and, without options.attempts or for_each_attempt, streams the
// executions from DIR/store when it is there and not locked) and writes DIR/report.html (via a
// temporary file and rename). Errors: kNotFound when results.json is missing, kInvalidArgument when
// it is not JSON or the heatmap parameters are unknown, kUnavailable when report.html cannot be
// written.
Status WriteReport(const std::string& dir, const ReportOptions& options = {});

}  // namespace fleetsweep
