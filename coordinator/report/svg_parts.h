// Internal to the report's SVG charts (svg.cc, svg_parallel.cc): the small drawing helpers they
// share. Not a public interface. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>

namespace fleetsweep::report {

// A coordinate with one decimal ("12.5").
std::string Num(double v);
// <text> at (x, y) with text-anchor `anchor` ("start", "middle", "end"); `text` is escaped.
std::string Text(double x, double y, const std::string& text, const std::string& anchor,
                 const std::string& cls = "");
// <line> from (x1, y1) to (x2, y2) with class `cls`.
std::string Line(double x1, double y1, double x2, double y2, const std::string& cls);
// `s` cut to `max` characters with "..." at the end when it is longer.
std::string Shorten(const std::string& s, size_t max);
// "#rrggbb" from green (t = 0, best) through yellow to red (t = 1, worst); t is clamped.
std::string Colour(double t);
// Width in px of `text` in the report's 12 px sans-serif (an estimate that errs wide).
double TextWidth(const std::string& text);

}  // namespace fleetsweep::report
