#include "coordinator/report/svg.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "coordinator/report/html_util.h"

namespace fleetsweep::report {
namespace {

std::string Num(double v) {
  std::ostringstream o;
  o.precision(1);
  o << std::fixed << v;
  return o.str();
}

std::string Text(double x, double y, const std::string& text, const std::string& anchor,
                 const std::string& cls = "") {
  return "<text x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" text-anchor=\"" + anchor + "\"" +
         (cls.empty() ? "" : " class=\"" + cls + "\"") + ">" + HtmlEscape(text) + "</text>";
}

std::string Line(double x1, double y1, double x2, double y2, const std::string& cls) {
  return "<line x1=\"" + Num(x1) + "\" y1=\"" + Num(y1) + "\" x2=\"" + Num(x2) + "\" y2=\"" +
         Num(y2) + "\" class=\"" + cls + "\"/>";
}

std::string Shorten(const std::string& s, size_t max) {
  return s.size() <= max ? s : s.substr(0, max - 3) + "...";
}

// Green (t=0, best) through yellow to red (t=1, worst).
std::string Colour(double t) {
  t = std::clamp(t, 0.0, 1.0);
  int r = t < 0.5 ? static_cast<int>(60 + 390 * t) : 240;
  int g = t < 0.5 ? 190 : static_cast<int>(190 - 250 * (t - 0.5));
  int b = 90;
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", std::clamp(r, 0, 255), std::clamp(g, 0, 255), b);
  return buf;
}

}  // namespace

std::string SvgIntervalChart(const std::vector<IntervalRow>& rows, const std::string& axis_label,
                             double plot_width) {
  if (rows.empty()) return "";
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& r : rows) {
    for (double v : {r.median, r.has_ci ? r.lo : r.median, r.has_ci ? r.hi : r.median}) {
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    }
  }
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  if (hi - lo < 1e-12 * std::max(1.0, std::fabs(hi))) lo -= 0.5, hi += 0.5;
  const double pad = (hi - lo) * 0.05;
  lo -= pad;
  hi += pad;
  size_t longest = 0;
  for (const auto& r : rows) longest = std::max(longest, std::min<size_t>(r.label.size(), 48));
  const double label_w = std::clamp(longest * 7.0 + 16, 80.0, 360.0);
  const double plot_w = plot_width, row_h = 22, top = 10;
  const double width = label_w + plot_w + 30, height = top + rows.size() * row_h + 46;
  auto X = [&](double v) { return label_w + (v - lo) / (hi - lo) * plot_w; };
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" << Num(width)
    << "\" height=\"" << Num(height) << "\" viewBox=\"0 0 " << Num(width) << " " << Num(height)
    << "\" role=\"img\">";
  const double axis_y = top + rows.size() * row_h + 4;
  for (int i = 0; i <= 5; ++i) {
    double v = lo + (hi - lo) * i / 5;
    o << Line(X(v), top, X(v), axis_y, "grid")
      << Text(X(v), axis_y + 15, FormatNumber(v), "middle");
  }
  o << Line(label_w, axis_y, label_w + plot_w, axis_y, "axis")
    << Text(label_w + plot_w / 2, axis_y + 34, axis_label, "middle", "axislabel");
  for (size_t i = 0; i < rows.size(); ++i) {
    const IntervalRow& r = rows[i];
    const double y = top + i * row_h + row_h / 2;
    const std::string cls = r.css_class.empty() ? "row" : r.css_class;
    if (i % 2 == 0) {
      o << "<rect x=\"0\" y=\"" << Num(y - row_h / 2) << "\" width=\"" << Num(label_w + plot_w)
        << "\" height=\"" << Num(row_h) << "\" class=\"stripe\"/>";
    }
    o << Text(label_w - 8, y + 4, Shorten(r.label, 48), "end", "label " + cls);
    if (r.has_ci && std::isfinite(r.lo) && std::isfinite(r.hi)) {
      o << Line(X(r.lo), y, X(r.hi), y, "ci " + cls)
        << Line(X(r.lo), y - 5, X(r.lo), y + 5, "ci " + cls)
        << Line(X(r.hi), y - 5, X(r.hi), y + 5, "ci " + cls);
    }
    if (std::isfinite(r.median)) {
      o << "<circle cx=\"" << Num(X(r.median)) << "\" cy=\"" << Num(y) << "\" r=\"4.5\" class=\"pt "
        << cls << "\"><title>"
        << HtmlEscape(r.label + ": " + FormatNumber(r.median) +
                      (r.has_ci ? " [" + FormatNumber(r.lo) + ", " + FormatNumber(r.hi) + "]" : ""))
        << "</title></circle>";
    }
  }
  o << "</svg>";
  return o.str();
}

std::string SvgHeatmap(const Heatmap& m) {
  if (m.x_levels.empty() || m.y_levels.empty()) return "";
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& row : m.cells) {
    for (const auto& c : row) {
      if (c && std::isfinite(*c)) lo = std::min(lo, *c), hi = std::max(hi, *c);
    }
  }
  const double cell_w = std::max(56.0, std::min(110.0, 640.0 / m.x_levels.size()));
  const double cell_h = 34, left = 130, top = 40;
  const double width = left + cell_w * m.x_levels.size() + 20;
  const double height = top + cell_h * m.y_levels.size() + 40;
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart heatmap\" width=\"" << Num(width)
    << "\" height=\"" << Num(height) << "\" viewBox=\"0 0 " << Num(width) << " " << Num(height)
    << "\" role=\"img\">";
  o << Text(left + cell_w * m.x_levels.size() / 2, 14, m.x_name, "middle", "axislabel");
  o << Text(8, top - 8, m.y_name, "start", "axislabel");
  for (size_t x = 0; x < m.x_levels.size(); ++x) {
    o << Text(left + cell_w * (x + 0.5), top - 8, Shorten(m.x_levels[x], 12), "middle");
  }
  for (size_t y = 0; y < m.y_levels.size(); ++y) {
    const double cy = top + cell_h * y;
    o << Text(left - 8, cy + cell_h / 2 + 4, Shorten(m.y_levels[y], 16), "end");
    for (size_t x = 0; x < m.x_levels.size(); ++x) {
      std::optional<double> v;
      if (y < m.cells.size() && x < m.cells[y].size()) v = m.cells[y][x];
      std::string fill = "#d8d8d8";
      std::string label = "-";
      if (v && std::isfinite(*v)) {
        double t = hi > lo ? (*v - lo) / (hi - lo) : 0;
        if (!m.lower_is_better) t = 1 - t;
        fill = Colour(t);
        label = FormatNumber(*v);
      }
      o << "<rect x=\"" << Num(left + cell_w * x) << "\" y=\"" << Num(cy) << "\" width=\""
        << Num(cell_w - 2) << "\" height=\"" << Num(cell_h - 2) << "\" fill=\"" << fill
        << "\"><title>"
        << HtmlEscape(m.x_name + "=" + m.x_levels[x] + ", " + m.y_name + "=" + m.y_levels[y] +
                      ": " + label)
        << "</title></rect>";
      o << Text(left + cell_w * (x + 0.5) - 1, cy + cell_h / 2 + 3, label, "middle", "cell");
    }
  }
  o << Text(left, height - 12,
            "cell: best " + m.value_label + " over the other parameters (" +
                (m.lower_is_better ? "green = lowest" : "green = highest") + ")",
            "start", "note");
  o << "</svg>";
  return o.str();
}

}  // namespace fleetsweep::report
