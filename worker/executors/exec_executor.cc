#include "worker/executors/exec_executor.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "worker/executors/child_process.h"
#include "worker/executors/classify.h"
#include "worker/executors/confine.h"
#include "worker/executors/output_formats.h"

extern char** environ;

namespace fleetsweep {
namespace {

namespace fs = std::filesystem;

// The execution's workdir inside the scratch root: planned first (its path is templated into
// argv, env and files), created only after the allow-list check; a fresh one (no `workdir:` in
// the section) is removed (recursively) when the run ends.
class ScopedWorkdir {
 public:
  ~ScopedWorkdir() {
    if (owned_ && created_) {
      std::error_code ec;
      fs::remove_all(path_, ec);
    }
  }
  // `configured` is the templated `workdir:` (relative to the root, or absolute inside it).
  Status Plan(const std::string& root, const std::string& configured,
              const std::string& attempt_id) {
    root_ = root;
    if (!configured.empty()) {
      FS_ASSIGN_OR_RETURN(path_, ConfinePath(root, root, configured));
      return Status::Ok();
    }
    std::string name = "run-";
    for (char c : attempt_id.substr(0, 120))
      name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    path_ = (fs::path(root) / name).string();
    owned_ = true;
    return Status::Ok();
  }
  Status Create() {
    if (owned_) {
      std::string base = path_;
      for (int i = 1; mkdir(path_.c_str(), 0700) != 0; ++i) {
        if (errno != EEXIST || i > 100) {
          return Status::Internal("cannot create workdir " + path_ + ": " + strerror(errno));
        }
        path_ = base + "-" + std::to_string(i);
      }
      created_ = true;
      return Status::Ok();
    }
    FS_ASSIGN_OR_RETURN(path_, MakeConfinedDir(root_, path_));
    created_ = true;
    return Status::Ok();
  }
  const std::string& path() const { return path_; }
  // Hands the directory to the caller: it is no longer removed here. True when it was owned.
  bool Release() {
    bool owned = owned_;
    owned_ = false;
    return owned;
  }
  const std::string& root() const { return root_; }

 private:
  std::string root_, path_;
  bool owned_ = false, created_ = false;
};

struct Prepared {
  std::vector<std::string> argv;
  std::string path;  // resolved executable
  std::vector<std::string> env;
  std::vector<std::pair<std::string, std::string>> files;  // absolute path, contents
};

// The child's explicit environment (env_policy.h): inherited worker variables (no secrets), the
// section's env (names checked), then the executor's own values.
std::map<std::string, std::string> BuildEnv(const ExecSpec& spec, const ExecutionRequest& req,
                                            const std::map<std::string, std::string>& vars,
                                            const std::string& workdir, Status* st) {
  std::map<std::string, std::string> env = InheritedEnv(environ, req.env_policy);
  for (const auto& [name, value] : spec.env) {
    Status allowed = CheckSpecEnvName(name, req.env_policy);
    if (!allowed.ok()) {
      *st = allowed;
      return env;
    }
    StatusOr<std::string> v = Substitute(value, vars);
    if (!v.ok()) {
      *st = v.status().WithContext("env " + name);
      return env;
    }
    env[name] = *v;
  }
  for (const auto& [name, value] : req.params) env[ParamEnvName(name)] = value.ToString();
  env["FLEETSWEEP_ATTEMPT_ID"] = req.attempt_id;
  env["FLEETSWEEP_SLOT"] = std::to_string(req.slot);
  env["FLEETSWEEP_WORKDIR"] = workdir;
  if (!req.device.empty() && !req.device_env.empty()) env[req.device_env] = req.device;
  for (const auto& [name, value] : req.extra_env) env[name] = value;
  return env;
}

Status Prepare(const ExecSpec& spec, const ExecutionRequest& req,
               const std::map<std::string, std::string>& vars, const std::string& workdir,
               Prepared* out) {
  for (const std::string& arg : spec.command) {
    StatusOr<std::string> a = Substitute(arg, vars);
    if (!a.ok()) return a.status().WithContext("command");
    out->argv.push_back(*a);
  }
  Status st;
  std::map<std::string, std::string> env = BuildEnv(spec, req, vars, workdir, &st);
  FS_RETURN_IF_ERROR(st);
  for (const auto& [name, value] : env) out->env.push_back(name + "=" + value);
  for (const ExecFileSpec& f : spec.files) {
    StatusOr<std::string> rel = Substitute(f.path, vars);
    if (!rel.ok()) return rel.status().WithContext("files.path");
    fs::path p = fs::path(*rel).lexically_normal();
    if (p.is_absolute() || p.empty() || *p.begin() == "..") {
      return Status::FailedPrecondition("files.path '" + *rel + "' leaves the workdir");
    }
    StatusOr<std::string> body = Substitute(f.contents, vars);
    if (!body.ok()) return body.status().WithContext("files " + *rel);
    out->files.emplace_back((fs::path(workdir) / p).string(), *body);
  }
  std::string search = "/usr/local/bin:/usr/bin:/bin";
  for (const std::string& kv : out->env) {
    if (kv.rfind("PATH=", 0) == 0) search = kv.substr(5);
  }
  FS_ASSIGN_OR_RETURN(out->path, ResolveExecutable(out->argv[0], search, workdir));
  return Status::Ok();
}

bool Allowed(const std::vector<std::string>& patterns, const std::string& path) {
  std::vector<std::string> candidates = {path};
  char* real = realpath(path.c_str(), nullptr);
  if (real) {
    candidates.emplace_back(real);
    free(real);
  }
  for (const std::string& pattern : patterns) {
    for (const std::string& c : candidates) {
      if (fnmatch(pattern.c_str(), c.c_str(), 0) == 0) return true;
    }
  }
  return false;
}

Status WriteFiles(const std::string& root, const Prepared& p) {
  for (const auto& [path, body] : p.files) {
    Status st = WriteConfinedFile(root, path, body);
    if (!st.ok()) return st.WithContext("files");
  }
  return Status::Ok();
}

// The result file, relative to the workdir or absolute, read only inside the scratch root.
Status ReadOutputFile(const ExecOutputSpec& output, const std::string& root,
                      const std::string& workdir, ProtocolState* state) {
  StatusOr<std::string> path = ConfinePath(root, workdir, output.file);
  if (!path.ok()) return path.status().WithContext("result file");
  StatusOr<std::string> body = ReadConfinedFile(root, *path, kMaxOutputFileBytes);
  if (!body.ok()) return body.status().WithContext("result file");
  return ParseOutputFile(output.format, *path, *body, state);
}

// Policy refusals (confinement, env names) are REFUSED; anything else failing before the launch
// is LAUNCH.
v1::FailureClass PrepareFailureClass(const Status& st) {
  return st.code() == StatusCode::kFailedPrecondition ? v1::FAILURE_CLASS_REFUSED
                                                      : v1::FAILURE_CLASS_LAUNCH;
}

void SetInfo(v1::Attempt* a, const std::string& key, const std::string& value) {
  (*a->mutable_info())[key] = value;
}

void Fail(v1::Attempt* a, v1::FailureClass cls, const std::string& detail) {
  a->set_ok(false);
  a->set_failure_class(cls);
  a->set_failure_detail(detail);
  a->set_exit_code(-1);
}

}  // namespace

void FillAttempt(const Classification& c, const ProtocolState& protocol, const RunOutcome& outcome,
                 const OutputStream& out, const OutputStream& err, const Status& output_status,
                 v1::Attempt* attempt) {
  attempt->set_ok(c.ok);
  attempt->set_failure_class(c.failure_class);
  std::string detail = c.detail;
  if (!output_status.ok() && c.failure_class == v1::FAILURE_CLASS_BAD_OUTPUT) {
    detail += "; " + output_status.message();
  }
  attempt->set_failure_detail(detail);
  if (c.ok) {
    for (const ProtocolState::Sample& s : protocol.samples()) {
      v1::Sample* sample = attempt->add_samples();
      sample->set_metric(s.metric);
      sample->set_value(s.value);
    }
  } else if (!protocol.samples().empty()) {
    SetInfo(attempt, "exec.samples_discarded", std::to_string(protocol.samples().size()));
  }
  attempt->set_fingerprint(protocol.fingerprint());
  if (protocol.check_present()) {
    v1::Check* check = attempt->mutable_check();
    check->set_present(true);
    check->set_passed(protocol.check_passed());
    check->set_max_rel_error(protocol.check_max_rel_error());
    check->set_tolerance(protocol.check_tolerance());
    check->set_detail(protocol.check_detail());
  }
  attempt->set_stdout_tail(outcome.stdout_tail);
  attempt->set_stderr_tail(outcome.stderr_tail);
  attempt->set_exit_code(outcome.exit_code);
  attempt->set_term_signal(outcome.term_signal);
  for (const auto& [k, v] : protocol.info()) SetInfo(attempt, k, v);
  if (protocol.bad_lines() > 0) {
    SetInfo(attempt, "exec.bad_protocol_lines", std::to_string(protocol.bad_lines()));
    SetInfo(attempt, "exec.first_bad_protocol_line", protocol.first_bad_line_error());
  }
  if (protocol.samples_dropped() > 0) {
    SetInfo(attempt, "exec.samples_dropped", std::to_string(protocol.samples_dropped()));
  }
  if (out.long_lines() + err.long_lines() > 0) {
    SetInfo(attempt, "exec.long_lines_cut", std::to_string(out.long_lines() + err.long_lines()));
  }
  if (!output_status.ok()) SetInfo(attempt, "exec.output_file_error", output_status.message());
  SetInfo(attempt, "exec.stdout_bytes", std::to_string(out.total_bytes()));
  SetInfo(attempt, "exec.stderr_bytes", std::to_string(err.total_bytes()));
}

Status PlanLaunch(const ExecSpec& spec, const ExecutionRequest& req, LaunchPlan* plan,
                  v1::FailureClass* cls) {
  *cls = v1::FAILURE_CLASS_LAUNCH;
  std::map<std::string, std::string> vars;
  for (const auto& [name, value] : req.params) vars[name] = value.ToString();
  vars["FLEETSWEEP_BIN"] = req.worker_bin_dir;
  vars["SLOT"] = std::to_string(req.slot);
  vars["DEVICE"] = req.device;
  vars["ATTEMPT_ID"] = req.attempt_id;
  FS_ASSIGN_OR_RETURN(std::string root, PrepareScratchRoot(req.scratch_root));
  ScopedWorkdir workdir;
  std::string configured;
  if (!spec.workdir.empty()) {
    StatusOr<std::string> w = Substitute(spec.workdir, vars);
    if (!w.ok()) return w.status().WithContext("workdir");
    configured = *w;
  }
  Status st = workdir.Plan(root, configured, req.attempt_id);
  if (!st.ok()) {
    *cls = PrepareFailureClass(st);
    return st.WithContext("workdir");
  }
  vars["WORKDIR"] = workdir.path();
  Prepared prep;
  st = Prepare(spec, req, vars, workdir.path(), &prep);
  if (!st.ok()) {
    *cls = PrepareFailureClass(st);
    return st;
  }
  if (!req.allow_exec.empty() && !Allowed(req.allow_exec, prep.path)) {
    *cls = v1::FAILURE_CLASS_REFUSED;
    std::string patterns;
    for (const std::string& p : req.allow_exec) patterns += (patterns.empty() ? "" : ", ") + p;
    return Status::InvalidArgument("refused to run " + prep.path +
                                   ": not in this worker's exec allow-list (" + patterns + ")");
  }
  st = workdir.Create();
  if (st.ok()) st = WriteFiles(root, prep);
  if (!st.ok()) {
    *cls = PrepareFailureClass(st);
    return st;
  }
  plan->argv = std::move(prep.argv);
  plan->path = std::move(prep.path);
  plan->env = std::move(prep.env);
  plan->workdir = workdir.path();
  plan->owns_workdir = workdir.Release();
  return Status::Ok();
}

StatusOr<std::unique_ptr<ExecExecutor>> ExecExecutor::Create(const std::string& executor_yaml) {
  FS_ASSIGN_OR_RETURN(ExecSpec spec, ParseExecSpec(executor_yaml));
  return std::make_unique<ExecExecutor>(std::move(spec));
}

v1::Attempt ExecExecutor::Run(const ExecutionRequest& req) {
  v1::Attempt attempt;
  attempt.set_started_unix_ms(std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count());
  auto start = std::chrono::steady_clock::now();
  auto finish = [&]() {
    attempt.set_duration_seconds(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return attempt;
  };

  std::map<std::string, std::string> vars;
  for (const auto& [name, value] : req.params) vars[name] = value.ToString();
  vars["FLEETSWEEP_BIN"] = req.worker_bin_dir;
  vars["SLOT"] = std::to_string(req.slot);
  vars["DEVICE"] = req.device;
  vars["ATTEMPT_ID"] = req.attempt_id;

  StatusOr<std::string> root = PrepareScratchRoot(req.scratch_root);
  if (!root.ok()) {
    Fail(&attempt, v1::FAILURE_CLASS_LAUNCH, root.status().message());
    return finish();
  }
  ScopedWorkdir workdir;
  std::string configured;
  if (!spec_.workdir.empty()) {
    StatusOr<std::string> w = Substitute(spec_.workdir, vars);
    if (!w.ok()) {
      Fail(&attempt, v1::FAILURE_CLASS_LAUNCH, "workdir: " + w.status().message());
      return finish();
    }
    configured = *w;
  }
  Status st = workdir.Plan(*root, configured, req.attempt_id);
  if (!st.ok()) {
    Fail(&attempt, PrepareFailureClass(st), "workdir: " + st.message());
    return finish();
  }
  vars["WORKDIR"] = workdir.path();

  Prepared prep;
  st = Prepare(spec_, req, vars, workdir.path(), &prep);
  if (!st.ok()) {
    Fail(&attempt, PrepareFailureClass(st), st.message());
    return finish();
  }
  SetInfo(&attempt, "exec.path", prep.path);
  if (!req.allow_exec.empty() && !Allowed(req.allow_exec, prep.path)) {
    std::string patterns;
    for (const std::string& p : req.allow_exec) patterns += (patterns.empty() ? "" : ", ") + p;
    Fail(&attempt, v1::FAILURE_CLASS_REFUSED,
         "refused to run " + prep.path + ": not in this worker's exec allow-list (" + patterns +
             ")");
    return finish();
  }
  st = workdir.Create();
  if (st.ok()) st = WriteFiles(*root, prep);
  if (!st.ok()) {
    Fail(&attempt, PrepareFailureClass(st), st.message());
    return finish();
  }

  ProtocolState protocol;
  RunOutcome outcome;
  outcome.protocol = &protocol;
  OutputStream out(kTailBytes, kMaxLineBytes, [&](std::string_view line) {
    protocol.Feed(line);
    ScanLineForHints(line, &outcome.hints);
  });
  OutputStream err(kTailBytes, kMaxLineBytes,
                   [&](std::string_view line) { ScanLineForHints(line, &outcome.hints); });

  ChildSpec child;
  child.path = prep.path;
  child.argv = prep.argv;
  child.env = prep.env;
  child.workdir = workdir.path();
  child.timeout_seconds = spec_.timeout_seconds > 0 ? spec_.timeout_seconds : req.timeout_seconds;
  child.grace_seconds = grace_seconds_;
  child.cancel = req.cancel;
  child.cancel_fd = req.cancel_fd;
  int64_t oom_before = CgroupOomKills();
  ChildResult res = RunChild(child, &out, &err);
  int64_t oom_after = oom_before >= 0 ? CgroupOomKills() : -1;

  Status output_status;
  if (res.launch_error.empty() && !spec_.output.file.empty()) {
    output_status = ReadOutputFile(spec_.output, *root, workdir.path(), &protocol);
  }

  outcome.launch_error = res.launch_error;
  outcome.timed_out = res.timed_out;
  outcome.timeout_seconds = child.timeout_seconds;
  outcome.cancelled = res.cancelled;
  outcome.exited = res.exited;
  outcome.exit_code = res.exit_code;
  outcome.term_signal = res.term_signal;
  outcome.oom_kill_observed = oom_after > oom_before;
  outcome.stdout_tail = out.Tail();
  outcome.stderr_tail = err.Tail();
  Classification c = Classify(outcome);

  FillAttempt(c, protocol, outcome, out, err, output_status, &attempt);
  if (res.cancelled) SetInfo(&attempt, "exec.cancelled", "true");
  return finish();
}

}  // namespace fleetsweep
