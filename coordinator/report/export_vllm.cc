#include "coordinator/report/export_vllm.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "coordinator/report/report_data.h"
#include "yaml-cpp/yaml.h"

namespace fleetsweep {
namespace {

using nlohmann::json;

const char* const kMoeFields[] = {"BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K",
                                  "GROUP_SIZE_M", "num_warps",    "num_stages"};
const int64_t kVllmDefaults[] = {64, 64, 32, 8, 4, 2};

std::optional<int64_t> ParseInt(const std::string& s) {
  if (s.empty()) return std::nullopt;
  size_t used = 0;
  try {
    long long v = std::stoll(s, &used);
    if (used != s.size()) return std::nullopt;
    return v;
  } catch (...) {
    return std::nullopt;
  }
}

// "M=128,K=128,N=256" -> map.
std::map<std::string, int64_t> ParseShapes(const std::string& text) {
  std::map<std::string, int64_t> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(pos, end - pos);
    size_t eq = item.find('=');
    if (eq != std::string::npos) {
      if (auto v = ParseInt(item.substr(eq + 1))) out[item.substr(0, eq)] = *v;
    }
    pos = end + 1;
  }
  return out;
}

// The most common value of attempts' info[key] (ok attempts first).
std::string CommonInfo(const SweepInputs& in, const std::string& key) {
  std::map<std::string, int> counts;
  for (const auto& a : in.attempts) {
    auto it = a.info().find(key);
    if (it != a.info().end() && !a.reference()) counts[it->second] += a.ok() ? 2 : 1;
  }
  std::string best;
  int n = 0;
  for (const auto& [v, c] : counts) {
    if (c > n) best = v, n = c;
  }
  return best;
}

// The executor section's `shapes` map, when it has one.
std::map<std::string, int64_t> ExecutorShapes(const SweepInputs& in) {
  std::map<std::string, int64_t> out;
  if (!in.spec || in.spec->executor_yaml.empty()) return out;
  try {
    YAML::Node n = YAML::Load(in.spec->executor_yaml);
    if (n["shapes"] && n["shapes"].IsMap()) {
      for (const auto& kv : n["shapes"]) {
        if (auto v = ParseInt(kv.second.as<std::string>())) out[kv.first.as<std::string>()] = *v;
      }
    }
  } catch (const YAML::Exception&) {
  }
  return out;
}

// E, N or M: flag, else the configuration's parameter, else the shapes the benchmark reported,
// else the executor section's shapes.
StatusOr<int64_t> Dimension(const SweepInputs& in, const json& config, const std::string& name,
                            std::optional<int64_t> flag, std::vector<std::string>* notes) {
  if (flag) return *flag;
  if (config.contains("params") && config["params"].contains(name)) {
    if (auto v = ParseInt(config["params"][name].get<std::string>())) return *v;
  }
  auto ran = ParseShapes(CommonInfo(in, "shapes"));
  if (ran.count(name)) {
    notes->push_back(name + "=" + std::to_string(ran[name]) + " from the shapes the benchmark ran");
    return ran[name];
  }
  auto declared = ExecutorShapes(in);
  if (declared.count(name)) {
    notes->push_back(name + "=" + std::to_string(declared[name]) + " from executor.shapes");
    return declared[name];
  }
  return Status::InvalidArgument("cannot tell " + name + " from the sweep: pass --" + name);
}

// POSIX shell single quotes; a ' inside becomes '\''.
std::string ShellQuote(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

std::string Underscores(std::string s) {
  std::replace(s.begin(), s.end(), ' ', '_');
  return s;
}

StatusOr<MoeExport> MoeImpl(const SweepInputs& in, const MoeExportOptions& opt) {
  const json* chosen = ChosenConfig(in.results);
  if (chosen == nullptr) return Status::InvalidArgument("no configuration produced samples");
  MoeExport out;
  out.notes = in.notes;
  FS_ASSIGN_OR_RETURN(int64_t e, Dimension(in, *chosen, "E", opt.E, &out.notes));
  FS_ASSIGN_OR_RETURN(int64_t n, Dimension(in, *chosen, "N", opt.N, &out.notes));
  std::string device = opt.device_name.empty() ? CommonInfo(in, "device_name") : opt.device_name;
  if (device.empty()) {
    return Status::InvalidArgument(
        "pass --device-name (vLLM's device name, e.g. the output of "
        "torch.cuda.get_device_name(), spaces become _)");
  }
  out.file_name = "E=" + std::to_string(e) + ",N=" + std::to_string(n) +
                  ",device_name=" + Underscores(device) + ".json";

  // Batch size M -> its chosen configuration.
  std::map<int64_t, const json*> by_m;
  const bool m_swept = !opt.M && chosen->contains("params") && (*chosen)["params"].contains("M");
  if (m_swept) {
    for (const auto& c : in.results["configurations"]) {
      if (c.value("n", 0) == 0 || c.value("status", "") == "infeasible") continue;
      auto m = ParseInt(c["params"].value("M", ""));
      if (m && !by_m.count(*m)) by_m[*m] = &c;  // ranked order: first is best
    }
  } else {
    FS_ASSIGN_OR_RETURN(int64_t m, Dimension(in, *chosen, "M", opt.M, &out.notes));
    by_m[m] = chosen;
  }
  for (const auto& [m, c] : by_m) {
    json entry = json::object();
    nlohmann::ordered_json ordered;
    for (size_t i = 0; i < 6; ++i) {
      const std::string field = kMoeFields[i];
      std::string text;
      std::string from;
      if ((*c)["params"].contains(field)) {
        text = (*c)["params"][field].get<std::string>();
      } else if (const ParamSpec* p = in.spec ? in.spec->FindParam(field) : nullptr;
                 p != nullptr && p->DefaultValue() != nullptr) {
        text = p->DefaultValue()->ToString();
        from = std::string(ParamFateName(p->fate)) + " in the spec";
      } else {
        text = std::to_string(kVllmDefaults[i]);
        from = "vLLM default";
      }
      auto v = ParseInt(text);
      if (!v) return Status::InvalidArgument(field + "=" + text + " is not an integer");
      ordered[field] = *v;
      if (!from.empty() && m == by_m.begin()->first) {
        out.notes.push_back(field + "=" + text + " (" + from + ")");
      }
    }
    out.config[std::to_string(m)] = ordered;
  }
  return out;
}

StatusOr<EngineArgsExport> EngineImpl(const SweepInputs& in) {
  const json* chosen = ChosenConfig(in.results);
  if (chosen == nullptr) return Status::InvalidArgument("no configuration produced samples");
  EngineArgsExport out;
  out.notes = in.notes;
  bool engine_group = false;
  if (in.spec) {
    for (const auto& p : in.spec->params) engine_group |= p.group == "engine";
  }
  // name -> (value text, is bool)
  std::vector<std::pair<std::string, std::string>> args;
  std::map<std::string, std::string> params;
  for (const auto& [k, v] : (*chosen)["params"].items()) params[k] = v.get<std::string>();
  if (in.spec) {
    for (const auto& p : in.spec->params) {
      if (engine_group && p.group != "engine") continue;
      if (p.fate == ParamFate::kInert) {
        out.notes.push_back(p.name + " left out (inert: " + p.reason + ")");
        continue;
      }
      auto it = params.find(p.name);
      if (it != params.end()) {
        args.emplace_back(p.name, it->second);
      } else if (p.DefaultValue() != nullptr) {
        args.emplace_back(p.name, p.DefaultValue()->ToString());
      }
    }
  } else {
    for (const auto& kv : params) args.push_back(kv);
  }
  for (const auto& [name, text] : args) {
    std::string flag = name;
    std::replace(flag.begin(), flag.end(), '_', '-');
    if (!out.cli.empty()) out.cli += " ";
    if (text == "true") {
      out.cli += "--" + flag;
    } else if (text == "false") {
      out.cli += "--no-" + flag;
    } else {
      const bool plain =
          text.find_first_of(" \t'\"$`\\;&|<>(){}*?#!") == std::string::npos && !text.empty();
      out.cli += "--" + flag + " " + (plain ? text : ShellQuote(text));
    }
    char* end = nullptr;
    std::strtod(text.c_str(), &end);
    const bool scalar_ok = text == "true" || text == "false" || (!text.empty() && *end == '\0');
    json quoted = text;
    out.yaml += flag + ": " + (scalar_ok ? text : quoted.dump()) + "\n";
  }
  return out;
}

}  // namespace

StatusOr<MoeExport> ExportVllmMoe(const SweepInputs& in, const MoeExportOptions& options) {
  try {
    return MoeImpl(in, options);
  } catch (const json::exception& e) {
    return Status::InvalidArgument(std::string("results.json has an unexpected shape: ") +
                                   e.what());
  }
}

StatusOr<EngineArgsExport> ExportEngineArgs(const SweepInputs& in) {
  try {
    return EngineImpl(in);
  } catch (const json::exception& e) {
    return Status::InvalidArgument(std::string("results.json has an unexpected shape: ") +
                                   e.what());
  }
}

}  // namespace fleetsweep
