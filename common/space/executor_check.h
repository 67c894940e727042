// CheckExecutorSection: reads a spec's executor section the way the worker will, before anything
// runs, so that `fleetsweep validate` and `fleetsweep run` refuse a spec whose every execution
// would fail.
//
// Checked, for `type: exec` (docs/executors.md): the type; unknown keys (with the closest allowed
// name); `command` present, a non-empty list of strings; every `{PLACEHOLDER}` in command, env,
// files and workdir names a parameter that appears in configurations or a built-in
// (BuiltinPlaceholders()); `output`, `timeout`, `files` and `session` shapes; the program
// (command[0] with {FLEETSWEEP_BIN} replaced) exists and is executable, unless it depends on a
// parameter or a per-execution placeholder. For `type: torch`: unknown keys, then the torch
// translation (common/exec/torch_section.h) and the program fleetsweep-torch-bench.
// Finally the executor's own parser reads the section, so that `validate` never says OK to a
// section the worker refuses.
//
// Every problem is reported, not only the first: each message is "FILE:LINE:COLUMN: what" with
// the position in the spec FILE. Never throws. Thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "common/space/spec.h"

namespace fleetsweep {

struct ExecutorCheckOptions {
  // Where {FLEETSWEEP_BIN} points on the machine that will run the benchmarks (the directory of
  // the fleetsweep binaries for local workers). "" = programs under it are not checked.
  std::string bin_dir;
  // Check that the program exists here. Off when the benchmarks run on other machines.
  bool check_programs = true;
  // PATH used for bare program names when the section's env does not set PATH; "" = this
  // process's PATH.
  std::string path;
};

// `spec` must come from ParseSpecText/ParseSpecFile (its text and source are re-read for
// positions). Returns the problems in file order; empty when the section is usable.
std::vector<std::string> CheckExecutorSection(const SweepSpec& spec,
                                              const ExecutorCheckOptions& options);

}  // namespace fleetsweep
