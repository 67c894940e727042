// Parsing of the `parameters:` section of a sweep spec (docs/spec.md, "Parameters").
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <tuple>

#include "common/space/spec.h"
#include "common/space/spec_yaml.h"

namespace fleetsweep {
namespace spec_internal {
namespace {

const std::vector<std::string> kParamKeys = {"values", "range",       "fixed", "inert",
                                             "reason", "description", "group", "restart"};
const std::vector<std::string> kRangeKeys = {"from", "to", "step", "pow2"};

bool IsValidParamName(const std::string& name) {
  if (name.empty()) return false;
  auto start = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!start(name[0])) return false;
  for (char c : name) {
    if (!start(c) && !(c >= '0' && c <= '9')) return false;
  }
  static const char* kReserved[] = {"and", "or", "not", "in", "true", "false", "True", "False"};
  for (const char* r : kReserved) {
    if (name == r) return false;
  }
  return true;
}

// Placeholders the worker fills in itself ({SLOT}, ...): a parameter of that name would be
// silently replaced by the worker's value.
bool IsWorkerPlaceholder(const std::string& name) {
  static const char* kBuiltIns[] = {"SLOT", "DEVICE", "WORKDIR", "ATTEMPT_ID", "FLEETSWEEP_BIN"};
  for (const char* b : kBuiltIns) {
    if (name == b) return true;
  }
  return false;
}

// Rounds away binary noise from from + i*step (0.30000000000000004 -> 0.3).
double Tidy(double d) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.12g", d);
  return std::strtod(buf, nullptr);
}

Status ReadValues(const Where& where, const YAML::Node& node, const std::string& what,
                  std::vector<Value>* out) {
  if (!node.IsSequence()) {
    return where.At(node, what + ".values: expected a list of values like [16, 32, 64], found " +
                              (node.IsScalar() ? "'" + node.Scalar() + "'" : "something else"));
  }
  if (node.size() == 0) return where.At(node, what + ".values: the list is empty");
  if (node.size() > kMaxLevelsPerParam) {
    return where.At(node,
                    what + ".values: more than " + std::to_string(kMaxLevelsPerParam) + " values");
  }
  for (const YAML::Node& item : node) {
    FS_ASSIGN_OR_RETURN(Value v, ReadValue(where, item, what + ".values item"));
    out->push_back(std::move(v));
  }
  // Duplicates would run the same configuration twice.
  std::vector<size_t> order(out->size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return (*out)[a] < (*out)[b]; });
  for (size_t k = 1; k < order.size(); ++k) {
    if ((*out)[order[k - 1]] == (*out)[order[k]]) {
      size_t dup = std::max(order[k - 1], order[k]);
      return where.At(node[dup],
                      what + ".values: duplicate value '" + (*out)[dup].ToString() + "'");
    }
  }
  // Configuration keys are built from the canonical text: 64 and "64" (or true and "true") are
  // different values that would become one configuration.
  std::map<std::string, size_t> by_text;
  for (size_t i = 0; i < out->size(); ++i) {
    auto [it, fresh] = by_text.emplace((*out)[i].ToString(), i);
    if (!fresh) {
      const Value& first = (*out)[it->second];
      return where.At(node[i], what + ".values: '" + it->first + "' (" + (*out)[i].TypeName() +
                                   ") and '" + first.ToString() + "' (" + first.TypeName() +
                                   ") have the same canonical text, so they would be one "
                                   "configuration; keep one of them");
    }
  }
  return Status::Ok();
}

Status ReadRange(const Where& where, const YAML::Node& node, const std::string& what,
                 std::vector<Value>* out) {
  std::string ctx = what + ".range";
  FS_ASSIGN_OR_RETURN(MapView range, MapView::Check(where, node, ctx, kRangeKeys));
  const YAML::Node* from_node = range.Find("from");
  const YAML::Node* to_node = range.Find("to");
  if (!from_node || !to_node) {
    return where.At(node, ctx +
                              ": needs both 'from' and 'to' (and optionally 'step' or "
                              "'pow2: true')");
  }
  FS_ASSIGN_OR_RETURN(Value from, ReadValue(where, *from_node, ctx + ".from"));
  FS_ASSIGN_OR_RETURN(Value to, ReadValue(where, *to_node, ctx + ".to"));
  if (!from.is_number()) return where.At(*from_node, ctx + ".from: expected a number");
  if (!to.is_number()) return where.At(*to_node, ctx + ".to: expected a number");
  if (to < from) {
    return where.At(
        *to_node, ctx + ": 'to' (" + to.ToString() + ") is below 'from' (" + from.ToString() + ")");
  }
  bool pow2 = false;
  if (const YAML::Node* p = range.Find("pow2")) {
    FS_ASSIGN_OR_RETURN(pow2, ReadBool(where, *p, ctx + ".pow2"));
  }
  const YAML::Node* step_node = range.Find("step");
  if (pow2) {
    if (step_node) return where.At(*step_node, ctx + ": give either 'step' or 'pow2', not both");
    if (from.type() != Value::Type::kInt || to.type() != Value::Type::kInt || from.as_int() < 1) {
      return where.At(node, ctx + ": pow2 needs integer 'from' >= 1 and integer 'to'");
    }
    for (int64_t p = 1; p > 0 && p <= to.as_int(); p *= 2) {
      if (p >= from.as_int()) out->push_back(Value(p));
      if (p > (INT64_MAX / 2)) break;
    }
    if (out->empty()) {
      return where.At(
          node, ctx + ": no power of two lies in [" + from.ToString() + ", " + to.ToString() + "]");
    }
    return Status::Ok();
  }
  Value step(int64_t{1});
  if (step_node) {
    FS_ASSIGN_OR_RETURN(step, ReadValue(where, *step_node, ctx + ".step"));
    if (!step.is_number()) return where.At(*step_node, ctx + ".step: expected a number");
    if (step.as_double() <= 0) {
      return where.At(*step_node, ctx + ".step: must be > 0, found " + step.ToString());
    }
  }
  double span = to.as_double() - from.as_double();
  double count = std::floor(span / step.as_double() + 1e-9) + 1;
  if (!(count <= static_cast<double>(kMaxLevelsPerParam))) {
    return where.At(node, ctx + ": more than " + std::to_string(kMaxLevelsPerParam) +
                              " levels; use a larger step");
  }
  bool ints = from.type() == Value::Type::kInt && to.type() == Value::Type::kInt &&
              step.type() == Value::Type::kInt;
  for (int64_t i = 0; i < static_cast<int64_t>(count); ++i) {
    if (ints) {
      int64_t offset = 0, level = 0;
      if (__builtin_mul_overflow(i, step.as_int(), &offset) ||
          __builtin_add_overflow(from.as_int(), offset, &level)) {
        return where.At(node, ctx + ": levels exceed the 64-bit integer range");
      }
      out->push_back(Value(level));
    } else {
      out->push_back(Value(Tidy(from.as_double() + static_cast<double>(i) * step.as_double())));
    }
  }
  return Status::Ok();
}

Status ReadParam(const Where& where, const MapEntry& entry, ParamSpec* p) {
  p->name = entry.key;
  std::tie(p->line, p->column) = LineColumn(entry.key_node);
  std::string what = "parameter '" + p->name + "'";
  if (!IsValidParamName(p->name)) {
    return where.At(entry.key_node, what +
                                        ": names must match [A-Za-z_][A-Za-z0-9_]* and not be "
                                        "a keyword (and, or, not, in, true, false)");
  }
  if (IsWorkerPlaceholder(p->name)) {
    return where.At(entry.key_node, what +
                                        ": the name is reserved for a value the worker fills "
                                        "in ({SLOT}, {DEVICE}, {WORKDIR}, {ATTEMPT_ID}, "
                                        "{FLEETSWEEP_BIN}); rename the parameter");
  }
  const YAML::Node& def = entry.value;
  if (def.IsSequence()) {  // shorthand: NAME: [1, 2, 3]
    p->fate = ParamFate::kSwept;
    FS_RETURN_IF_ERROR(ReadValues(where, def, what, &p->values));
    p->declared_levels = p->values;
    return Status::Ok();
  }
  if (!def.IsMap()) {
    return where.At(def, what +
                             ": expected a map such as {values: [16, 32]} or a list of "
                             "values");
  }
  FS_ASSIGN_OR_RETURN(MapView m, MapView::Check(where, def, what, kParamKeys));
  const YAML::Node* values = m.Find("values");
  const YAML::Node* range = m.Find("range");
  const YAML::Node* fixed = m.Find("fixed");
  if (values && range) {
    return where.At(*range, what + ": give either 'values' or 'range', not both");
  }
  if (const YAML::Node* g = m.Find("group")) {
    FS_ASSIGN_OR_RETURN(p->group, ReadString(where, *g, what + ".group"));
  }
  if (const YAML::Node* d = m.Find("description")) {
    FS_ASSIGN_OR_RETURN(p->description, ReadString(where, *d, what + ".description"));
  }
  if (const YAML::Node* r = m.Find("reason")) {
    FS_ASSIGN_OR_RETURN(p->reason, ReadString(where, *r, what + ".reason"));
  }
  if (const YAML::Node* r = m.Find("restart")) {
    FS_ASSIGN_OR_RETURN(p->restart, ReadBool(where, *r, what + ".restart"));
  }
  bool inert = false;
  if (const YAML::Node* i = m.Find("inert")) {
    FS_ASSIGN_OR_RETURN(inert, ReadBool(where, *i, what + ".inert"));
  }
  if (values) FS_RETURN_IF_ERROR(ReadValues(where, *values, what, &p->declared_levels));
  if (range) FS_RETURN_IF_ERROR(ReadRange(where, *range, what, &p->declared_levels));
  if (fixed) {
    FS_ASSIGN_OR_RETURN(Value v, ReadValue(where, *fixed, what + ".fixed"));
    p->fixed = v;
  }
  if (inert) {
    p->fate = ParamFate::kInert;
    p->values = p->declared_levels;
  } else if (fixed) {
    p->fate = ParamFate::kPinned;
    p->values = {*p->fixed};
  } else {
    p->fate = ParamFate::kSwept;
    if (!values && !range) {
      return where.At(def, what +
                               ": a swept parameter needs 'values' or 'range' (or use "
                               "'fixed' to pin it, 'inert: true' to mark it ignored)");
    }
    p->values = p->declared_levels;
  }
  if (p->fate != ParamFate::kSwept && p->reason.empty()) {
    return where.At(def, what + (p->fate == ParamFate::kInert ? ": an " : ": a ") +
                             ParamFateName(p->fate) +
                             " parameter needs a 'reason' saying why it is not swept");
  }
  return Status::Ok();
}

}  // namespace

Status ParseParameters(const Where& where, const YAML::Node& node, std::vector<ParamSpec>* out) {
  FS_ASSIGN_OR_RETURN(MapView params, MapView::Check(where, node, "parameters", {}));
  if (params.entries().empty()) {
    return where.At(node, "parameters: declare at least one parameter");
  }
  std::map<std::string, std::string> by_env;  // environment name -> parameter
  for (const MapEntry& entry : params.entries()) {
    ParamSpec p;
    FS_RETURN_IF_ERROR(ReadParam(where, entry, &p));
    auto [it, fresh] = by_env.emplace(ParamEnvName(p.name), p.name);
    if (!fresh) {
      return where.At(entry.key_node, "parameter '" + p.name + "': it and parameter '" +
                                          it->second + "' both become the environment variable " +
                                          it->first + "; rename one of them");
    }
    out->push_back(std::move(p));
  }
  return Status::Ok();
}

}  // namespace spec_internal
}  // namespace fleetsweep
