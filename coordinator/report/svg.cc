#include "coordinator/report/svg.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "coordinator/report/html_util.h"
#include "coordinator/report/svg_parts.h"

namespace fleetsweep::report {
namespace {

// 1, 2, 2.5, 5 x 10^k: the smallest at least `raw`.
double NiceStep(double raw) {
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * p >= raw * (1 - 1e-9)) return m * p;
  }
  return 10 * p;
}

}  // namespace

std::string Num(double v) {
  std::ostringstream o;
  o.precision(1);
  o << std::fixed << v;
  return o.str();
}

std::string Text(double x, double y, const std::string& text, const std::string& anchor,
                 const std::string& cls) {
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

// Width in px of `text` in the report's 12 px sans-serif (digits and capitals are wide).
double TextWidth(const std::string& text) {
  double w = 0;
  for (char c : text) {
    w += (c >= 'A' && c <= 'Z') || c == 'm' || c == 'w' || c == 'M' || c == 'W' ? 9.0
         : c == ' ' || c == '.' || c == ',' || c == 'i' || c == 'l' || c == 'j' ? 3.8
                                                                                : 7.0;
  }
  return w;
}

double Axis::Fraction(double v) const {
  if (log) return (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo));
  return (v - lo) / (hi - lo);
}

Axis NiceAxis(double lo, double hi, bool allow_log, int target_ticks) {
  Axis a;
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (lo > hi) std::swap(lo, hi);
  if (allow_log && lo > 0 && hi / lo > 3) {
    a.log = true;
    const double e0 = std::floor(std::log10(lo)), e1 = std::ceil(std::log10(hi));
    std::vector<double> all;
    for (double e = e0; e <= e1; ++e) {
      for (double m : {1.0, 2.0, 5.0}) all.push_back(m * std::pow(10.0, e));
    }
    a.lo = lo, a.hi = hi;
    for (double t : all) {  // the enclosing 1-2-5 values become the ends
      if (t <= lo) a.lo = t;
    }
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
      if (*it >= hi) a.hi = *it;
    }
    for (double t : all) {
      if (t >= a.lo * (1 - 1e-9) && t <= a.hi * (1 + 1e-9)) a.ticks.push_back(t);
    }
    if (a.ticks.size() > 12) {  // many decades: the powers of ten only
      std::vector<double> decades;
      for (double t : a.ticks) {
        const double m = t / std::pow(10.0, std::floor(std::log10(t) + 1e-9));
        if (std::fabs(m - 1) < 1e-6) decades.push_back(t);
      }
      a.ticks = decades;
    }
    return a;
  }
  if (hi - lo < 1e-12 * std::max(1.0, std::fabs(hi))) {
    const double half = std::fabs(hi) > 0 ? std::fabs(hi) * 0.05 : 0.5;
    lo -= half, hi += half;
  }
  const double step = NiceStep((hi - lo) / std::max(1, target_ticks - 1));
  a.lo = std::floor(lo / step + 1e-9) * step;
  a.hi = std::ceil(hi / step - 1e-9) * step;
  for (double t = a.lo; t <= a.hi + step * 1e-6; t += step) {
    a.ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
  }
  return a;
}

namespace {

// The frame the two row charts share: the label column (sized to the longest label), the value
// axis over [lo, hi] with its grid, ticks and label, a stripe behind every other row and each
// row's label; body(o, row, y, cls, X) draws a row's marks at height y (X maps a value to x).
template <class Row, class Body>
std::string RowChart(const std::vector<Row>& rows, double lo, double hi, const char* svg_class,
                     double row_h, const std::string& axis_label, double plot_width, Body body) {
  const Axis axis = NiceAxis(lo, hi);
  double longest = 0;
  for (const auto& r : rows) longest = std::max(longest, TextWidth(Shorten(r.label, 64)));
  const double label_w = std::clamp(longest + 20, 80.0, 600.0);
  const double plot_w = plot_width, top = 10;
  const double width = label_w + plot_w + 40, height = top + rows.size() * row_h + 46;
  auto X = [&](double v) { return label_w + axis.Fraction(v) * plot_w; };
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"" << svg_class << "\" width=\""
    << Num(width) << "\" height=\"" << Num(height) << "\" viewBox=\"0 0 " << Num(width) << " "
    << Num(height) << "\" role=\"img\">";
  const double axis_y = top + rows.size() * row_h + 4;
  for (double v : axis.ticks) {
    o << Line(X(v), top, X(v), axis_y, "grid")
      << Text(X(v), axis_y + 15, FormatNumber(v), "middle", "tick");
  }
  o << Line(label_w, axis_y, label_w + plot_w, axis_y, "axis")
    << Text(label_w + plot_w / 2, axis_y + 34, axis_label + (axis.log ? " (log scale)" : ""),
            "middle", "axislabel");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const double y = top + i * row_h + row_h / 2;
    const std::string cls = r.css_class.empty() ? "row" : r.css_class;
    if (i % 2 == 0) {
      o << "<rect x=\"0\" y=\"" << Num(y - row_h / 2) << "\" width=\"" << Num(label_w + plot_w)
        << "\" height=\"" << Num(row_h) << "\" class=\"stripe\"/>";
    }
    o << Text(label_w - 8, y + 4, Shorten(r.label, 64), "end", "label " + cls);
    body(o, r, y, cls, X);
  }
  o << "</svg>";
  return o.str();
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
  auto marks = [](std::ostream& o, const IntervalRow& r, double y, const std::string& cls,
                  const auto& X) {
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
  };
  return RowChart(rows, lo, hi, "chart", 22, axis_label, plot_width, marks);
}

std::string SvgStripChart(const std::vector<StripRow>& rows, const std::string& axis_label,
                          double plot_width) {
  if (rows.empty()) return "";
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& r : rows) {
    for (double v : r.values) {
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    }
  }
  auto marks = [](std::ostream& o, const StripRow& r, double y, const std::string& cls,
                  const auto& X) {
    for (size_t k = 0; k < r.values.size(); ++k) {
      if (!std::isfinite(r.values[k])) continue;
      const double jitter = (static_cast<double>(k % 5) - 2) * 1.5;  // overlapping dots apart
      o << "<circle cx=\"" << Num(X(r.values[k])) << "\" cy=\"" << Num(y + jitter)
        << "\" r=\"2.8\" class=\"exe " << cls << "\"/>";
    }
    if (std::isfinite(r.marker)) {
      o << Line(X(r.marker), y - 7, X(r.marker), y + 7, "med " + cls);
    }
  };
  return RowChart(rows, lo, hi, "chart strip", 20, axis_label, plot_width, marks);
}

size_t ProgressStride(size_t points, size_t max_dots) {
  if (max_dots == 0 || points <= max_dots) return 1;
  return (points + max_dots - 1) / max_dots;
}

std::string SvgProgressChart(const std::vector<ProgressPoint>& points, bool lower_is_better,
                             const std::string& value_label, size_t max_dots) {
  if (points.empty()) return "";
  double t_hi = 0, lo = INFINITY, hi = -INFINITY;
  for (const auto& p : points) {
    t_hi = std::max(t_hi, p.minutes);
    if (std::isfinite(p.value)) lo = std::min(lo, p.value), hi = std::max(hi, p.value);
  }
  const Axis xa = NiceAxis(0, std::max(t_hi, 1e-3), false);
  const Axis ya = NiceAxis(lo, hi);
  const double left = 70, top = 12, plot_w = 760, plot_h = 260;
  const double width = left + plot_w + 30, height = top + plot_h + 50;
  auto X = [&](double t) { return left + xa.Fraction(t) * plot_w; };
  auto Y = [&](double v) { return top + (1 - ya.Fraction(v)) * plot_h; };
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart progress\" width=\"" << Num(width)
    << "\" height=\"" << Num(height) << "\" viewBox=\"0 0 " << Num(width) << " " << Num(height)
    << "\" role=\"img\">";
  for (double v : ya.ticks) {
    o << Line(left, Y(v), left + plot_w, Y(v), "grid")
      << Text(left - 6, Y(v) + 4, FormatNumber(v), "end", "tick");
  }
  for (double t : xa.ticks) {
    o << Line(X(t), top, X(t), top + plot_h, "grid")
      << Text(X(t), top + plot_h + 15, FormatNumber(t), "middle", "tick");
  }
  o << Line(left, top + plot_h, left + plot_w, top + plot_h, "axis")
    << Text(left + plot_w / 2, top + plot_h + 34, "minutes since the sweep started", "middle",
            "axislabel")
    << Text(left + 4, top + 10, value_label + (ya.log ? " (log scale)" : ""), "start", "axislabel");
  std::vector<ProgressPoint> sorted = points;
  std::sort(sorted.begin(), sorted.end(),
            [](const ProgressPoint& a, const ProgressPoint& b) { return a.minutes < b.minutes; });
  std::string path;
  double best = NAN;
  const size_t stride = ProgressStride(sorted.size(), max_dots);
  size_t k = 0;
  for (const auto& p : sorted) {
    if (!std::isfinite(p.value)) continue;
    const bool better = !std::isfinite(best) || (lower_is_better ? p.value < best : p.value > best);
    if (k++ % stride == 0 || better) {
      o << "<circle cx=\"" << Num(X(p.minutes)) << "\" cy=\"" << Num(Y(p.value))
        << "\" r=\"2.5\" class=\"exe\"/>";
    }
    if (better) {
      path += (path.empty() ? "M" : " H" + Num(X(p.minutes)) + " V") +
              (path.empty() ? Num(X(p.minutes)) + " " : "") + Num(Y(p.value));
      best = p.value;
    }
  }
  if (!path.empty()) {
    path += " H" + Num(X(sorted.back().minutes));
    o << "<path d=\"" << path << "\" class=\"best\"/>";
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
