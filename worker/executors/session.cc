#include "worker/executors/session.h"

#include <algorithm>
#include <atomic>

#include "nlohmann/json.hpp"
#include "worker/executors/exec_executor.h"
#include "worker/executors/persistent_session.h"

#ifdef FLEETSWEEP_HAVE_TORCH_SECTION
#include "common/exec/torch_section.h"
#endif

#include <yaml-cpp/yaml.h>

namespace fleetsweep {
namespace {

// Names the worker defines itself; they are never session-key parameters.
bool BuiltIn(const std::string& name) {
  return name == "FLEETSWEEP_BIN" || name == "SLOT" || name == "DEVICE" || name == "ATTEMPT_ID" ||
         name == "WORKDIR";
}

// A new process per execution: ExecExecutor::Run, holding the device's timing gate for the
// whole process (its timed part cannot be told apart from its start and compilation).
class OneShotSession : public Session {
 public:
  explicit OneShotSession(ExecExecutor* executor) : executor_(executor) {}
  v1::Attempt Execute(const ExecutionRequest& req, TimingGate* gate) override {
    TimingHold hold(gate, req.cancel);
    if (!hold.held()) {
      v1::Attempt a;
      a.set_ok(false);
      a.set_failure_class(v1::FAILURE_CLASS_SIGNAL);
      a.set_failure_detail("cancelled by the worker before it started");
      a.set_exit_code(-1);
      (*a.mutable_info())["exec.cancelled"] = "true";
      return a;
    }
    v1::Attempt a = executor_->Run(req);
    (*a.mutable_info())["session.mode"] = "one-shot";
    (*a.mutable_info())["session.position"] = "1";
    return a;
  }
  bool Reusable() const override { return true; }
  const SessionKey& key() const override { return key_; }

 private:
  ExecExecutor* executor_;  // Run() is thread-safe (exec_executor.h)
  SessionKey key_;
};

StatusOr<std::string> ExecYaml(const std::string& executor_yaml,
                               const std::map<std::string, std::vector<std::string>>& levels) {
  std::string type = "exec";
  try {
    YAML::Node root = YAML::Load(executor_yaml);
    if (!root.IsMap()) return Status::InvalidArgument("executor section: expected a map");
    if (root["type"]) {
      if (!root["type"].IsScalar()) {
        return Status::InvalidArgument("executor section: type must be a name");
      }
      type = root["type"].Scalar();
    }
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("executor section: ") + e.what());
  }
  if (type == "exec") return executor_yaml;
  if (type == "torch") {
#ifdef FLEETSWEEP_HAVE_TORCH_SECTION
    return TorchSectionToExecYaml(executor_yaml, levels);
#else
    (void)levels;
    return Status::InvalidArgument(
        "executor section: type 'torch' is not available: torch executor not built");
#endif
  }
  return Status::InvalidArgument("executor section: unknown type '" + type +
                                 "' (expected exec or torch)");
}

std::atomic<uint64_t> g_session_counter{0};

}  // namespace

std::string SessionKey::Text() const {
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out += ',';
    out += name + "=" + value;
  }
  return out;
}

bool SessionKey::Matches(const Config& config) const {
  for (const auto& [name, value] : params) {
    auto it = config.find(name);
    if (it == config.end() || it->second.ToString() != value) return false;
  }
  return true;
}

std::string ParamsJson(const Config& params) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, value] : params) j[name] = value.ToString();
  return j.dump();
}

StatusOr<std::unique_ptr<Launcher>> Launcher::Create(
    const std::string& executor_yaml, const std::vector<std::string>& restart_params,
    const std::map<std::string, std::vector<std::string>>& swept_levels) {
  FS_ASSIGN_OR_RETURN(std::string exec_yaml, ExecYaml(executor_yaml, swept_levels));
  FS_ASSIGN_OR_RETURN(ExecSpec spec, ParseExecSpec(exec_yaml));
  if (spec.session.persistent && !spec.output.file.empty()) {
    return Status::InvalidArgument(
        "executor section: output.file is not supported with session mode persistent (print "
        "protocol lines on stdout)");
  }
  std::vector<std::string> key;
  if (spec.session.persistent) {
    for (const std::string& name : SectionPlaceholders(spec)) {
      if (!BuiltIn(name)) key.push_back(name);
    }
    for (const std::string& name : restart_params) {
      if (std::find(key.begin(), key.end(), name) == key.end()) key.push_back(name);
    }
  }
  auto launcher = std::unique_ptr<Launcher>(new Launcher(spec, std::move(key)));
  launcher->one_shot_ = std::make_shared<ExecExecutor>(std::move(spec));
  return launcher;
}

SessionKey Launcher::KeyFor(const Config& params) const {
  SessionKey k;
  for (const std::string& name : key_names_) {
    auto it = params.find(name);
    if (it != params.end()) k.params[name] = it->second.ToString();
  }
  return k;
}

std::unique_ptr<Session> Launcher::Open(const ExecutionRequest& first) const {
  if (spec_.session.persistent) {
    std::string id =
        "s" + std::to_string(first.slot) + "-" + std::to_string(g_session_counter.fetch_add(1) + 1);
    return std::make_unique<PersistentSession>(spec_, KeyFor(first.params), id);
  }
  return std::make_unique<OneShotSession>(one_shot_.get());
}

}  // namespace fleetsweep
