// SvgParallelCoordinates (svg.h): parameter axes, a value axis, one polyline per line.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "coordinator/report/html_util.h"
#include "coordinator/report/svg.h"
#include "coordinator/report/svg_parts.h"

namespace fleetsweep::report {
namespace {

constexpr double kTop = 44, kPlotH = 280, kBottom = 16;

// `s` shortened until it is at most `px` wide (at least 4 characters).
std::string Fit(const std::string& s, double px) {
  std::string t = s;
  for (size_t n = s.size(); n > 4 && TextWidth(t) > px; --n) t = Shorten(s, n - 1);
  return t;
}

// Every k-th level gets a label so that labels are at least 14 px apart; each level gets a tick.
size_t LabelStride(size_t levels) {
  if (levels < 2) return 1;
  const double gap = kPlotH / static_cast<double>(levels - 1);
  return static_cast<size_t>(std::ceil(14.0 / gap));
}

double LevelY(size_t index, size_t levels) {
  if (levels < 2) return kTop + kPlotH / 2;
  return kTop + kPlotH * (1 - static_cast<double>(index) / static_cast<double>(levels - 1));
}

}  // namespace

std::string SvgParallelCoordinates(const std::vector<ParallelAxis>& axes,
                                   const std::vector<ParallelLine>& lines,
                                   const std::string& value_label) {
  if (axes.empty() || lines.empty()) return "";
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& l : lines) {
    if (std::isfinite(l.value)) lo = std::min(lo, l.value), hi = std::max(hi, l.value);
  }
  const Axis va = NiceAxis(lo, hi);
  const double gap = std::clamp(1000.0 / axes.size(), 110.0, 220.0);
  const double label_px = gap - 18;  // level labels sit left of their axis, in the gap
  double left = 40;
  for (const auto& lv : axes.front().levels) left = std::max(left, TextWidth(Fit(lv, 120)) + 14);
  left = std::max(left, TextWidth(Fit(axes.front().name, gap - 8)) / 2 + 6);
  double tick_w = 0;
  for (double t : va.ticks) tick_w = std::max(tick_w, TextWidth(FormatNumber(t)));
  const std::string vname = Fit(value_label, gap - 8);
  const double right = std::max(tick_w + 16, TextWidth(vname) / 2 + 6);
  const double value_x = left + gap * axes.size();
  const double width = value_x + right, height = kTop + kPlotH + kBottom;
  auto X = [&](size_t axis) { return left + gap * axis; };
  auto VY = [&](double v) { return kTop + (1 - va.Fraction(v)) * kPlotH; };

  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart parallel\" width=\"" << Num(width)
    << "\" height=\"" << Num(height) << "\" viewBox=\"0 0 " << Num(width) << " " << Num(height)
    << "\" role=\"img\">";
  // Lines first (worst first: the best end up on top), axes over them.
  const size_t n = lines.size();
  for (size_t k = n; k-- > 0;) {
    const ParallelLine& l = lines[k];
    if (!std::isfinite(l.value)) continue;
    std::string points;
    for (size_t a = 0; a < axes.size(); ++a) {
      const size_t levels = std::max<size_t>(1, axes[a].levels.size());
      const int raw = a < l.levels.size() ? l.levels[a] : 0;
      const size_t idx = static_cast<size_t>(std::clamp(raw, 0, static_cast<int>(levels) - 1));
      points += Num(X(a)) + "," + Num(LevelY(idx, levels)) + " ";
    }
    points += Num(value_x) + "," + Num(VY(l.value));
    const double t = n > 1 ? static_cast<double>(k) / static_cast<double>(n - 1) : 0;
    o << "<polyline points=\"" << points << "\" class=\"pc"
      << (l.css_class.empty() ? "" : " " + l.css_class) << "\" stroke=\"" << Colour(t)
      << "\"><title>" << HtmlEscape(l.label + ": " + FormatNumber(l.value))
      << "</title></polyline>";
  }
  for (size_t a = 0; a < axes.size(); ++a) {
    const ParallelAxis& ax = axes[a];
    const size_t levels = ax.levels.size(), stride = LabelStride(levels);
    o << "<g class=\"pc-axis\">" << Line(X(a), kTop, X(a), kTop + kPlotH, "axis")
      << Text(X(a), 16, Fit(ax.name, gap - 8), "middle", "axislabel");
    for (size_t i = 0; i < levels; ++i) {
      const double y = LevelY(i, levels);
      o << Line(X(a) - 3, y, X(a) + 3, y, "axis");
      if (i % stride == 0) {
        o << Text(X(a) - 6, y + 4, Fit(ax.levels[i], a == 0 ? 120 : label_px), "end", "level");
      }
    }
    o << "</g>";
  }
  o << "<g class=\"pc-axis value\">" << Line(value_x, kTop, value_x, kTop + kPlotH, "axis")
    << Text(value_x, 16, vname, "middle", "axislabel");
  if (va.log) o << Text(value_x, 31, "(log scale)", "middle", "note");
  for (double t : va.ticks) {
    o << Line(value_x - 3, VY(t), value_x + 3, VY(t), "axis")
      << Text(value_x + 6, VY(t) + 4, FormatNumber(t), "start", "tick");
  }
  o << "</g></svg>";
  return o.str();
}

}  // namespace fleetsweep::report
