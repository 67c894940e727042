// Small text helpers for the HTML report: escaping and number formatting.
// Pure functions; thread-safe.
#pragma once

#include <string>

namespace fleetsweep::report {

// Escapes &, <, >, " and ' so that any string is safe as HTML text or a quoted attribute value.
// Bytes that are not valid UTF-8 pass through unchanged (the page declares UTF-8).
std::string HtmlEscape(const std::string& text);

// A number for humans: up to 4 significant digits ("12.35", "0.001234", "1.235e+06").
std::string FormatNumber(double value);

}  // namespace fleetsweep::report
