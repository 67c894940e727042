#include "worker/executors/env_policy.h"

#include <fnmatch.h>

namespace fleetsweep {
namespace {

bool MatchesAny(const std::vector<std::string>& patterns, const std::string& name) {
  for (const std::string& p : patterns) {
    if (fnmatch(p.c_str(), name.c_str(), 0) == 0) return true;
  }
  return false;
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  for (const std::string& n : names) {
    if (n == name) return true;
  }
  return false;
}

bool IsFleetsweepOwn(const std::string& name) { return name.rfind("FLEETSWEEP_", 0) == 0; }

bool LooksSecret(const std::string& name) {
  static const char* kWords[] = {"PASSWORD",   "PASSWD",  "SECRET",      "TOKEN",
                                 "CREDENTIAL", "API_KEY", "PRIVATE_KEY", "ACCESS_KEY"};
  for (const char* w : kWords) {
    if (name.find(w) != std::string::npos) return true;
  }
  return false;
}

// Why a spec may not set `name` by default; nullptr when it may.
const char* SpecEnvRule(const std::string& name) {
  struct Rule {
    const char* pattern;
    const char* why;
  };
  static const Rule kRules[] = {
      {"LD_*", "the dynamic loader reads it"},
      {"PYTHON*", "the Python interpreter reads it"},
      {"PATH", "it chooses which programs run"},
      {"HOME", "interpreters load user site files from it"},
      {"TMPDIR", "it moves temporary files out of the scratch root"},
      {"XDG_*", "it moves per-user files out of the scratch root"},
      {"*_CACHE_DIR", "compiled-kernel caches load code from it"},
      {"CUDA_CACHE_PATH", "compiled-kernel caches load code from it"},
      {"BASH_ENV", "shells run it"},
      {"ENV", "shells run it"},
      {"IFS", "shells split words with it"},
      {"PERL*", "the Perl interpreter reads it"},
      {"RUBY*", "the Ruby interpreter reads it"},
      {"NODE_*", "Node.js reads it"},
      {"GCONV_PATH", "the C library loads modules from it"},
      {"GLIBC_TUNABLES", "the C library reads it"},
      {"JAVA_TOOL_OPTIONS", "the JVM reads it"},
      {"_JAVA_OPTIONS", "the JVM reads it"},
  };
  for (const Rule& r : kRules) {
    if (fnmatch(r.pattern, name.c_str(), 0) == 0) return r.why;
  }
  return nullptr;
}

}  // namespace

const std::vector<std::string>& DefaultPassEnv() {
  static const std::vector<std::string> kNames = {"PATH",
                                                  "HOME",
                                                  "USER",
                                                  "LOGNAME",
                                                  "SHELL",
                                                  "LANG",
                                                  "LANGUAGE",
                                                  "LC_*",
                                                  "TZ",
                                                  "TERM",
                                                  "TMPDIR",
                                                  "LD_LIBRARY_PATH",
                                                  "PYTHONPATH",
                                                  "PYTHONHOME",
                                                  "VIRTUAL_ENV",
                                                  "CONDA_*",
                                                  "CUDA_*",
                                                  "NVIDIA_*",
                                                  "HIP_*",
                                                  "ROCR_*",
                                                  "ROCM_*",
                                                  "COREX_*",
                                                  "IX_*",
                                                  "OMP_*",
                                                  "MKL_*",
                                                  "OPENBLAS_*",
                                                  "KMP_*",
                                                  "NCCL_*",
                                                  "TORCH_*",
                                                  "TORCHINDUCTOR_*",
                                                  "TRITON_*",
                                                  "VLLM_*",
                                                  "HF_HOME",
                                                  "HF_HUB_OFFLINE",
                                                  "TRANSFORMERS_OFFLINE",
                                                  "XDG_CACHE_HOME"};
  return kNames;
}

std::map<std::string, std::string> InheritedEnv(char** vars, const EnvPolicy& policy) {
  std::map<std::string, std::string> env;
  for (char** e = vars; e && *e; ++e) {
    std::string kv(*e);
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string name = kv.substr(0, eq);
    if (IsFleetsweepOwn(name)) continue;
    const bool named = Contains(policy.pass_env, name);
    if (!named && LooksSecret(name)) continue;
    if (named || MatchesAny(DefaultPassEnv(), name) || MatchesAny(policy.pass_env, name)) {
      env[name] = kv.substr(eq + 1);
    }
  }
  return env;
}

Status CheckSpecEnvName(const std::string& name, const EnvPolicy& policy) {
  const char* why = nullptr;
  if (IsFleetsweepOwn(name)) {
    return Status::FailedPrecondition("env " + name +
                                      ": a spec may not set FLEETSWEEP_* variables (the worker "
                                      "sets them)");
  }
  why = SpecEnvRule(name);
  if (why == nullptr || MatchesAny(policy.allow_spec_env, name)) return Status::Ok();
  return Status::FailedPrecondition("env " + name + ": a spec may not set " + name + " (" + why +
                                    "); a worker allows it with --allow-spec-env " + name);
}

}  // namespace fleetsweep
