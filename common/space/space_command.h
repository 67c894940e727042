// The `fleetsweep space` and `fleetsweep validate` subcommands, as library functions so that the
// CLI stays thin and tests call exactly what the binary runs.
//
// Both read the spec file, write their report to `out` and problems to `err`, and return a
// process exit code: 0 success, 2 bad or unreadable spec (including a constraint that cannot be
// evaluated on some configuration). They never throw. Thread-compatible.
#pragma once

#include <ostream>
#include <string>

#include "common/space/executor_check.h"

namespace fleetsweep {

constexpr int kExitOk = 0;
constexpr int kExitBadSpec = 2;

// Prune-only analysis of a spec (the part of bench_bi100.py the seed calls valid):
//  * each parameter's fate (swept / pinned / inert), group, level count, levels, reason;
//  * the size of the space after each step: raw product, minus inert, minus pinned, after each
//    constraint (cumulative, named), final;
//  * the first `first_n` configurations that satisfy the constraints (hash + parameters);
//    first_n == 0 prints none, first_n < 0 prints all.
// count_only: print only the final count (one number and a newline; with json: {"count": N}).
// json: print one JSON object instead of text (schema in docs/spec.md, "fleetsweep space").
int SpaceCommand(const std::string& spec_path, bool count_only, bool json, int first_n,
                 std::ostream& out, std::ostream& err);

// Parses the spec, counts its space (so that constraints are evaluated on every configuration)
// and checks the executor section (CheckExecutorSection with `executor`: every problem, one per
// line, "FILE:LINE:COLUMN: ..."). Prints one line "OK: <path>: sweep <name>: ..." on success.
int ValidateCommand(const std::string& spec_path, std::ostream& out, std::ostream& err,
                    const ExecutorCheckOptions& executor = {});

}  // namespace fleetsweep
