#include "common/space/executor_check.h"

#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>
#include <tuple>

#include "common/exec/exec_spec.h"
#include "common/exec/torch_section.h"
#include "common/space/spec_yaml.h"

namespace fleetsweep {
namespace {

using spec_internal::ClosestName;
using spec_internal::JoinNames;
using spec_internal::LineColumn;

const std::vector<std::string> kExecKeys = {"type", "command", "workdir", "timeout",
                                            "env",  "files",   "output",  "session"};
const std::vector<std::string> kTorchKeys = {
    "type",    "kernel", "device",     "dtype",   "platform", "reps",    "warmup", "seed",
    "threads", "shapes", "gpu_shapes", "timeout", "env",      "session", "prewarm"};
const std::vector<std::string> kSessionKeys = {"mode", "max_executions", "restart_every_s",
                                               "ready_timeout_s"};

// Problems with their position, reported in file order.
class Problems {
 public:
  explicit Problems(std::string source) : source_(std::move(source)) {}
  void At(const YAML::Node& node, const std::string& message) {
    auto [line, column] = LineColumn(node);
    At(line, column, message);
  }
  void At(int line, int column, const std::string& message) {
    items_.emplace_back(
        line, column,
        source_ + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message);
  }
  // A message that already carries its position.
  void Raw(int line, int column, const std::string& message) {
    items_.emplace_back(line, column, message);
  }
  bool empty() const { return items_.empty(); }
  const std::string& source() const { return source_; }
  std::vector<std::string> Sorted() {
    std::stable_sort(items_.begin(), items_.end(), [](const auto& a, const auto& b) {
      return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
    });
    std::vector<std::string> out;
    for (const auto& item : items_) out.push_back(std::get<2>(item));
    return out;
  }

 private:
  std::string source_;
  std::vector<std::tuple<int, int, std::string>> items_;
};

// The names a template may use.
struct Names {
  std::set<std::string> known;  // parameters in configurations + built-ins
  std::set<std::string> inert;  // declared, never in a configuration
};

Names NamesOf(const SweepSpec& spec) {
  Names names;
  for (const ParamSpec& p : spec.params) {
    (p.fate == ParamFate::kInert ? names.inert : names.known).insert(p.name);
  }
  for (const std::string& b : BuiltinPlaceholders()) names.known.insert(b);
  return names;
}

void CheckKeys(const YAML::Node& map, const std::string& what,
               const std::vector<std::string>& allowed, Problems* problems) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (!it->first.IsScalar()) {
      problems->At(it->first, what + ": keys must be names");
      continue;
    }
    const std::string key = it->first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string hint = ClosestName(key, allowed);
    problems->At(it->first, what + ": unknown key '" + key + "'" +
                                (hint.empty() ? "" : " (did you mean '" + hint + "'?)") +
                                "; allowed keys: " + JoinNames(allowed));
  }
}

void CheckTemplate(const YAML::Node& node, const std::string& field, const Names& names,
                   Problems* problems) {
  if (!node.IsScalar()) {
    problems->At(node, field + ": expected a string");
    return;
  }
  std::set<std::string> seen;
  for (const std::string& name : PlaceholderNames(node.Scalar())) {
    if (names.known.count(name) || !seen.insert(name).second) continue;
    if (names.inert.count(name)) {
      problems->At(node, field + ": {" + name +
                             "} names an inert parameter, which never appears in a "
                             "configuration (write its value instead)");
      continue;
    }
    std::vector<std::string> candidates(names.known.begin(), names.known.end());
    std::string hint = ClosestName(name, candidates);
    problems->At(node, field + ": unknown placeholder {" + name + "}" +
                           (hint.empty() ? "" : " (did you mean {" + hint + "}?)") +
                           "; known: parameters and " + JoinNames(BuiltinPlaceholders()) +
                           " (write {{ for a literal brace)");
  }
}

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

// command[0] exists here, unless it depends on a parameter or a per-execution value.
void CheckProgram(const YAML::Node& node, const std::string& search_path,
                  const ExecutorCheckOptions& options, Problems* problems) {
  if (!options.check_programs || !node.IsScalar()) return;
  const std::string arg0 = node.Scalar();
  for (const std::string& name : PlaceholderNames(arg0)) {
    if (name != "FLEETSWEEP_BIN" || options.bin_dir.empty()) return;
  }
  StatusOr<std::string> program = Substitute(arg0, {{"FLEETSWEEP_BIN", options.bin_dir}});
  if (!program.ok() || program->empty()) return;
  if (program->find('/') != std::string::npos) {
    if ((*program)[0] != '/') return;  // relative to the per-execution workdir
    if (!IsExecutableFile(*program)) {
      problems->At(node, "executor.command[0]: program '" + *program +
                             "' does not exist or is not executable");
    }
    return;
  }
  std::stringstream dirs(search_path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && IsExecutableFile(dir + "/" + *program)) return;
  }
  problems->At(node, "executor.command[0]: program '" + *program + "' not found in PATH (" +
                         search_path + ")");
}

std::string SearchPath(const YAML::Node& section, const ExecutorCheckOptions& options) {
  const YAML::Node env = section["env"];
  if (env && env.IsMap() && env["PATH"] && env["PATH"].IsScalar()) return env["PATH"].Scalar();
  if (!options.path.empty()) return options.path;
  const char* path = getenv("PATH");
  return path ? path : "/usr/local/bin:/usr/bin:/bin";
}

void CheckSession(const YAML::Node& node, Problems* problems) {
  if (!node.IsMap()) {
    problems->At(node,
                 "executor.session: expected a map {mode: persistent|one-shot, "
                 "max_executions: N, restart_every_s: S}");
    return;
  }
  CheckKeys(node, "executor.session", kSessionKeys, problems);
  if (const YAML::Node mode = node["mode"]) {
    if (!mode.IsScalar() || (mode.Scalar() != "persistent" && mode.Scalar() != "one-shot")) {
      problems->At(mode, "executor.session.mode: expected persistent or one-shot");
    }
  }
  for (const char* key : {"max_executions", "restart_every_s"}) {
    const YAML::Node v = node[key];
    if (!v) continue;
    Value value = v.IsScalar() ? Value::FromText(v.Scalar()) : Value();
    const bool integer = std::string(key) == "max_executions";
    if (!value.is_number() || !(value.as_double() > 0) ||
        (integer &&
         value.as_double() != static_cast<double>(static_cast<int64_t>(value.as_double())))) {
      problems->At(v, std::string("executor.session.") + key + ": expected a positive " +
                          (integer ? "integer" : "number of seconds"));
    }
  }
}

void CheckOutput(const YAML::Node& node, Problems* problems) {
  if (node.IsScalar()) {
    if (node.Scalar() != "stdout") {
      problems->At(node,
                   "executor.output: expected stdout or {file: NAME, format: "
                   "protocol|vllm-bench}");
    }
    return;
  }
  if (!node.IsMap()) {
    problems->At(node, "executor.output: expected stdout or a map");
    return;
  }
  CheckKeys(node, "executor.output", {"file", "format"}, problems);
  if (!node["file"]) problems->At(node, "executor.output: file: is required in the map form");
  if (const YAML::Node f = node["format"]) {
    if (!f.IsScalar() || (f.Scalar() != "protocol" && f.Scalar() != "vllm-bench")) {
      problems->At(f, "executor.output.format: expected protocol or vllm-bench");
    }
  }
}

void CheckCommand(const YAML::Node& key, const YAML::Node& section, const Names& names,
                  const ExecutorCheckOptions& options, Problems* problems) {
  const YAML::Node command = section["command"];
  if (!command) {
    problems->At(key,
                 "executor: command: is required (the benchmark's argv, a list; it is "
                 "never run by a shell)");
    return;
  }
  if (!command.IsSequence() || command.size() == 0) {
    problems->At(command,
                 "executor.command: expected a non-empty list (argv; never run by a "
                 "shell)");
    return;
  }
  for (size_t i = 0; i < command.size(); ++i) {
    CheckTemplate(command[i], "executor.command[" + std::to_string(i) + "]", names, problems);
  }
  if (command[0].IsScalar() && command[0].Scalar().empty()) {
    problems->At(command[0], "executor.command[0]: the program is empty");
    return;
  }
  CheckProgram(command[0], SearchPath(section, options), options, problems);
}

void CheckExecFields(const YAML::Node& section, const Names& names, Problems* problems) {
  if (const YAML::Node workdir = section["workdir"]) {
    CheckTemplate(workdir, "executor.workdir", names, problems);
  }
  if (const YAML::Node env = section["env"]) {
    if (!env.IsMap()) {
      problems->At(env, "executor.env: expected a map NAME: value");
    } else {
      for (auto it = env.begin(); it != env.end(); ++it) {
        CheckTemplate(it->second, "executor.env." + it->first.as<std::string>(), names, problems);
      }
    }
  }
  if (const YAML::Node files = section["files"]) {
    if (!files.IsSequence()) {
      problems->At(files, "executor.files: expected a list of {path, template}");
    } else {
      for (const YAML::Node& f : files) {
        if (!f.IsMap() || !f["path"] || !f["template"] || f.size() != 2) {
          problems->At(f, "executor.files: each entry must be {path: NAME, template: TEXT}");
          continue;
        }
        CheckTemplate(f["path"], "executor.files.path", names, problems);
        CheckTemplate(f["template"], "executor.files.template", names, problems);
      }
    }
  }
  if (const YAML::Node output = section["output"]) CheckOutput(output, problems);
}

// The executor's own parser as the last word (first error only, positions in the section).
void CheckWithExecutorParser(const YAML::Node& section, const std::string& exec_yaml,
                             Problems* problems) {
  StatusOr<ExecSpec> parsed = ParseExecSpec(exec_yaml);
  if (!parsed.ok()) {
    problems->At(section,
                 "the worker's executor parser refuses this section: " + parsed.status().message());
  }
}

void CheckExec(const YAML::Node& key, const YAML::Node& section, const SweepSpec& spec,
               const ExecutorCheckOptions& options, Problems* problems) {
  const Names names = NamesOf(spec);
  CheckKeys(section, "executor", kExecKeys, problems);
  CheckCommand(key, section, names, options, problems);
  CheckExecFields(section, names, problems);
  if (const YAML::Node session = section["session"]) CheckSession(session, problems);
  if (problems->empty()) CheckWithExecutorParser(section, spec.executor_yaml, problems);
}

// prewarm: {NAME: [VALUES]} or [NAME, ...]: each NAME a swept parameter of the spec and each
// value one of its levels (a typo would warm nothing and cost the time anyway). Shape errors are
// the torch translation's to report.
void CheckPrewarm(const YAML::Node& prewarm, const SweepSpec& spec, Problems* problems) {
  const auto levels = SweptLevels(spec);  // what the translation expands the list form to
  auto swept = [&](const YAML::Node& at) -> const std::vector<std::string>* {
    auto it = levels.find(at.Scalar());
    if (it != levels.end()) return &it->second;
    problems->At(at, "executor: prewarm names '" + at.Scalar() +
                         "', which is not a swept parameter of this spec");
    return nullptr;
  };
  if (prewarm.IsSequence()) {
    for (const auto& item : prewarm) {
      if (item.IsScalar()) swept(item);
    }
    return;
  }
  if (!prewarm.IsMap()) return;
  for (const auto& kv : prewarm) {
    const std::vector<std::string>* values = swept(kv.first);
    if (values == nullptr || !kv.second.IsSequence()) continue;
    for (const auto& v : kv.second) {
      if (std::find(values->begin(), values->end(), v.Scalar()) == values->end()) {
        problems->At(v, "executor: prewarm." + kv.first.Scalar() + ": '" + v.Scalar() +
                            "' is not one of the parameter's values");
      }
    }
  }
}

void CheckTorch(const YAML::Node& section, const SweepSpec& spec,
                const ExecutorCheckOptions& options, Problems* problems) {
  CheckKeys(section, "executor (type torch)", kTorchKeys, problems);
  if (const YAML::Node session = section["session"]) CheckSession(session, problems);
  if (const YAML::Node prewarm = section["prewarm"]) CheckPrewarm(prewarm, spec, problems);
  if (!problems->empty()) return;
  StatusOr<std::string> exec_yaml =
      TorchSectionToExecYaml(section, problems->source(), SweptLevels(spec));
  if (!exec_yaml.ok()) {
    auto [line, column] = LineColumn(section);
    problems->Raw(line, column, exec_yaml.status().message());
    return;
  }
  if (options.check_programs && !options.bin_dir.empty()) {
    const std::string bench = options.bin_dir + "/fleetsweep-torch-bench";
    if (!IsExecutableFile(bench)) {
      problems->At(section["type"], "executor: type torch runs " + bench +
                                        ", which is not there (build with libtorch: "
                                        "docs/torch-executor.md)");
    }
  }
  CheckWithExecutorParser(section, *exec_yaml, problems);
}

}  // namespace

std::vector<std::string> CheckExecutorSection(const SweepSpec& spec,
                                              const ExecutorCheckOptions& options) {
  Problems problems(spec.source);
  try {
    YAML::Node root = YAML::Load(spec.text);
    YAML::Node key, section;  // the `executor` key (for messages about the whole section)
    bool found = false;
    if (root.IsMap()) {
      for (auto it = root.begin(); it != root.end(); ++it) {
        if (it->first.IsScalar() && it->first.Scalar() == "executor") {
          key = it->first;
          section = it->second;
          found = true;
        }
      }
    }
    if (!found) {
      problems.At(1, 1,
                  "no executor section: add executor: {type: exec, command: [...]} "
                  "(docs/executors.md)");
      return problems.Sorted();
    }
    if (!section.IsMap()) {
      problems.At(key, "executor: expected a map");
      return problems.Sorted();
    }
    const YAML::Node type = section["type"];
    const std::string kind = type && type.IsScalar() ? type.Scalar() : "exec";
    if (kind == "exec") {
      CheckExec(key, section, spec, options, &problems);
    } else if (kind == "torch") {
      CheckTorch(section, spec, options, &problems);
    } else {
      std::string hint = ClosestName(kind, {"exec", "torch"});
      problems.At(type, "executor.type: unknown type '" + kind + "'" +
                            (hint.empty() ? "" : " (did you mean '" + hint + "'?)") +
                            "; expected exec or torch");
    }
  } catch (const std::exception& e) {
    problems.At(1, 1, std::string("executor: cannot read the section: ") + e.what());
  }
  return problems.Sorted();
}

}  // namespace fleetsweep
