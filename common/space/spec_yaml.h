// Internal helpers of the spec parser: located errors and strict reading of yaml-cpp nodes.
// Not a public interface; used by spec.cc and spec_params.cc only.
//
// None of these functions throw for bad input; callers still wrap yaml-cpp calls in try/catch
// because yaml-cpp may throw on corrupt trees. Thread-compatible (no shared state).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/space/value.h"
#include "common/status.h"

namespace fleetsweep {
namespace spec_internal {

// Formats "SOURCE:LINE:COLUMN: message" errors (1-based line and column).
class Where {
 public:
  explicit Where(std::string source) : source_(std::move(source)) {}
  Status At(const YAML::Mark& mark, const std::string& message) const;
  Status At(const YAML::Node& node, const std::string& message) const;
  Status At(int line, int column, const std::string& message) const;
  const std::string& source() const { return source_; }

 private:
  std::string source_;
};

// Line and column (1-based) of a node; 1:1 when yaml-cpp has no mark for it.
std::pair<int, int> LineColumn(const YAML::Node& node);

struct MapEntry {
  std::string key;
  YAML::Node key_node;
  YAML::Node value;
};

// A checked YAML map: scalar keys, no duplicates, and (when `allowed` is non-empty) only
// allowed keys. Keeps declaration order.
class MapView {
 public:
  // `what` names the map in messages ("parameter 'BM'", "the top level").
  static StatusOr<MapView> Check(const Where& where, const YAML::Node& node,
                                 const std::string& what, const std::vector<std::string>& allowed);
  const YAML::Node* Find(const std::string& key) const;
  const std::vector<MapEntry>& entries() const { return entries_; }
  const YAML::Node& node() const { return node_; }

 private:
  YAML::Node node_;
  std::vector<MapEntry> entries_;
};

// Scalar readers. `what` names the field in messages ("'repetitions.min'").
StatusOr<Value> ReadValue(const Where& where, const YAML::Node& node, const std::string& what);
StatusOr<std::string> ReadString(const Where& where, const YAML::Node& node,
                                 const std::string& what);
StatusOr<int64_t> ReadInt(const Where& where, const YAML::Node& node, const std::string& what);
StatusOr<double> ReadNumber(const Where& where, const YAML::Node& node, const std::string& what);
StatusOr<bool> ReadBool(const Where& where, const YAML::Node& node, const std::string& what);

// "a, b, c"
std::string JoinNames(const std::vector<std::string>& names);
// The candidate closest to `word` by edit distance when it is a plausible typo, else "".
std::string ClosestName(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace spec_internal

struct ParamSpec;

namespace spec_internal {
// Parses the `parameters:` map (spec_params.cc). Appends in declaration order.
Status ParseParameters(const Where& where, const YAML::Node& node, std::vector<ParamSpec>* out);

}  // namespace spec_internal
}  // namespace fleetsweep
