// RenderReportHtml: the sections of the page. Data comes from report_data.h, charts from svg.h.
#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "coordinator/report/html_util.h"
#include "coordinator/report/report.h"
#include "coordinator/report/report_data.h"
#include "coordinator/report/report_parts.h"
#include "coordinator/report/svg.h"

namespace fleetsweep {
namespace {

using nlohmann::json;
using report::FormatNumber;
using report::HtmlEscape;

constexpr char kCss[] = R"css(
body{font-family:"DejaVu Sans",Helvetica,Arial,sans-serif;margin:24px 32px;color:#1d2430;background:#fff;max-width:1320px}
h1{font-size:26px;margin:0 0 4px}h2{font-size:19px;margin:28px 0 8px;border-bottom:2px solid #e3e7ee;padding-bottom:4px}
.sub{color:#5b6678;margin-bottom:14px}
.banner{padding:14px 18px;border-radius:6px;font-size:17px;margin:12px 0}
.banner.invalid{background:#c62828;color:#fff;font-weight:bold}.banner.valid{background:#e8f5e9;color:#1b5e20;border:1px solid #a5d6a7}
.banner.tie{background:#fff8e1;color:#6d4c00;border:1px solid #ffe082}
.banner ul{margin:6px 0 0 18px;font-weight:normal}
.cards{display:flex;flex-wrap:wrap;gap:10px}.card{background:#f4f6fa;border-radius:6px;padding:8px 14px;min-width:110px}
.card b{display:block;font-size:20px}.card span{color:#5b6678;font-size:12px}
table{border-collapse:collapse;font-size:13px;margin:6px 0}th,td{border-bottom:1px solid #e3e7ee;padding:4px 9px;text-align:left;vertical-align:top}
th{background:#f4f6fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.winner td{background:#e8f5e9;font-weight:bold}tr.tied td{background:#fffbe6}
.tag{display:inline-block;border-radius:4px;padding:1px 6px;font-size:12px;font-weight:bold}
.tag.bad{background:#c62828;color:#fff}.tag.warn{background:#f9a825;color:#222}.tag.ok{background:#2e7d32;color:#fff}.tag.info{background:#e3e7ee;color:#333}
.effects{display:flex;flex-wrap:wrap;gap:18px}.effect{border:1px solid #e3e7ee;border-radius:6px;padding:8px 12px}
.effect{max-width:610px}.effect .muted{font-size:12px;margin:3px 0}.effect h3{margin:0 0 4px;font-size:15px}
svg.chart{display:block;margin:6px 0}svg text{font-size:12px;fill:#1d2430}svg text.axislabel{font-weight:bold}svg text.note{fill:#5b6678;font-size:11px}
svg text.cell{font-size:11px}svg .grid{stroke:#e3e7ee}svg .axis{stroke:#7a8699}svg .stripe{fill:#f8f9fb}
svg .ci{stroke:#5c7cbd;stroke-width:2}svg .pt{fill:#2f4f9a}svg .ci.winner{stroke:#2e7d32}svg .pt.winner{fill:#2e7d32}
svg .ci.tied{stroke:#c98a00}svg .pt.tied{fill:#c98a00}svg text.winner{font-weight:bold;fill:#1b5e20}
svg .ci.range{stroke:#9aa5b8;stroke-dasharray:4 3}h3{font-size:15px}
svg .exe{fill:#2f4f9a;fill-opacity:.55}svg .exe.winner{fill:#2e7d32}svg .exe.tied{fill:#c98a00}
svg .med{stroke:#1d2430;stroke-width:2}svg .best{stroke:#2e7d32;stroke-width:2;fill:none}
svg .pc{fill:none;stroke-width:1.5;stroke-opacity:.6}svg .pc:hover{stroke-width:4;stroke-opacity:1}
svg .pc.winner{stroke:#1b5e20;stroke-width:3.5;stroke-opacity:1}svg .pc.tied{stroke-width:2.5;stroke-opacity:.9}
svg .pc-axis .axis{stroke:#1d2430;stroke-width:1.5}svg text.level{font-size:11px}
pre{background:#f4f6fa;padding:8px;font-size:12px;white-space:pre-wrap;word-break:break-all}
.muted{color:#7a8699}
)css";

void Summary(const json& r, const report::ReportData& d, std::ostringstream& o) {
  o << "<section id=\"summary\"><div class=\"cards\">";
  const json s = r.value("summary", json::object());
  // results.json names executions "attempts" (docs/results.md); the page says executions.
  static const std::pair<const char*, const char*> kCards[] = {
      {"configurations", "configurations"},
      {"done", "done"},
      {"infeasible", "infeasible"},
      {"unfinished", "unfinished"},
      {"attempts", "executions"},
      {"failed_attempts", "failed executions"},
      {"samples", "samples"}};
  for (const auto& [k, label] : kCards) {
    if (s.contains(k)) {
      o << "<div class=\"card\"><b>" << HtmlEscape(report::JsonText(s[k])) << "</b><span>" << label
        << "</span></div>";
    }
  }
  o << "<div class=\"card\"><b>" << d.nodes.size() << "</b><span>nodes</span></div>"
    << "<div class=\"card\"><b>" << d.distinct_fingerprints
    << "</b><span>distinct fingerprints</span></div></div>";
  if (!d.constant_params.empty()) {
    std::string fixed;
    for (const auto& [k, v] : d.constant_params) fixed += (fixed.empty() ? "" : " ") + k + "=" + v;
    o << "<p class=\"muted\">Same in every configuration (left out of the labels below): "
      << HtmlEscape(fixed) << "</p>";
  }
  o << "</section>\n";
}

void Verdict(const json& r, const report::ReportData& d, std::ostringstream& o) {
  o << "<section id=\"verdict\">";
  if (d.valid.has_value() && !*d.valid) {
    o << "<div class=\"banner invalid\">INVALID SWEEP: the audit says these measurements cannot "
         "be trusted";
    if (!d.invalid_reasons.empty()) {
      o << "<ul>";
      for (const auto& s : d.invalid_reasons) o << "<li>" << HtmlEscape(s) << "</li>";
      o << "</ul>";
    }
    o << "</div>";
  }
  const report::RankedConfig* win = nullptr;
  std::vector<const report::RankedConfig*> tied;
  for (const auto& c : d.configs) {
    if (c.winner) win = &c;
    if (c.tied) tied.push_back(&c);
  }
  if (win != nullptr) {
    o << "<div class=\"banner valid\">Winner: <b>" << HtmlEscape(report::ParamsText(d, win->params))
      << "</b> &mdash; " << HtmlEscape(d.metric) << " median " << FormatNumber(win->median) << " ["
      << FormatNumber(win->ci_low) << ", " << FormatNumber(win->ci_high)
      << "]; its 95% CI separates from every other configuration.</div>";
  } else if (!tied.empty()) {
    o << "<div class=\"banner tie\">No defensible winner: " << tied.size()
      << " configurations are statistically tied for best<ul>";
    for (size_t i = 0; i < tied.size() && i < 6; ++i) {
      o << "<li>" << HtmlEscape(report::ParamsText(d, tied[i]->params)) << " &mdash; "
        << FormatNumber(tied[i]->median) << "</li>";
    }
    if (tied.size() > 6) o << "<li>... and " << tied.size() - 6 << " more (amber below)</li>";
    o << "</ul></div>";
  } else {
    o << "<div class=\"banner tie\">No configuration produced samples.</div>";
  }
  if (r.contains("winner_rule") && r["winner_rule"].is_string()) {
    std::string rule = r["winner_rule"].get<std::string>();
    if (!rule.empty() && rule.back() != '.') rule += '.';
    o << "<p class=\"muted\">Winner rule: " << HtmlEscape(rule);
    const json t = r.contains("winner_test") ? r["winner_test"] : json();
    if (t.is_object()) {
      auto num = [&](const char* k) {
        return t.contains(k) && t[k].is_number() ? t[k].get<double>() : NAN;
      };
      o << " Best vs every other configuration: weakest p = " << FormatNumber(num("max_p"))
        << " (per comparison alpha " << FormatNumber(num("comparison_alpha")) << ", family-wise "
        << FormatNumber(num("family_alpha")) << ")"
        << (t.value("separated", false) ? " (separated)." : " (not separated).");
    }
    o << "</p>";
  }
  if (r.contains("warnings") && r["warnings"].is_array() && !r["warnings"].empty()) {
    o << "<ul class=\"warnings\">";
    for (const auto& w : r["warnings"]) o << "<li>" << HtmlEscape(report::JsonText(w)) << "</li>";
    o << "</ul>";
  }
  o << "</section>\n";
}

report::IntervalRow RankRow(const report::ReportData& d, const report::RankedConfig& c) {
  report::IntervalRow row;
  row.label = "#" + std::to_string(c.rank) + " " + report::ParamsText(d, c.params);
  row.median = c.median;
  row.lo = c.ci_low;
  row.hi = c.ci_high;
  row.has_ci = std::isfinite(c.ci_low) && std::isfinite(c.ci_high);
  row.css_class = c.winner ? "winner" : (c.tied ? "tied" : "");
  return row;
}

// Every configuration with samples on one chart (log axis when they span > 3x), and the best ones
// (the tied set and at least the top 10) zoomed on their own axis, where the tie is visible.
void Ranking(const report::ReportData& d, const ReportOptions& opt, std::ostringstream& o) {
  std::vector<report::IntervalRow> all, top;
  size_t tied = 0;
  for (const auto& c : d.configs) tied += (c.winner || c.tied) ? 1 : 0;
  const size_t top_n = std::max<size_t>(10, tied);
  for (const auto& c : d.configs) {
    if (c.n == 0) continue;
    all.push_back(RankRow(d, c));
    if (top.size() < top_n) top.push_back(RankRow(d, c));
  }
  o << "<section id=\"ranking\"><h2>Ranking</h2><p class=\"muted\">Median of "
    << HtmlEscape(d.metric) << " per configuration with its 95% bootstrap CI ("
    << (d.lower_is_better ? "lower" : "higher")
    << " is better). Green: winner; amber: tied for best.</p>";
  if (all.size() > top.size()) {
    o << "<h3 id=\"ranking-top\">Top " << top.size() << " (zoomed)</h3>"
      << report::SvgIntervalChart(top, d.metric);
  }
  o << "<h3 id=\"ranking-all\">All " << all.size() << " configurations with results</h3>"
    << report::SvgIntervalChart(all, d.metric) << "</section>\n";
  (void)opt;
}

void Table(const report::ReportData& d, const ReportOptions& opt, std::ostringstream& o) {
  o << "<section id=\"table\"><h2>All "
       "configurations</h2><table><tr><th>rank</th><th>parameters</th><th>median</th><th>95% "
       "CI</th><th>n</th>"
       "<th>status</th><th>fingerprints</th></tr>";
  int shown = 0;
  for (const auto& c : d.configs) {
    if (shown++ >= opt.max_ranked_rows) break;
    o << "<tr class=\"" << (c.winner ? "winner" : (c.tied ? "tied" : "")) << "\"><td class=\"num\">"
      << c.rank << "</td><td>" << HtmlEscape(report::ParamsText(d, c.params))
      << "</td><td class=\"num\">" << (c.n ? FormatNumber(c.median) : "-")
      << "</td><td class=\"num\">"
      << (c.n ? "[" + FormatNumber(c.ci_low) + ", " + FormatNumber(c.ci_high) + "]" : "-")
      << "</td><td class=\"num\">" << c.n << "</td><td>" << HtmlEscape(c.status)
      << (c.failure.empty() ? "" : " (" + HtmlEscape(c.failure) + ")") << "</td><td class=\"num\">"
      << c.fingerprints << "</td></tr>";
  }
  o << "</table>";
  const int64_t shown_rows = std::min<int64_t>(opt.max_ranked_rows, d.configs.size());
  if (d.total_configs > shown_rows) {
    o << "<p class=\"muted\">" << d.total_configs - shown_rows
      << " more configurations in results.csv.</p>";
  }
  if (d.truncated) {
    o << "<p class=\"muted\">results.json is summarised: it lists " << d.configs.size() << " of "
      << d.total_configs
      << " configurations (the best ones and those a verdict names); the charts, heatmaps and "
         "effects on this page use those, results.csv holds every configuration.</p>";
  }
  o << "</section>\n";
}

void HeatmapSection(const report::ReportData& d, const std::string& x, const std::string& y,
                    std::ostringstream& o) {
  o << "<section id=\"heatmap\"><h2>Heatmap: " << HtmlEscape(x) << " &times; " << HtmlEscape(y)
    << "</h2>";
  std::set<std::string> xs, ys;
  for (const auto& c : d.configs) {
    auto ix = c.params.find(x), iy = c.params.find(y);
    if (ix != c.params.end()) xs.insert(ix->second);
    if (iy != c.params.end()) ys.insert(iy->second);
  }
  report::Heatmap m;
  m.x_name = x;
  m.y_name = y;
  m.value_label = d.metric;
  m.lower_is_better = d.lower_is_better;
  m.x_levels.assign(xs.begin(), xs.end());
  m.y_levels.assign(ys.begin(), ys.end());
  std::sort(m.x_levels.begin(), m.x_levels.end(), report::LevelLess);
  std::sort(m.y_levels.begin(), m.y_levels.end(), report::LevelLess);
  m.cells.assign(m.y_levels.size(), std::vector<std::optional<double>>(m.x_levels.size()));
  for (const auto& c : d.configs) {
    if (c.n == 0 || !std::isfinite(c.median)) continue;
    auto ix = c.params.find(x), iy = c.params.find(y);
    if (ix == c.params.end() || iy == c.params.end()) continue;
    size_t xi = std::find(m.x_levels.begin(), m.x_levels.end(), ix->second) - m.x_levels.begin();
    size_t yi = std::find(m.y_levels.begin(), m.y_levels.end(), iy->second) - m.y_levels.begin();
    auto& cell = m.cells[yi][xi];
    if (!cell || (d.lower_is_better ? c.median < *cell : c.median > *cell)) cell = c.median;
  }
  o << report::SvgHeatmap(m) << "</section>\n";
}

void Effects(const json& r, const report::ReportData& d, std::ostringstream& o) {
  o << "<section id=\"effects\"><h2>Parameter effects and audit verdicts</h2><p class=\"muted\">"
       "Per level: the median over the configurations at that level (dot) and its 95% "
       "confidence interval (bar; distribution-free, from order statistics). With fewer than 6 "
       "configurations at a level no such interval exists: the bar is then the range, drawn "
       "dashed and marked &dagger;.</p><div class=\"effects\">";
  if (d.effects.empty()) o << "<p>No parameter was measured at more than one level.</p>";
  for (const auto& e : d.effects) {
    std::vector<report::IntervalRow> rows;
    for (const auto& l : e.levels) {
      report::IntervalRow r;
      r.label = e.name + "=" + l.level + " (" + std::to_string(l.configs) + ")" +
                (l.ci_exact ? "" : " \u2020");
      r.median = l.median_of_medians;
      r.lo = l.ci_low;
      r.hi = l.ci_high;
      r.has_ci = true;
      r.css_class = l.ci_exact ? "" : "range";
      rows.push_back(r);
    }
    o << "<div class=\"effect\"><h3>" << HtmlEscape(e.name) << " <span class=\"muted\">effect "
      << FormatNumber(100 * e.effect) << "% of the median</span></h3>"
      << report::VerdictTags(e.audit);
    o << report::SvgIntervalChart(rows, d.metric, 300) << "</div>";
  }
  o << "</div>";
  if (const json* rule = report::FindField(r, "inert_rule"); rule && rule->is_string()) {
    o << "<p class=\"muted\">Effect test: " << HtmlEscape(rule->get<std::string>()) << ".</p>";
  }
  const json* declared = report::FindField(r, "declared_inert");
  if (declared != nullptr && declared->is_array() && !declared->empty()) {
    o << "<p>Declared inert in the spec (never swept, never multiplied the space):</p><ul>";
    for (const auto& e : *declared) {
      o << "<li><b>" << HtmlEscape(e.value("param", ""))
        << "</b>: " << HtmlEscape(e.value("reason", "")) << "</li>";
    }
    o << "</ul>";
  }
  o << "</section>\n";
}

StatusOr<std::string> Render(const json& r, const ReportOptions& opt,
                             const report::ReportExecutions* executions) {
  report::ReportData d = report::BuildReportData(r);
  auto known = [&](const std::string& p) {
    return std::find(d.param_names.begin(), d.param_names.end(), p) != d.param_names.end();
  };
  for (const std::string* p : {&opt.x_param, &opt.y_param}) {
    if (!p->empty() && !known(*p)) {
      std::string names;
      for (const auto& n : d.param_names) names += (names.empty() ? "" : ", ") + n;
      return Status::InvalidArgument("heatmap parameter '" + *p +
                                     "' is not a parameter of the "
                                     "sweep (parameters: " +
                                     names + ")");
    }
  }
  std::string x = opt.x_param, y = opt.y_param;
  for (const auto& e : d.effects) {  // largest effect first
    if (e.levels.size() < 2) continue;
    if (x.empty() && e.name != y)
      x = e.name;
    else if (y.empty() && e.name != x)
      y = e.name;
  }
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>fleetsweep report: "
    << HtmlEscape(d.sweep) << "</title><style>" << kCss << "</style></head><body>\n";
  o << "<h1>Sweep report: " << HtmlEscape(d.sweep) << "</h1><div class=\"sub\">primary metric <b>"
    << HtmlEscape(d.metric) << "</b> (" << HtmlEscape(d.goal) << ")</div>\n";
  Verdict(r, d, o);
  Summary(r, d, o);
  Ranking(d, opt, o);
  if (!x.empty() && !y.empty()) HeatmapSection(d, x, y, o);
  report::ParallelSection(d, o);
  Effects(r, d, o);
  report::ReportExecutions gathered;
  if (executions == nullptr && opt.attempts != nullptr && !opt.attempts->empty()) {
    report::ExecutionCollector collect(d);
    for (const auto& a : *opt.attempts) collect.Add(a);
    gathered = collect.Take();
    executions = &gathered;
  }
  if (executions != nullptr) {
    report::DistributionsSection(d, *executions, opt.max_ranked_rows, o);
    report::ProgressSection(d, *executions, o);
  }
  Table(d, opt, o);
  report::InfeasibleSection(r, d, o);
  report::NodesSection(r, d, o);
  report::OtherSection(r, o);
  o << "<footer class=\"muted\"><p>Generated by fleetsweep report from results.json.</p></footer>"
    << "</body></html>\n";
  return o.str();
}

}  // namespace

StatusOr<std::string> RenderReportHtml(const json& r, const ReportOptions& opt) {
  return report::RenderWithExecutions(r, opt, nullptr);
}

StatusOr<std::string> report::RenderWithExecutions(const json& r, const ReportOptions& opt,
                                                   const ReportExecutions* executions) {
  try {
    return Render(r, opt, executions);
  } catch (const json::exception& e) {  // a field of an unexpected type
    return Status::InvalidArgument(std::string("results.json has an unexpected shape: ") +
                                   e.what());
  }
}

}  // namespace fleetsweep
