// ExecSpec: the parsed executor section of type exec, and the placeholder templating it uses.
//
//   type: exec
//   command: ["{FLEETSWEEP_BIN}/fleetsweep-matmul-bench", "--bm", "{BM}"]   # argv, never a shell
//   workdir: /tmp/x        # optional, templated; default: a fresh temp dir removed after the run
//   timeout: 30            # seconds, optional; else ExecutionRequest::timeout_seconds
//   env: {OMP_NUM_THREADS: "1"}                       # values templated
//   files: [{path: config.json, template: '{"M": {BM}}'}]   # written into the workdir
//   output: stdout         # or {file: result.json, format: protocol | vllm-bench}
//
// Templates: `{NAME}` is replaced by the value of NAME, where NAME is
// [A-Za-z_][A-Za-z0-9_.-]*; `{{` is a literal `{`; a `{` that does not start `{NAME}` and every
// `}` are literal (so JSON templates need no escaping). An unknown NAME is an error naming it.
//
// Errors: ParseExecSpec returns kInvalidArgument naming the bad key; it never throws.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/space/value.h"
#include "common/status.h"

namespace fleetsweep {

struct ExecFileSpec {
  std::string path;      // templated; relative to the workdir, no ".." component
  std::string contents;  // templated
};

struct ExecOutputSpec {
  std::string file;                 // "" = protocol lines on stdout
  std::string format = "protocol";  // protocol | vllm-bench (file only)
};

// `session:` of the exec section (docs/executors.md "Sessions").
//   session: {mode: persistent, max_executions: 500, restart_every_s: 600}
struct ExecSessionSpec {
  bool persistent = false;     // mode: one-shot (default) | persistent
  int64_t max_executions = 0;  // recycle the process after this many executions (0: never)
  double restart_every_s = 0;  // recycle the process after this age (0: never)
  double ready_timeout_s = 0;  // wait this long for "ready" (0: the execution timeout)
};

struct ExecSpec {
  std::vector<std::string> command;  // templated argv; at least one element
  std::string workdir;               // templated; "" = fresh temp dir
  double timeout_seconds = 0;        // 0 = none given
  std::map<std::string, std::string> env;
  std::vector<ExecFileSpec> files;
  ExecOutputSpec output;
  ExecSessionSpec session;
};

// The placeholder names `text` uses ({NAME}; `{{` is a literal brace), in order, without repeats.
std::vector<std::string> PlaceholderNames(const std::string& text);

// Every placeholder the section's command, workdir, env values and files use.
std::vector<std::string> SectionPlaceholders(const ExecSpec& spec);

StatusOr<ExecSpec> ParseExecSpec(const std::string& executor_yaml);

// Substitutes `{NAME}` placeholders. kInvalidArgument "unknown placeholder {NAME}" when a name
// has no variable.
StatusOr<std::string> Substitute(const std::string& text,
                                 const std::map<std::string, std::string>& vars);

// The placeholders every execution defines besides the configuration's parameters (the exec
// executor fills them; `validate` accepts them): FLEETSWEEP_BIN, SLOT, DEVICE, ATTEMPT_ID, WORKDIR.
const std::vector<std::string>& BuiltinPlaceholders();

// ParamEnvName (FLEETSWEEP_PARAM_<NAME>) is declared in common/space/value.h.

}  // namespace fleetsweep
