// The report's panels beyond the ranking: parallel coordinates over the configurations' medians,
// and, drawn from the executions themselves (ReportOptions::attempts), each configuration's
// distribution over its executions and the sweep's progress over time.
#include <algorithm>
#include <cmath>
#include <map>

#include "coordinator/report/html_util.h"
#include "coordinator/report/report_parts.h"
#include "coordinator/report/svg.h"

namespace fleetsweep::report {
namespace {

// The median of one execution's samples of `metric`; NaN when it has none.
double ExecutionValue(const v1::Attempt& a, const std::string& metric) {
  std::vector<double> v;
  for (const auto& s : a.samples()) {
    if (s.metric() == metric && std::isfinite(s.value())) v.push_back(s.value());
  }
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

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

void DistributionsSection(const ReportData& d, const std::vector<v1::Attempt>& attempts,
                          int max_rows, std::ostringstream& o) {
  std::map<std::string, std::vector<double>> by_config;
  for (const auto& a : attempts) {
    if (a.reference() || !a.ok()) continue;
    const double v = ExecutionValue(a, d.metric);
    if (std::isfinite(v)) by_config[a.config_key()].push_back(v);
  }
  if (by_config.empty()) return;
  std::vector<StripRow> rows;
  int with_results = 0;
  for (const auto& c : d.configs) {
    auto it = by_config.find(c.key);
    if (it == by_config.end()) continue;
    ++with_results;
    if (static_cast<int>(rows.size()) >= max_rows) continue;
    StripRow r;
    r.label = "#" + std::to_string(c.rank) + " " + ParamsText(d, c.params) + " (" +
              std::to_string(it->second.size()) + ")";
    r.values = it->second;
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

void ProgressSection(const ReportData& d, const std::vector<v1::Attempt>& attempts,
                     std::ostringstream& o) {
  int64_t start = INT64_MAX;
  for (const auto& a : attempts) {
    if (a.started_unix_ms() > 0) start = std::min<int64_t>(start, a.started_unix_ms());
  }
  if (start == INT64_MAX) return;
  std::vector<ProgressPoint> points;
  int failed = 0;
  for (const auto& a : attempts) {
    if (a.reference() || a.started_unix_ms() <= 0) continue;
    if (!a.ok()) {
      ++failed;
      continue;
    }
    const double end_ms = a.started_unix_ms() + 1000.0 * a.duration_seconds();
    points.push_back({(end_ms - start) / 60000.0, ExecutionValue(a, d.metric)});
  }
  if (points.empty()) return;
  o << "<section id=\"progress\"><h2>Progress over time</h2><p class=\"muted\">Every successful "
       "execution's "
    << HtmlEscape(d.metric) << " when it finished (" << points.size() << " executions, " << failed
    << " failed), and the best execution so far (line).</p>"
    << SvgProgressChart(points, d.lower_is_better, d.metric) << "</section>\n";
}

}  // namespace fleetsweep::report
