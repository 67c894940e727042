// Inline SVG charts for the HTML report, drawn as text (no JavaScript, no external resources).
// Every label passes through HtmlEscape. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fleetsweep::report {

// One row of an interval chart: a point at `median` and a bar from `lo` to `hi` when has_ci.
struct IntervalRow {
  std::string label;
  double median = 0;
  double lo = 0, hi = 0;
  bool has_ci = false;
  std::string css_class;  // "winner", "tied", "bad" or "" (colours the row)
};

// A value axis with round ticks: linear with steps of 1, 2, 2.5 or 5 x 10^k, or, when `allow_log`
// and the values are positive and span more than 3x, logarithmic with ticks at 1, 2, 5 x 10^k.
// lo/hi are the (rounded-out) ends.
struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  std::vector<double> ticks;
  double Fraction(double v) const;  // 0 at lo, 1 at hi
};
Axis NiceAxis(double lo, double hi, bool allow_log = true, int target_ticks = 6);

// Horizontal dot-and-whisker chart, one row per entry, with a labelled value axis (NiceAxis: log
// when the values span more than 3x; the axis label says so). Returns "" for no rows. Rows whose
// numbers are not finite are drawn without a mark. The label column is as wide as the longest
// label needs (at most 64 characters are shown; the full label is in the mark's tooltip).
std::string SvgIntervalChart(const std::vector<IntervalRow>& rows, const std::string& axis_label,
                             double plot_width = 560);

// One row per configuration: every execution's value as a dot (its spread is the
// configuration's distribution over executions) and `marker` (the configuration's median) as a
// vertical tick. Same axis rules and label column as SvgIntervalChart.
struct StripRow {
  std::string label;
  std::vector<double> values;
  double marker = 0;
  std::string css_class;
};
std::string SvgStripChart(const std::vector<StripRow>& rows, const std::string& axis_label,
                          double plot_width = 560);

// Progress over time: each execution's value at the time it finished (dots; failed executions
// are not values) and the best value so far (a step line, from every point). x in minutes since
// the first start. Past `max_dots` points, every ProgressStride-th point in time order is drawn,
// and every point that set a new best (a page of 300,000 dots was 16 MB and took seconds to
// write and to open).
struct ProgressPoint {
  double minutes = 0, value = 0;
};
inline constexpr size_t kMaxProgressDots = 4000;
// 1 when `points` <= max_dots, else the stride that draws at most max_dots of them.
size_t ProgressStride(size_t points, size_t max_dots = kMaxProgressDots);
std::string SvgProgressChart(const std::vector<ProgressPoint>& points, bool lower_is_better,
                             const std::string& value_label, size_t max_dots = kMaxProgressDots);

// Parallel coordinates (what optuna-dashboard calls its parallel-coordinate plot): one vertical
// axis per parameter, its levels evenly spaced in the order given (first at the bottom), and a
// last axis for the value (NiceAxis rules: log when the values span more than 3x); one polyline
// per line through its levels and its value. Lines are drawn in reverse order of `lines`, so the
// first (pass the best first) lie on top, and coloured by that order from green (first) to red
// (last); the "winner" css class overrides the colour ("tied" only thickens, in the report's CSS).
// An index outside its axis is clamped to it (callers give an absent value a level of its own, such
// as "-"). Returns "" without axes or lines. Each axis is a <g class="pc-axis">, each line a
// <polyline class="pc ..."> with its label and value as the tooltip.
struct ParallelAxis {
  std::string name;
  std::vector<std::string> levels;
};
struct ParallelLine {
  std::string label;
  std::vector<int> levels;  // per axis: an index into that axis's levels
  double value = 0;
  std::string css_class;
};
std::string SvgParallelCoordinates(const std::vector<ParallelAxis>& axes,
                                   const std::vector<ParallelLine>& lines,
                                   const std::string& value_label);

// A grid of cells over two parameters; cells[y][x] is the value for (x_levels[x], y_levels[y]) or
// nullopt (nothing measured: drawn grey). Colour runs from green (best) to red (worst).
struct Heatmap {
  std::string x_name, y_name, value_label;
  std::vector<std::string> x_levels, y_levels;
  std::vector<std::vector<std::optional<double>>> cells;
  bool lower_is_better = true;
};
std::string SvgHeatmap(const Heatmap& map);

}  // namespace fleetsweep::report
