// SweepSpec: the parsed sweep specification (YAML, parsed with yaml-cpp). See docs/spec.md.
//
// ParseSpecFile/ParseSpecText never throw. On bad input they return kInvalidArgument with ONE
// message of the form "FILE:LINE:COLUMN: what is wrong, what was expected" (1-based line and
// column of the offending YAML node).
#pragma once

#include <cstdint>
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
  std::string group;          // "kernel", "engine", ... ("" when the spec gives none)
  ParamFate fate = ParamFate::kSwept;
  std::vector<Value> values;  // swept: the levels in order; pinned: {fixed}; inert: the levels
                              // it would have had (possibly empty)
  std::string reason;         // required for pinned and inert
  int line = 0;               // where it was declared (1-based), for messages
};

struct ConstraintSpec {
  std::string text;                 // as written
  std::shared_ptr<const Expr> expr;  // parsed
  int line = 0;
};

enum class Goal { kMinimize, kMaximize };

struct MetricSpec {
  std::string name;   // e.g. "time_ms", "output_throughput"
  Goal goal = Goal::kMinimize;
  std::string unit;
  // Optional bound (goodput style): a configuration whose median violates it is infeasible.
  std::optional<double> max_value;
  std::optional<double> min_value;
};

struct RepetitionPolicy {
  int min = 3;                    // executions per configuration at least
  int max = 10;                   // and at most
  double target_rel_ci = 0.05;    // stop when the 95% CI half-width / |median| <= this
  int max_failures = 3;           // retry cap: failed attempts before a config is infeasible
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
  std::string source;      // file path (or "<text>")
  std::string text;        // the whole spec text as read
  std::string executor_yaml;  // the executor section, re-emitted as YAML (opaque here)
  std::string executor_type;  // executor.type ("exec", "torch"); "" when absent
  std::vector<ParamSpec> params;  // in declaration order; names unique
  std::vector<ConstraintSpec> constraints;
  RepetitionPolicy repetitions;
  std::vector<MetricSpec> metrics;  // first one is the primary metric; at least one
  std::optional<Config> reference;  // a full configuration (swept + pinned values)
  SearchSpec search;
  double timeout_seconds = 600;     // per execution (executor.timeout overrides)

  const ParamSpec* FindParam(const std::string& name) const;
  const MetricSpec& primary_metric() const { return metrics.front(); }
};

StatusOr<SweepSpec> ParseSpecFile(const std::string& path);
// `source` names the text in messages (a file path or "<lease>").
StatusOr<SweepSpec> ParseSpecText(const std::string& text, const std::string& source);

}  // namespace fleetsweep
