#include "common/exec/torch_section.h"

#include <yaml-cpp/yaml.h>

#include <set>
#include <vector>

namespace fleetsweep {

namespace {

// Where messages point: "SOURCE:LINE:COL: " (set per call; the translation is single-threaded
// per call and this is thread-local).
thread_local std::string g_source = "executor section";

std::string At(const YAML::Node& n) {
  return g_source + ":" + std::to_string(n.Mark().line + 1) + ":" +
         std::to_string(n.Mark().column + 1) + ": ";
}

StatusOr<std::string> ShapeList(const YAML::Node& n, const std::string& key) {
  if (!n.IsMap()) return Status::InvalidArgument(At(n) + key + " must be a map NAME: INTEGER");
  std::string out;
  for (const auto& kv : n) {
    const std::string name = kv.first.as<std::string>();
    long long v = 0;
    try {
      v = kv.second.as<long long>();
    } catch (const YAML::Exception&) {
      return Status::InvalidArgument(At(kv.second) + key + "." + name + " must be an integer");
    }
    if (v < 1) return Status::InvalidArgument(At(kv.second) + key + "." + name + " must be >= 1");
    if (name.find_first_of("=, ") != std::string::npos) {
      return Status::InvalidArgument(At(kv.first) + key + ": bad shape name '" + name + "'");
    }
    out += (out.empty() ? "" : ",") + name + "=" + std::to_string(v);
  }
  return out;
}

// prewarm: {NAME: [V1, V2, ...], ...} -> one "--prewarm NAME=V" per value (each value is a set
// of its own: a one-factor warm-up, not the product); prewarm: [NAME, ...] -> the same for every
// level of each named parameter in `levels`.
Status PrewarmValue(const YAML::Node& at, const std::string& name, const std::string& value,
                    std::vector<std::string>* argv) {
  if (value.empty() || value.find(',') != std::string::npos) {
    return Status::InvalidArgument(At(at) + "prewarm." + name +
                                   ": each value must be a scalar without commas");
  }
  argv->insert(argv->end(), {"--prewarm", name + "=" + value});
  return Status::Ok();
}

Status PrewarmName(const YAML::Node& at, const std::string& name) {
  if (name.empty() || name.find_first_of("=, ") != std::string::npos) {
    return Status::InvalidArgument(At(at) + "prewarm: bad parameter name '" + name + "'");
  }
  return Status::Ok();
}

Status PrewarmArgs(const YAML::Node& n, const ParamLevels& levels, std::vector<std::string>* argv) {
  if (n.IsSequence()) {
    for (const auto& item : n) {
      const std::string name = item.IsScalar() ? item.Scalar() : "";
      FS_RETURN_IF_ERROR(PrewarmName(item, name));
      auto it = levels.find(name);
      if (it == levels.end()) {
        return Status::InvalidArgument(
            At(item) + "prewarm names '" + name + "', which is not a swept parameter" +
            (levels.empty() ? " (the list form needs the spec's parameters)" : " of this spec"));
      }
      for (const auto& v : it->second) FS_RETURN_IF_ERROR(PrewarmValue(item, name, v, argv));
    }
    return Status::Ok();
  }
  if (!n.IsMap()) {
    return Status::InvalidArgument(At(n) +
                                   "prewarm must be a map NAME: [VALUES] or a list of names");
  }
  for (const auto& kv : n) {
    const std::string name = kv.first.as<std::string>();
    FS_RETURN_IF_ERROR(PrewarmName(kv.first, name));
    if (!kv.second.IsSequence() || kv.second.size() == 0) {
      return Status::InvalidArgument(At(kv.second) + "prewarm." + name +
                                     " must be a non-empty list of values");
    }
    for (const auto& v : kv.second) {
      FS_RETURN_IF_ERROR(PrewarmValue(v, name, v.IsScalar() ? v.Scalar() : "", argv));
    }
  }
  return Status::Ok();
}

Status OneOf(const YAML::Node& n, const std::string& key, const std::string& value,
             const std::set<std::string>& allowed) {
  if (allowed.count(value)) return Status::Ok();
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  return Status::InvalidArgument(At(n) + key + " '" + value + "' is not one of " + list);
}

}  // namespace

StatusOr<std::string> TorchSectionToExecYaml(const std::string& executor_yaml,
                                             const ParamLevels& levels) {
  try {
    return TorchSectionToExecYaml(YAML::Load(executor_yaml), "executor section", levels);
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(std::string("executor section: ") + e.what());
  }
}

StatusOr<std::string> TorchSectionToExecYaml(const YAML::Node& section, const std::string& source,
                                             const ParamLevels& levels) {
  g_source = source;
  try {
    const YAML::Node s = section;
    if (!s.IsMap()) return Status::InvalidArgument(At(s) + "expected a map");
    static const std::set<std::string> kKeys = {
        "type",    "kernel", "device",     "dtype",   "platform", "reps",    "warmup", "seed",
        "threads", "shapes", "gpu_shapes", "timeout", "env",      "session", "prewarm"};
    for (const auto& kv : s) {
      const std::string key = kv.first.as<std::string>();
      if (!kKeys.count(key)) {
        return Status::InvalidArgument(At(kv.first) + "unknown key '" + key +
                                       "' in a torch executor section");
      }
    }
    if (s["type"] && s["type"].as<std::string>() != "torch") {
      return Status::InvalidArgument(At(s["type"]) + "type must be torch");
    }
    if (!s["kernel"]) {
      return Status::InvalidArgument(At(s) + "a torch executor section needs kernel: (one of " +
                                     "moe, paged_attention, prefix_prefill, floors)");
    }
    std::string kernel = s["kernel"].as<std::string>();
    if (kernel == "fused_moe") kernel = "moe";
    FS_RETURN_IF_ERROR(OneOf(s["kernel"], "kernel", kernel,
                             {"moe", "paged_attention", "prefix_prefill", "floors"}));
    std::vector<std::string> argv = {"{FLEETSWEEP_BIN}/fleetsweep-torch-bench", "--kernel", kernel};
    const std::string device = s["device"] ? s["device"].as<std::string>() : "auto";
    FS_RETURN_IF_ERROR(OneOf(s["device"], "device", device, {"cpu", "cuda", "auto"}));
    argv.insert(argv.end(), {"--device", device});
    const std::string dtype = s["dtype"] ? s["dtype"].as<std::string>() : "float32";
    FS_RETURN_IF_ERROR(OneOf(s["dtype"], "dtype", dtype, {"float32", "float16", "bfloat16"}));
    argv.insert(argv.end(), {"--dtype", dtype});
    for (const char* key : {"reps", "warmup", "seed", "threads"}) {
      if (!s[key]) continue;
      long long v = 0;
      try {
        v = s[key].as<long long>();
      } catch (const YAML::Exception&) {
        return Status::InvalidArgument(At(s[key]) + key + " must be an integer");
      }
      if (v < 0 || (std::string(key) == "reps" && v < 1)) {
        return Status::InvalidArgument(At(s[key]) + key + " out of range");
      }
      argv.insert(argv.end(), {std::string("--") + key, std::to_string(v)});
    }
    if (s["platform"]) argv.insert(argv.end(), {"--platform", s["platform"].as<std::string>()});
    if (s["shapes"]) {
      FS_ASSIGN_OR_RETURN(std::string list, ShapeList(s["shapes"], "shapes"));
      if (!list.empty()) argv.insert(argv.end(), {"--shapes", list});
    }
    if (s["gpu_shapes"]) {
      FS_ASSIGN_OR_RETURN(std::string list, ShapeList(s["gpu_shapes"], "gpu_shapes"));
      if (!list.empty()) argv.insert(argv.end(), {"--gpu-shapes", list});
    }
    if (s["prewarm"]) FS_RETURN_IF_ERROR(PrewarmArgs(s["prewarm"], levels, &argv));

    YAML::Emitter out;
    out << YAML::BeginMap;
    out << YAML::Key << "type" << YAML::Value << "exec";
    out << YAML::Key << "command" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& a : argv) out << YAML::DoubleQuoted << a;
    out << YAML::EndSeq;
    if (s["timeout"]) {
      double t = 0;
      try {
        t = s["timeout"].as<double>();
      } catch (const YAML::Exception&) {
        return Status::InvalidArgument(At(s["timeout"]) + "timeout must be a number of seconds");
      }
      if (t <= 0) return Status::InvalidArgument(At(s["timeout"]) + "timeout must be > 0");
      out << YAML::Key << "timeout" << YAML::Value << t;
    }
    if (s["env"]) {
      if (!s["env"].IsMap()) return Status::InvalidArgument(At(s["env"]) + "env must be a map");
      out << YAML::Key << "env" << YAML::Value << YAML::BeginMap;
      for (const auto& kv : s["env"]) {
        out << YAML::Key << kv.first.as<std::string>() << YAML::Value << YAML::DoubleQuoted
            << kv.second.as<std::string>();
      }
      out << YAML::EndMap;
    }
    if (s["session"]) out << YAML::Key << "session" << YAML::Value << s["session"];
    out << YAML::EndMap;
    if (!out.good())
      return Status::Internal("executor section: YAML emit failed: " + out.GetLastError());
    return std::string(out.c_str()) + "\n";
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(At(section) + e.what());
  }
}

}  // namespace fleetsweep
