// SweepSpec: the parsed sweep specification (YAML, parsed with yaml-cpp). See docs/spec.md.
//
// ParseSpecFile/ParseSpecText never throw. On bad input they return kInvalidArgument with one
// line per problem, each of the form "FILE:LINE:COLUMN: what is wrong, what was expected"
// (1-based line and column of the offending YAML node): the first problem of each top-level
// section (malformed YAML or an unknown top-level key stop at once; constraints and reference are
// not checked when the parameters failed).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/space/value.h"
#include "common/status.h"

namespace YAML {
class Node;
}

namespace fleetsweep {

class Expr;  // common/space/expr.h

enum class ParamFate { kSwept, kPinned, kInert };
const char* ParamFateName(ParamFate fate);

struct ParamSpec {
  std::string name;
  std::string group;  // "kernel", "engine", ... ("" when the spec gives none)
  ParamFate fate = ParamFate::kSwept;
  std::vector<Value> values;  // swept: the levels in order; pinned: {fixed}; inert: the levels
                              // it would have had (possibly empty)
  std::string reason;         // required for pinned and inert
  int line = 0;               // where it was declared (1-based), for messages
  int column = 0;             // (1-based)
  // Added by the space parser (docs/spec.md):
  std::optional<Value> fixed;          // pinned: the value; inert: the `fixed` given, if any
  std::vector<Value> declared_levels;  // levels written (values/range): swept and inert equal
                                       // `values`; pinned: the levels it would have had (may be
                                       // empty). Raw space size multiplies these.
  std::string description;             // free text, optional
  bool restart = false;  // `restart: true`: changing it needs a new benchmark process (a
                         // persistent session serves one value only; docs/executors.md)

  // The value downstream consumers (export, engine flags) should use for a parameter that is not
  // swept: `fixed` when given, else the first level; nullptr when there is none. For a swept
  // parameter: the first level.
  const Value* DefaultValue() const;
};

struct ConstraintSpec {
  std::string text;                  // as written
  std::shared_ptr<const Expr> expr;  // parsed
  int line = 0;
  int column = 0;  // 1-based column of the first character of the constraint text in the file
};

enum class Goal { kMinimize, kMaximize };
const char* GoalName(Goal goal);  // "minimize" / "maximize"

struct MetricSpec {
  std::string name;  // e.g. "time_ms", "output_throughput"
  Goal goal = Goal::kMinimize;
  std::string unit;
  // Optional bound (goodput style): a configuration whose median violates it is infeasible.
  std::optional<double> max_value;
  std::optional<double> min_value;
};

struct RepetitionPolicy {
  int min = 3;                     // executions per configuration at least
  int max = 10;                    // and at most
  double target_rel_ci = 0.05;     // stop when the 95% CI half-width / |median| <= this
  int max_failures = 3;            // retry cap: failed attempts before a config is infeasible
  int deterministic_failures = 2;  // identical deterministic failures before infeasible
};

struct SearchSpec {
  std::string strategy = "grid";  // grid | random | lhs | racing
  int64_t budget = 0;             // configurations for random/lhs; 0 = all
  uint64_t seed = 1;
  bool stop_inert_early = false;
};

struct SweepSpec {
  std::string name;
  std::string description;        // optional free text
  std::string source;             // file path (or "<text>")
  std::string text;               // the whole spec text as read
  std::string executor_yaml;      // the executor section, re-emitted as YAML (opaque here)
  std::string executor_type;      // executor.type ("exec", "torch"); "" when absent
  std::vector<ParamSpec> params;  // in declaration order; names unique
  std::vector<ConstraintSpec> constraints;
  RepetitionPolicy repetitions;
  std::vector<MetricSpec> metrics;  // first one is the primary metric; at least one
  std::optional<Config> reference;  // a full configuration (swept + pinned values)
  SearchSpec search;
  double timeout_seconds = 600;  // per execution (executor.timeout overrides)

  const ParamSpec* FindParam(const std::string& name) const;
  const MetricSpec& primary_metric() const { return metrics.front(); }
};

// Parser limits (docs/spec.md). A parameter may have at most kMaxLevelsPerParam levels. To find a
// constraint that empties the space the parser scans at most kEmptySpaceScanLimit configurations
// of the swept product; beyond that the check is skipped (CountSpace still reports 0).
constexpr size_t kMaxLevelsPerParam = 1000000;
constexpr uint64_t kEmptySpaceScanLimit = 5000000;

// The swept parameters and their levels as canonical text, each in the spec's order (what a torch
// section's `prewarm: [NAME, ...]` expands to; common/exec/torch_section.h).
std::map<std::string, std::vector<std::string>> SweptLevels(const SweepSpec& spec);

// Reads and parses a spec file. A file that cannot be read is kNotFound ("PATH: cannot read: ...").
StatusOr<SweepSpec> ParseSpecFile(const std::string& path);
// `source` names the text in messages (a file path or "<lease>").
StatusOr<SweepSpec> ParseSpecText(const std::string& text, const std::string& source);

}  // namespace fleetsweep
