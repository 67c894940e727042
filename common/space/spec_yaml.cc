#include "common/space/spec_yaml.h"

#include <algorithm>

namespace fleetsweep {
namespace spec_internal {

Status Where::At(int line, int column, const std::string& message) const {
  return Status::InvalidArgument(source_ + ":" + std::to_string(line) + ":" +
                                 std::to_string(column) + ": " + message);
}

Status Where::At(const YAML::Mark& mark, const std::string& message) const {
  if (mark.line < 0 || mark.column < 0) return At(1, 1, message);
  return At(mark.line + 1, mark.column + 1, message);
}

Status Where::At(const YAML::Node& node, const std::string& message) const {
  auto [line, column] = LineColumn(node);
  return At(line, column, message);
}

std::pair<int, int> LineColumn(const YAML::Node& node) {
  if (!node.IsDefined()) return {1, 1};
  YAML::Mark mark = node.Mark();
  if (mark.line < 0 || mark.column < 0) return {1, 1};
  return {mark.line + 1, mark.column + 1};
}

static const char* KindName(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
      return "nothing (null)";
    case YAML::NodeType::Scalar:
      return "a scalar";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    default:
      return "an undefined node";
  }
}

StatusOr<MapView> MapView::Check(const Where& where, const YAML::Node& node,
                                 const std::string& what, const std::vector<std::string>& allowed) {
  if (!node.IsMap()) {
    return where.At(node, what + ": expected a map (key: value), found " + KindName(node));
  }
  MapView view;
  view.node_ = node;
  for (auto it = node.begin(); it != node.end(); ++it) {
    YAML::Node key = it->first;  // copies: `it->` yields a temporary proxy
    if (!key.IsScalar()) return where.At(key, what + ": keys must be plain names");
    std::string name = key.Scalar();
    for (const MapEntry& e : view.entries_) {
      if (e.key == name) {
        auto [line, column] = LineColumn(e.key_node);
        return where.At(key, what + ": duplicate key '" + name + "' (first given at line " +
                                 std::to_string(line) + ", column " + std::to_string(column) + ")");
      }
    }
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      std::string hint = ClosestName(name, allowed);
      return where.At(key, what + ": unknown key '" + name + "'" +
                               (hint.empty() ? "" : " (did you mean '" + hint + "'?)") +
                               "; allowed keys: " + JoinNames(allowed));
    }
    view.entries_.push_back({name, key, it->second});
  }
  return view;
}

const YAML::Node* MapView::Find(const std::string& key) const {
  for (const MapEntry& e : entries_) {
    if (e.key == key) return &e.value;
  }
  return nullptr;
}

StatusOr<Value> ReadValue(const Where& where, const YAML::Node& node, const std::string& what) {
  if (!node.IsScalar()) {
    return where.At(node,
                    what + ": expected a value (number, bool or string), found " + KindName(node));
  }
  // Quoted scalars ("64", 'true') stay strings; plain ones are typed by their text.
  if (node.Tag() == "!") return Value(node.Scalar());
  return Value::FromText(node.Scalar());
}

StatusOr<std::string> ReadString(const Where& where, const YAML::Node& node,
                                 const std::string& what) {
  if (!node.IsScalar()) {
    return where.At(node, what + ": expected a string, found " + KindName(node));
  }
  return node.Scalar();
}

StatusOr<int64_t> ReadInt(const Where& where, const YAML::Node& node, const std::string& what) {
  FS_ASSIGN_OR_RETURN(Value v, ReadValue(where, node, what));
  if (v.type() != Value::Type::kInt || node.Tag() == "!") {
    return where.At(node, what + ": expected an integer, found '" + node.Scalar() + "'");
  }
  return v.as_int();
}

StatusOr<double> ReadNumber(const Where& where, const YAML::Node& node, const std::string& what) {
  FS_ASSIGN_OR_RETURN(Value v, ReadValue(where, node, what));
  if (!v.is_number() || node.Tag() == "!") {
    return where.At(node, what + ": expected a number, found '" + node.Scalar() + "'");
  }
  return v.as_double();
}

StatusOr<bool> ReadBool(const Where& where, const YAML::Node& node, const std::string& what) {
  FS_ASSIGN_OR_RETURN(Value v, ReadValue(where, node, what));
  if (v.type() != Value::Type::kBool || node.Tag() == "!") {
    return where.At(node, what + ": expected true or false, found '" + node.Scalar() + "'");
  }
  return v.as_bool();
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

static size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string ClosestName(const std::string& word, const std::vector<std::string>& candidates) {
  if (word.size() > 64) return "";
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const std::string& c : candidates) {
    size_t d = EditDistance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

}  // namespace spec_internal
}  // namespace fleetsweep
