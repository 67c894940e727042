// Shared helpers of the report page and the sections that show audit findings (report_parts.h).
#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <vector>

#include "coordinator/report/html_util.h"
#include "coordinator/report/report_parts.h"
#include "coordinator/report/svg.h"

namespace fleetsweep::report {

using nlohmann::json;

// Parameters that take one value in every configuration (pinned, or one level) are left out of
// labels; the summary lists them once.
std::string ParamsText(const ReportData& d, const std::map<std::string, std::string>& p) {
  std::string s;
  for (const auto& [k, v] : p) {
    if (!d.constant_params.count(k)) s += (s.empty() ? "" : " ") + k + "=" + v;
  }
  return s.empty() ? "(all parameters fixed)" : s;
}

// Coloured tags for a parameter's audit verdicts (report_data.cc ParamAudit) and the details.
std::string VerdictTags(const json& audit) {
  if (!audit.is_object()) return "";
  static const std::map<std::string, std::string> kClass = {
      {"injected", "ok"},       {"not_injected", "bad"}, {"no_fingerprint", "warn"},
      {"active", "ok"},         {"inert", "warn"},       {"no_effect", "warn"},
      {"inconclusive", "info"}, {"untested", "info"}};
  std::string out;
  for (const char* k : {"injection", "inert"}) {
    if (!audit.contains(k) || !audit[k].is_string()) continue;
    const std::string v = audit[k].get<std::string>();
    auto it = kClass.find(v);
    out += "<span class=\"tag " + (it == kClass.end() ? std::string("info") : it->second) + "\">" +
           HtmlEscape(std::string(k) == "inert" ? "effect test: " + v : "fingerprints: " + v) +
           "</span> ";
  }
  std::string detail;
  for (const auto& [k, v] : audit.items()) {
    if (k == "injection" || k == "inert") continue;
    if (k == "p_value" && v.is_number()) {
      detail += (detail.empty() ? "" : "; ") + std::string("p = ") + FormatNumber(v.get<double>());
    } else if (k == "spread" && v.is_number()) {
      detail += (detail.empty() ? "" : "; ") + std::string("level spread ") +
                FormatNumber(100 * v.get<double>()) + "%";
    } else {
      detail += (detail.empty() ? "" : "; ") + k + ": " + report::JsonText(v);
    }
  }
  if (!detail.empty()) out += "<div class=\"muted\">" + HtmlEscape(detail) + "</div>";
  return out;
}

// A list of JSON objects (or a keyed object) as a table with the union of their keys.
void JsonTable(const json& list, std::ostringstream& o) {
  std::vector<json> rows;
  if (list.is_array()) {
    for (const auto& e : list) rows.push_back(e);
  } else if (list.is_object()) {
    for (const auto& [k, v] : list.items()) {
      json row = v.is_object() ? v : json{{"value", v}};
      row["name"] = k;
      rows.push_back(row);
    }
  }
  std::vector<std::string> cols;
  for (const auto& r : rows) {
    if (!r.is_object()) continue;
    for (const auto& [k, v] : r.items()) {
      if (std::find(cols.begin(), cols.end(), k) == cols.end()) cols.push_back(k);
    }
  }
  if (cols.empty()) {
    for (const auto& r : rows) o << "<div>" << HtmlEscape(report::JsonText(r)) << "</div>";
    return;
  }
  o << "<table><tr>";
  for (const auto& c : cols) o << "<th>" << HtmlEscape(c) << "</th>";
  o << "</tr>";
  for (const auto& r : rows) {
    o << "<tr>";
    for (const auto& c : cols) {
      o << "<td>" << (r.is_object() && r.contains(c) ? HtmlEscape(report::JsonText(r[c])) : "")
        << "</td>";
    }
    o << "</tr>";
  }
  o << "</table>";
}

void InfeasibleSection(const json& r, const ReportData& d, std::ostringstream& o) {
  o << "<section id=\"infeasible\"><h2>Infeasible regions</h2>";
  const json* regions = report::FindField(r, "infeasible_regions");
  if (regions != nullptr && regions->is_array() && !regions->empty()) {
    o << "<ul>";
    for (const auto& g : *regions) {
      const bool whole = g.is_object() && g.value("whole", false);
      o << "<li>" << (whole ? "<span class=\"tag bad\">whole level</span> " : "")
        << HtmlEscape(g.is_object() && g.contains("text") ? report::JsonText(g["text"])
                                                          : report::JsonText(g))
        << "</li>";
    }
    o << "</ul>";
  }
  int n = 0;
  for (const auto& c : d.configs) n += c.status == "infeasible";
  if (n == 0 && (regions == nullptr || regions->empty())) {
    o << "<p>None: every configuration ran.</p>";
  } else if (n > 0) {
    o << "<p>" << n << " infeasible configurations:</p><table><tr><th>parameters</th><th>failure"
      << "</th></tr>";
    for (const auto& c : d.configs) {
      if (c.status != "infeasible") continue;
      o << "<tr><td>" << HtmlEscape(ParamsText(d, c.params)) << "</td><td>" << HtmlEscape(c.failure)
        << "</td></tr>";
    }
    o << "</table>";
  }
  o << "</section>\n";
}

static double NumberOr(const json& e, const char* key, double fallback) {
  return e.is_object() && e.contains(key) && e[key].is_number() ? e[key].get<double>() : fallback;
}

// One row per node: the effect with its interval, the reference measurements behind it, drift.
static void NodeTable(const json& nodes, std::ostringstream& o) {
  o << "<table id=\"node-table\"><tr><th>node</th><th>effect</th><th>95% CI</th>"
       "<th>reference executions</th><th>reference samples</th><th>median-polish effect</th>"
       "<th>drift (early vs late)</th><th>removed</th></tr>";
  for (const auto& e : nodes) {
    if (!e.is_object()) continue;
    const json drift = e.contains("drift") ? e["drift"] : json();
    std::string drift_text = "not tested";
    if (drift.is_object()) {
      drift_text = std::string(drift.value("drift", false) ? "yes" : "no") + " (p " +
                   FormatNumber(NumberOr(drift, "p_value", NAN)) + ", change " +
                   FormatNumber(100 * NumberOr(drift, "change", NAN)) + "%)";
    }
    o << "<tr><td>" << HtmlEscape(e.value("node", "?")) << "</td><td class=\"num\">"
      << FormatNumber(NumberOr(e, "effect", NAN)) << "</td><td class=\"num\">["
      << FormatNumber(NumberOr(e, "ci_low", NAN)) << ", "
      << FormatNumber(NumberOr(e, "ci_high", NAN)) << "]</td><td class=\"num\">"
      << FormatNumber(NumberOr(e, "reference_attempts", NAN)) << "</td><td class=\"num\">"
      << FormatNumber(NumberOr(e, "reference_samples", NAN)) << "</td><td class=\"num\">"
      << FormatNumber(NumberOr(e, "median_polish_effect", NAN)) << "</td><td>"
      << HtmlEscape(drift_text) << "</td><td>" << (e.value("applied", false) ? "yes" : "no")
      << "</td></tr>";
  }
  o << "</table>";
}

void NodesSection(const json& r, const ReportData& d, std::ostringstream& o) {
  o << "<section id=\"nodes\"><h2>Nodes and node effects</h2><p>Nodes: ";
  for (size_t i = 0; i < d.nodes.size(); ++i) o << (i ? ", " : "") << HtmlEscape(d.nodes[i]);
  if (d.nodes.empty()) o << "none recorded";
  o << "</p>";
  const json* ne = report::FindField(r, "node_effects");
  const json* nodes =
      ne == nullptr ? nullptr : (ne->is_object() && ne->contains("nodes") ? &(*ne)["nodes"] : ne);
  if (nodes == nullptr || nodes->empty()) {
    o << "<p class=\"muted\">No node effects (they need a reference configuration measured on "
         "every node).</p>";
  } else {
    if (ne->is_object()) {
      o << "<p>Method: <b>" << HtmlEscape(ne->value("method", "?")) << "</b>; "
        << (ne->value("applied", false) ? "removed from the samples before ranking"
                                        : "not applied to the samples")
        << (ne->value("note", "").empty() ? "" : ". " + HtmlEscape(ne->value("note", "")))
        << "</p>";
    }
    std::vector<report::IntervalRow> rows;
    for (const auto& e : *nodes) {
      if (!e.is_object() || !e.contains("effect") || !e["effect"].is_number()) continue;
      report::IntervalRow row;
      row.label = e.value("node", "?");
      row.median = e["effect"].get<double>();
      row.has_ci = e.contains("ci_low") && e["ci_low"].is_number() && e.contains("ci_high") &&
                   e["ci_high"].is_number();
      if (row.has_ci) row.lo = e["ci_low"].get<double>(), row.hi = e["ci_high"].get<double>();
      row.css_class =
          e.contains("drift") && e["drift"].is_object() && e["drift"].value("drift", false) ? "tied"
                                                                                            : "";
      rows.push_back(row);
    }
    o << report::SvgIntervalChart(rows, "node effect (ratio to the fleet, 1 = typical)", 400);
    if (nodes->is_array()) {
      NodeTable(*nodes, o);
    } else {
      JsonTable(*nodes, o);
    }
  }
  o << "</section>\n<section id=\"fingerprints\"><h2>Software and platform fingerprints</h2><p>"
    << d.distinct_fingerprints << " distinct execution fingerprints over " << d.configs.size()
    << " configurations.</p>";
  for (const char* f : {"fingerprint_audit", "fingerprints", "software", "platform", "platforms"}) {
    const json* p = report::FindField(r, f);
    if (p == nullptr) continue;
    o << "<h3>" << HtmlEscape(f) << "</h3>";
    JsonTable(p->is_object() || p->is_array() ? *p : json::array({*p}), o);
  }
  o << "</section>\n";
}

// Anything results.json has that the sections above do not show, so nothing is hidden.
void OtherSection(const json& r, std::ostringstream& o) {
  static const std::set<std::string> kShown = {"sweep",
                                               "metric",
                                               "goal",
                                               "summary",
                                               "configurations",
                                               "configurations_truncated",
                                               "winner",
                                               "tied",
                                               "warnings",
                                               "valid",
                                               "invalid_reasons",
                                               "infeasible_regions",
                                               "node_effects",
                                               "parameters",
                                               "winner_rule",
                                               "winner_test",
                                               "audit",
                                               "fingerprint_audit",
                                               "fingerprints",
                                               "software",
                                               "platform",
                                               "platforms"};
  std::string body;
  for (const auto& [k, v] : r.items()) {
    if (kShown.count(k)) continue;
    body += "<h3>" + HtmlEscape(k) + "</h3><pre>" + HtmlEscape(v.dump(2)) + "</pre>";
  }
  if (!body.empty()) o << "<section id=\"other\"><h2>Other findings</h2>" << body << "</section>\n";
}

}  // namespace fleetsweep::report
