// The report's panels beyond the ranking: parallel coordinates over the configurations' medians,
// and, drawn from the executions themselves (ReportExecutions), each configuration's
// distribution over its executions and the sweep's progress over time.
#include <algorithm>
#include <cmath>

#include "coordinator/report/html_util.h"
#include "coordinator/report/report_parts.h"
#include "coordinator/report/svg.h"

namespace fleetsweep::report {

void ParallelSection(const ReportData& d, std::ostringstream& o) {
  std::vector<ParallelAxis> axes;
  for (const auto& name : d.param_names) {
    if (d.constant_params.count(name)) continue;
    ParallelAxis a;
    a.name = name;
    for (const auto& c : d.configs) {
      if (c.n == 0 || !std::isfinite(c.median)) continue;
      auto it = c.params.find(name);
      const std::string level = it == c.params.end() ? "-" : it->second;
      if (std::find(a.levels.begin(), a.levels.end(), level) == a.levels.end()) {
        a.levels.push_back(level);
      }
    }
    std::sort(a.levels.begin(), a.levels.end(), LevelLess);
    axes.push_back(std::move(a));
  }
  std::vector<ParallelLine> lines;
  for (const auto& c : d.configs) {  // ranked: the best first
    if (c.n == 0 || !std::isfinite(c.median)) continue;
    ParallelLine l;
    l.label = "#" + std::to_string(c.rank) + " " + ParamsText(d, c.params);
    l.value = c.median;
    l.css_class = c.winner ? "winner" : (c.tied ? "tied" : "");
    for (const auto& a : axes) {
      auto it = c.params.find(a.name);
      const std::string level = it == c.params.end() ? "-" : it->second;
      l.levels.push_back(
          static_cast<int>(std::find(a.levels.begin(), a.levels.end(), level) - a.levels.begin()));
    }
    lines.push_back(std::move(l));
  }
  const std::string svg = SvgParallelCoordinates(axes, lines, d.metric);
  if (svg.empty()) return;
  o << "<section id=\"parallel\"><h2>Parallel coordinates</h2><p class=\"muted\">One line "
       "per configuration with results ("
    << lines.size() << "), through its level of each parameter that varies to its median "
    << HtmlEscape(d.metric)
    << " on the last axis; coloured from the best (green, drawn on top) "
       "to the worst (red); the winner is bold green, the tied set drawn thicker. Point at a line "
       "for "
       "its configuration.</p>"
    << svg << "</section>\n";
}

void DistributionsSection(const ReportData& d, const ReportExecutions& e, int max_rows,
                          std::ostringstream& o) {
  const bool any = std::any_of(e.values.begin(), e.values.end(),
                               [](const std::vector<double>& v) { return !v.empty(); });
  if (!any) return;
  std::vector<StripRow> rows;
  int with_results = 0;
  for (size_t i = 0; i < d.configs.size() && i < e.values.size(); ++i) {
    const auto& c = d.configs[i];
    const auto& values = e.values[i];
    if (values.empty()) continue;
    ++with_results;
    if (static_cast<int>(rows.size()) >= max_rows) continue;
    StripRow r;
    r.label = "#" + std::to_string(c.rank) + " " + ParamsText(d, c.params) + " (" +
              std::to_string(values.size()) + ")";
    r.values = values;
    r.marker = c.median;
    r.css_class = c.winner ? "winner" : (c.tied ? "tied" : "");
    rows.push_back(std::move(r));
  }
  o << "<section id=\"distributions\"><h2>Executions per configuration</h2><p class=\"muted\">"
       "Each dot is one execution (the median of its samples), the tick the configuration's "
       "median; the number of executions is in brackets. Executions, not samples, are the "
       "unit of evidence: samples inside one execution share its process, clocks and node.";
  if (with_results > static_cast<int>(rows.size())) {
    o << " The best " << rows.size() << " of " << with_results << " configurations are shown.";
  }
  o << "</p>" << SvgStripChart(rows, d.metric) << "</section>\n";
}

void ProgressSection(const ReportData& d, const ReportExecutions& e, std::ostringstream& o) {
  if (e.first_start_ms == INT64_MAX) return;
  const int failed = e.failed;
  std::vector<ProgressPoint> points;
  points.reserve(e.finished.size());
  for (const auto& [end_ms, value] : e.finished) {
    points.push_back({(end_ms - static_cast<double>(e.first_start_ms)) / 60000.0, value});
  }
  if (points.empty()) return;
  const size_t stride = ProgressStride(points.size());
  o << "<section id=\"progress\"><h2>Progress over time</h2><p class=\"muted\">"
    << (stride == 1 ? "Every successful execution's "
                    : "Every " + std::to_string(stride) +
                          "th successful execution's (in time order), and every one that set a "
                          "new best: ")
    << HtmlEscape(d.metric) << " when it finished (" << points.size() << " executions, " << failed
    << " failed), and the best execution so far (line, from every execution).</p>"
    << SvgProgressChart(points, d.lower_is_better, d.metric) << "</section>\n";
}

}  // namespace fleetsweep::report
