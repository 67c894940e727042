// Sweep spec parsing: the top level, executor, constraints, repetitions, metrics, reference and
// search sections (parameters are in spec_params.cc). Format: docs/spec.md.
#include "common/space/spec.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "common/space/expr.h"
#include "common/space/space_walker.h"
#include "common/space/spec_yaml.h"

namespace fleetsweep {

using spec_internal::LineColumn;
using spec_internal::MapEntry;
using spec_internal::MapView;
using spec_internal::ReadBool;
using spec_internal::ReadInt;
using spec_internal::ReadNumber;
using spec_internal::ReadString;
using spec_internal::ReadValue;
using spec_internal::Where;

const char* ParamFateName(ParamFate fate) {
  switch (fate) {
    case ParamFate::kSwept:
      return "swept";
    case ParamFate::kPinned:
      return "pinned";
    case ParamFate::kInert:
      return "inert";
  }
  return "?";
}

const char* GoalName(Goal goal) { return goal == Goal::kMaximize ? "maximize" : "minimize"; }

const Value* ParamSpec::DefaultValue() const {
  if (fate != ParamFate::kSwept && fixed) return &*fixed;
  if (!values.empty()) return &values.front();
  if (!declared_levels.empty()) return &declared_levels.front();
  return nullptr;
}

std::map<std::string, std::vector<std::string>> SweptLevels(const SweepSpec& spec) {
  std::map<std::string, std::vector<std::string>> out;
  for (const ParamSpec& p : spec.params) {
    if (p.fate != ParamFate::kSwept) continue;
    auto& levels = out[p.name];
    for (const Value& v : p.values) levels.push_back(v.ToString());
  }
  return out;
}

const ParamSpec* SweepSpec::FindParam(const std::string& name) const {
  for (const ParamSpec& p : params) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

namespace {

const std::vector<std::string> kTopKeys = {"sweep",      "description", "executor",
                                           "parameters", "constraints", "repetitions",
                                           "metrics",    "reference",   "search"};
const std::vector<std::string> kRepetitionKeys = {"min", "max", "target_rel_ci", "max_failures",
                                                  "deterministic_failures"};
const std::vector<std::string> kMetricKeys = {"name", "goal", "unit", "max", "min"};
const std::vector<std::string> kSearchKeys = {"strategy", "budget", "seed", "stop_inert_early"};

Status ParseExecutor(const Where& where, const YAML::Node& node, SweepSpec* spec) {
  FS_ASSIGN_OR_RETURN(MapView m, MapView::Check(where, node, "executor", {}));
  spec->executor_type = "exec";
  if (const YAML::Node* t = m.Find("type")) {
    FS_ASSIGN_OR_RETURN(spec->executor_type, ReadString(where, *t, "executor.type"));
  }
  if (const YAML::Node* t = m.Find("timeout")) {
    FS_ASSIGN_OR_RETURN(double s, ReadNumber(where, *t, "executor.timeout"));
    if (!(s > 0)) return where.At(*t, "executor.timeout: must be > 0 seconds");
    spec->timeout_seconds = s;
  }
  YAML::Emitter emitter;
  emitter << node;
  spec->executor_yaml = emitter.c_str();
  return Status::Ok();
}

// Column in the file of the constraint text's first character (quotes skipped).
int TextColumn(const YAML::Node& node) {
  int column = LineColumn(node).second;
  return node.Tag() == "!" ? column + 1 : column;
}

Status ParseConstraints(const Where& where, const YAML::Node& node, SweepSpec* spec) {
  if (!node.IsSequence()) {
    return where.At(node, "constraints: expected a list of expressions like - \"BM % BN == 0\"");
  }
  for (const YAML::Node& item : node) {
    ConstraintSpec c;
    FS_ASSIGN_OR_RETURN(c.text, ReadString(where, item, "constraint"));
    std::tie(c.line, c.column) = LineColumn(item);
    c.column = TextColumn(item);
    int col = 1;
    auto parsed = Expr::Parse(c.text, &col);
    if (!parsed.ok()) {
      return where.At(c.line, c.column + col - 1,
                      "constraint \"" + c.text + "\": " + parsed.status().message());
    }
    c.expr = *parsed;
    for (const std::string& id : c.expr->Identifiers()) {
      const ParamSpec* p = spec->FindParam(id);
      if (!p) {
        std::vector<std::string> names;
        for (const ParamSpec& q : spec->params) names.push_back(q.name);
        std::string hint = spec_internal::ClosestName(id, names);
        size_t at = c.text.find(id);
        return where.At(c.line, c.column + static_cast<int>(at == std::string::npos ? 0 : at),
                        "constraint \"" + c.text + "\": unknown parameter '" + id + "'" +
                            (hint.empty() ? "" : " (did you mean '" + hint + "'?)") +
                            "; declared: " + spec_internal::JoinNames(names));
      }
      if (p->fate == ParamFate::kInert) {
        return where.At(item, "constraint \"" + c.text + "\": parameter '" + id +
                                  "' is inert and never appears in a configuration");
      }
    }
    spec->constraints.push_back(std::move(c));
  }
  return Status::Ok();
}

Status ParseRepetitions(const Where& where, const YAML::Node& node, RepetitionPolicy* r) {
  FS_ASSIGN_OR_RETURN(MapView m, MapView::Check(where, node, "repetitions", kRepetitionKeys));
  auto read_count = [&](const char* key, int minimum, int* out) -> Status {
    const YAML::Node* n = m.Find(key);
    if (!n) return Status::Ok();
    std::string what = std::string("repetitions.") + key;
    FS_ASSIGN_OR_RETURN(int64_t v, ReadInt(where, *n, what));
    if (v < minimum || v > 1000000) {
      return where.At(*n, what + ": must be in [" + std::to_string(minimum) + ", 1000000]");
    }
    *out = static_cast<int>(v);
    return Status::Ok();
  };
  FS_RETURN_IF_ERROR(read_count("min", 1, &r->min));
  FS_RETURN_IF_ERROR(read_count("max", 1, &r->max));
  FS_RETURN_IF_ERROR(read_count("max_failures", 1, &r->max_failures));
  FS_RETURN_IF_ERROR(read_count("deterministic_failures", 1, &r->deterministic_failures));
  if (const YAML::Node* n = m.Find("target_rel_ci")) {
    FS_ASSIGN_OR_RETURN(r->target_rel_ci, ReadNumber(where, *n, "repetitions.target_rel_ci"));
    if (r->target_rel_ci < 0) return where.At(*n, "repetitions.target_rel_ci: must be >= 0");
  }
  if (r->min > r->max) {
    return where.At(m.Find("min") ? *m.Find("min") : node,
                    "repetitions: min (" + std::to_string(r->min) + ") exceeds max (" +
                        std::to_string(r->max) + ")");
  }
  return Status::Ok();
}

Status ParseMetrics(const Where& where, const YAML::Node& node, std::vector<MetricSpec>* out) {
  if (!node.IsSequence() || node.size() == 0) {
    return where.At(node,
                    "metrics: expected a non-empty list like - {name: time_ms, goal: "
                    "minimize}");
  }
  for (const YAML::Node& item : node) {
    FS_ASSIGN_OR_RETURN(MapView m, MapView::Check(where, item, "metric", kMetricKeys));
    MetricSpec metric;
    const YAML::Node* name = m.Find("name");
    if (!name) return where.At(item, "metric: 'name' is required");
    FS_ASSIGN_OR_RETURN(metric.name, ReadString(where, *name, "metric.name"));
    if (metric.name.empty()) return where.At(*name, "metric.name: must not be empty");
    for (const MetricSpec& other : *out) {
      if (other.name == metric.name) {
        return where.At(*name, "metric '" + metric.name + "' is listed twice");
      }
    }
    std::string what = "metric '" + metric.name + "'";
    const YAML::Node* goal = m.Find("goal");
    if (!goal) return where.At(item, what + ": 'goal' is required (minimize or maximize)");
    FS_ASSIGN_OR_RETURN(std::string g, ReadString(where, *goal, what + ".goal"));
    if (g == "minimize") {
      metric.goal = Goal::kMinimize;
    } else if (g == "maximize") {
      metric.goal = Goal::kMaximize;
    } else {
      return where.At(*goal,
                      what + ".goal: unknown goal '" + g + "'; expected minimize or maximize");
    }
    if (const YAML::Node* u = m.Find("unit")) {
      FS_ASSIGN_OR_RETURN(metric.unit, ReadString(where, *u, what + ".unit"));
    }
    if (const YAML::Node* x = m.Find("max")) {
      FS_ASSIGN_OR_RETURN(double v, ReadNumber(where, *x, what + ".max"));
      metric.max_value = v;
    }
    if (const YAML::Node* x = m.Find("min")) {
      FS_ASSIGN_OR_RETURN(double v, ReadNumber(where, *x, what + ".min"));
      metric.min_value = v;
    }
    if (metric.max_value && metric.min_value && *metric.min_value > *metric.max_value) {
      return where.At(item, what + ": min exceeds max");
    }
    out->push_back(std::move(metric));
  }
  return Status::Ok();
}

Status ParseSearch(const Where& where, const YAML::Node& node, SearchSpec* s) {
  FS_ASSIGN_OR_RETURN(MapView m, MapView::Check(where, node, "search", kSearchKeys));
  if (const YAML::Node* n = m.Find("strategy")) {
    FS_ASSIGN_OR_RETURN(s->strategy, ReadString(where, *n, "search.strategy"));
    if (s->strategy != "grid" && s->strategy != "random" && s->strategy != "lhs" &&
        s->strategy != "racing") {
      return where.At(*n, "search.strategy: unknown strategy '" + s->strategy +
                              "'; expected grid, random, lhs or racing");
    }
  }
  if (const YAML::Node* n = m.Find("budget")) {
    FS_ASSIGN_OR_RETURN(s->budget, ReadInt(where, *n, "search.budget"));
    if (s->budget < 0) return where.At(*n, "search.budget: must be >= 0 (0 means all)");
  }
  if (const YAML::Node* n = m.Find("seed")) {
    FS_ASSIGN_OR_RETURN(int64_t seed, ReadInt(where, *n, "search.seed"));
    if (seed < 0) return where.At(*n, "search.seed: must be >= 0");
    s->seed = static_cast<uint64_t>(seed);
  }
  if (const YAML::Node* n = m.Find("stop_inert_early")) {
    FS_ASSIGN_OR_RETURN(s->stop_inert_early, ReadBool(where, *n, "search.stop_inert_early"));
  }
  return Status::Ok();
}

Status ParseReference(const Where& where, const YAML::Node& node, SweepSpec* spec) {
  FS_ASSIGN_OR_RETURN(MapView m, MapView::Check(where, node, "reference", {}));
  Config ref;
  for (const MapEntry& e : m.entries()) {
    const ParamSpec* p = spec->FindParam(e.key);
    if (!p) return where.At(e.key_node, "reference: unknown parameter '" + e.key + "'");
    FS_ASSIGN_OR_RETURN(Value v, ReadValue(where, e.value, "reference." + e.key));
    if (p->fate == ParamFate::kPinned) {
      if (!(v == *p->fixed)) {
        return where.At(e.value, "reference." + e.key + ": parameter is pinned to " +
                                     p->fixed->ToString() + ", reference says " + v.ToString());
      }
    } else {
      const std::vector<Value>& levels = p->values;
      bool known = (p->fixed && v == *p->fixed) ||
                   std::find(levels.begin(), levels.end(), v) != levels.end();
      if (!known && !(p->fate == ParamFate::kInert && levels.empty())) {
        std::string all;
        for (const Value& l : levels) all += (all.empty() ? "" : ", ") + l.ToString();
        return where.At(e.value, "reference." + e.key + ": " + v.ToString() +
                                     " is not one of its levels [" + all + "]");
      }
    }
    if (p->fate != ParamFate::kInert) ref[e.key] = v;  // inert never appear in a Config
  }
  for (const ParamSpec& p : spec->params) {
    if (p.fate == ParamFate::kSwept && !ref.count(p.name)) {
      return where.At(node, "reference: missing swept parameter '" + p.name + "'");
    }
    if (p.fate == ParamFate::kPinned && !ref.count(p.name)) ref[p.name] = *p.fixed;
  }
  for (const ConstraintSpec& c : spec->constraints) {
    StatusOr<Value> holds = c.expr->Eval(ref);
    if (!holds.ok()) return where.At(node, "reference: " + holds.status().message());
    if (holds->type() != Value::Type::kBool || !holds->as_bool()) {
      return where.At(node, "reference violates constraint \"" + c.text + "\"");
    }
  }
  spec->reference = std::move(ref);
  return Status::Ok();
}

// Scans the swept product (bounded) for a constraint after which nothing remains.
Status CheckNotEmpty(const Where& where, const SweepSpec& spec) {
  if (spec.constraints.empty()) return Status::Ok();
  auto walker_or = SpaceWalker::Create(spec);
  if (!walker_or.ok()) return where.At(1, 1, walker_or.status().message());
  SpaceWalker& walker = **walker_or;
  const size_t n = walker.num_constraints();
  std::vector<uint64_t> reached(n + 1, 0);  // reached[k]: configs passing constraints 0..k-1
  uint64_t scanned = 0;
  size_t best = 0;
  while (walker.Advance()) {
    if (++scanned > kEmptySpaceScanLimit) return Status::Ok();  // inconclusive; not an error
    Status error;
    size_t failed = 0;
    int passing = walker.Passing(&error, &failed);
    if (passing < 0) {
      const ConstraintSpec& c = spec.constraints[failed];
      return where.At(c.line, c.column, error.message());
    }
    if (static_cast<size_t>(passing) == n) return Status::Ok();
    best = std::max(best, static_cast<size_t>(passing));
    for (int k = 0; k <= passing; ++k) ++reached[k];
  }
  if (scanned == 0) return Status::Ok();
  const ConstraintSpec& c = spec.constraints[best];
  return where.At(c.line, c.column,
                  "constraint " + std::to_string(best + 1) + " \"" + c.text +
                      "\" leaves no configuration (" + std::to_string(reached[best]) +
                      " configurations satisfied the constraints before it, 0 after)");
}

Status ParseRoot(const Where& where, const YAML::Node& root, SweepSpec* spec) {
  if (!root.IsDefined() || root.IsNull()) {
    return where.At(1, 1, "the spec is empty; expected a map with 'sweep' and 'parameters'");
  }
  FS_ASSIGN_OR_RETURN(MapView m, MapView::Check(where, root, "the top level", kTopKeys));
  // Each section is parsed even when an earlier one failed, so that one run of `validate` names
  // the first problem of every section (sections that need the parameters are skipped when the
  // parameters failed).
  std::vector<Status> problems;
  auto note = [&](Status s) {
    const bool ok = s.ok();
    if (!ok) problems.push_back(std::move(s));
    return ok;
  };
  const YAML::Node* name = m.Find("sweep");
  if (!name) {
    note(where.At(root, "missing required key 'sweep' (the sweep's name)"));
  } else if (auto n = ReadString(where, *name, "sweep"); note(n.status())) {
    spec->name = *n;
    static const std::regex kName("[A-Za-z0-9_.-]+");
    if (!std::regex_match(spec->name, kName)) {
      note(where.At(*name, "sweep: name '" + spec->name + "' must match [A-Za-z0-9_.-]+"));
    }
  }
  if (const YAML::Node* d = m.Find("description")) {
    if (auto text = ReadString(where, *d, "description"); note(text.status())) {
      spec->description = *text;
    }
  }
  if (const YAML::Node* e = m.Find("executor")) note(ParseExecutor(where, *e, spec));
  const YAML::Node* params = m.Find("parameters");
  const bool params_ok = params
                             ? note(spec_internal::ParseParameters(where, *params, &spec->params))
                             : note(where.At(root, "missing required key 'parameters'"));
  if (const YAML::Node* c = m.Find("constraints"); c && params_ok) {
    note(ParseConstraints(where, *c, spec));
  }
  if (const YAML::Node* r = m.Find("repetitions")) {
    note(ParseRepetitions(where, *r, &spec->repetitions));
  }
  if (const YAML::Node* x = m.Find("metrics")) {
    note(ParseMetrics(where, *x, &spec->metrics));
  } else {
    spec->metrics.push_back({"time_ms", Goal::kMinimize, "ms", std::nullopt, std::nullopt});
  }
  if (const YAML::Node* s = m.Find("search")) note(ParseSearch(where, *s, &spec->search));
  if (const YAML::Node* r = m.Find("reference"); r && params_ok) {
    note(ParseReference(where, *r, spec));
  }
  if (problems.empty()) return CheckNotEmpty(where, *spec);
  std::string all;
  for (const Status& p : problems) all += (all.empty() ? "" : "\n") + p.message();
  return Status(problems.front().code(), all);
}

}  // namespace

StatusOr<SweepSpec> ParseSpecText(const std::string& text, const std::string& source) {
  Where where(source);
  SweepSpec spec;
  spec.source = source;
  spec.text = text;
  try {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::ParserException& e) {
      return where.At(e.mark, "malformed YAML: " + e.msg);
    }
    FS_RETURN_IF_ERROR(ParseRoot(where, root, &spec));
  } catch (const YAML::Exception& e) {
    return where.At(e.mark, "cannot read the spec: " + e.msg);
  } catch (const std::exception& e) {
    return where.At(1, 1, std::string("cannot read the spec: ") + e.what());
  }
  return spec;
}

StatusOr<SweepSpec> ParseSpecFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path + ": cannot read: " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return Status::NotFound(path + ": cannot read: " + std::strerror(errno));
  return ParseSpecText(buffer.str(), path);
}

}  // namespace fleetsweep
