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

// Horizontal dot-and-whisker chart, one row per entry, with a labelled value axis. Returns "" for
// no rows. Rows whose numbers are not finite are drawn without a mark.
// The label column is as wide as the longest label needs (at most 48 characters are shown).
std::string SvgIntervalChart(const std::vector<IntervalRow>& rows, const std::string& axis_label,
                             double plot_width = 560);

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
