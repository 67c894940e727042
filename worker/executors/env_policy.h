// The environment a benchmark child starts with (docs/security.md, "The child's environment").
//
// A child never inherits the worker's environment wholesale: the worker may hold secrets
// (FLEETSWEEP_REDIS_PASSWORD, cloud tokens) that would show in `ps eww`, /proc/PID/environ and
// a stored stdout tail. It starts from an explicit environment:
//   1. the worker's variables whose names match DefaultPassEnv() or EnvPolicy::pass_env (fnmatch
//      patterns), minus FLEETSWEEP_* (always) and names that look secret (PASSWORD, PASSWD,
//      SECRET, TOKEN, CREDENTIAL, API_KEY, PRIVATE_KEY anywhere in the name) unless pass_env names
//      them exactly;
//   2. the spec's `env:` entries, each name checked by CheckSpecEnvName;
//   3. the values the executor sets itself (FLEETSWEEP_PARAM_*, FLEETSWEEP_ATTEMPT_ID, the device
//      variable, ...), which win.
//
// A spec may not set names that make an allowed program load other code or leave the scratch
// root: LD_*, PYTHON*, PATH, HOME, TMPDIR, XDG_*, *_CACHE_DIR, CUDA_CACHE_PATH, BASH_ENV, ENV,
// IFS, PERL*, RUBY*, NODE_*, GCONV_PATH, GLIBC_TUNABLES, JAVA_TOOL_OPTIONS, _JAVA_OPTIONS,
// FLEETSWEEP_*, unless the worker lists the name in EnvPolicy::allow_spec_env (fnmatch patterns;
// FLEETSWEEP_* never). The list is a best effort against known loaders, not a sandbox: an
// allow-listed program that reads code from any other variable can still be steered by it.
//
// Free functions; thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/status.h"

namespace fleetsweep {

struct EnvPolicy {
  std::vector<std::string> pass_env;        // --pass-env: more worker variables for children
  std::vector<std::string> allow_spec_env;  // --allow-spec-env: names a spec may set after all
};

// The worker variables children inherit by default (fnmatch patterns): PATH, HOME, USER, LOGNAME,
// SHELL, LANG, LANGUAGE, LC_*, TZ, TERM, TMPDIR, LD_LIBRARY_PATH, PYTHONPATH, PYTHONHOME,
// VIRTUAL_ENV, CONDA_*, CUDA_*, NVIDIA_*, HIP_*, ROCR_*, ROCM_*, COREX_*, IX_*, OMP_*, MKL_*,
// OPENBLAS_*, KMP_*, NCCL_*, TORCH_*, TORCHINDUCTOR_*, TRITON_*, VLLM_*, HF_HOME, HF_HUB_OFFLINE,
// TRANSFORMERS_OFFLINE, XDG_CACHE_HOME.
const std::vector<std::string>& DefaultPassEnv();

// Step 1 above: the inherited variables of `vars` (a NULL-terminated "NAME=value" array).
std::map<std::string, std::string> InheritedEnv(char** vars, const EnvPolicy& policy);

// OK when a spec may set `name`; else kFailedPrecondition "env NAME: a spec may not set NAME
// (RULE); a worker allows it with --allow-spec-env NAME".
Status CheckSpecEnvName(const std::string& name, const EnvPolicy& policy);

}  // namespace fleetsweep
