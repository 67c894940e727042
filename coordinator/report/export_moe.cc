// `fleetsweep export --format vllm-moe`: the tuned fused-MoE config file as vLLM loads it
// (export_vllm.h says what is written and why).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "coordinator/report/export_vllm.h"
#include "yaml-cpp/yaml.h"

namespace fleetsweep {
namespace {

using nlohmann::json;

const char* const kMoeFields[] = {"BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K",
                                  "GROUP_SIZE_M", "num_warps",    "num_stages"};

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

// The most common value of the attempts' info[key] (ok attempts count double); "" when none.
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

// A scalar of the executor section ("" when absent).
std::string ExecutorScalar(const SweepInputs& in, const std::string& key) {
  if (!in.spec || in.spec->executor_yaml.empty()) return "";
  try {
    YAML::Node n = YAML::Load(in.spec->executor_yaml);
    if (n[key] && n[key].IsScalar()) return n[key].Scalar();
  } catch (const YAML::Exception&) {
  }
  return "";
}

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

std::string ParamOf(const json& config, const std::string& name) {
  if (!config.contains("params") || !config["params"].contains(name)) return "";
  const json& v = config["params"][name];
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// E or N (or a single M): flag, else the configuration's parameter, else the shapes the
// benchmark reported, else the executor section's shapes.
StatusOr<int64_t> Dimension(const SweepInputs& in, const json& config, const std::string& name,
                            std::optional<int64_t> flag, std::vector<std::string>* notes) {
  if (flag) return *flag;
  if (auto v = ParseInt(ParamOf(config, name))) return *v;
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

// vLLM's name of the kernel's dtype in the file name (get_config_dtype_str): "" for float16 and
// bfloat16 (no dtype part), "float32", or a quantization scheme.
StatusOr<std::string> VllmDtype(const std::string& raw) {
  std::string d = raw;
  if (d.rfind("torch.", 0) == 0) d = d.substr(6);
  std::transform(d.begin(), d.end(), d.begin(), ::tolower);
  if (d == "float16" || d == "half" || d == "fp16" || d == "bfloat16" || d == "bf16")
    return std::string();
  if (d == "float32" || d == "float" || d == "fp32") return std::string("float32");
  if (d == "fp8_w8a8" || d == "int8_w8a16" || d == "int4_w4a16" || d == "int8_w8a8") return d;
  return Status::InvalidArgument("dtype '" + raw +
                                 "' has no vLLM config name: pass --dtype (float16, bfloat16, "
                                 "float32, fp8_w8a8, int8_w8a8, int8_w8a16, int4_w4a16)");
}

StatusOr<std::string> DtypePart(const SweepInputs& in, const MoeExportOptions& opt,
                                std::vector<std::string>* notes) {
  std::string raw = opt.dtype, from = "--dtype";
  if (raw.empty()) raw = CommonInfo(in, "dtype"), from = "the benchmark's info";
  if (raw.empty() && in.spec) {
    if (const ParamSpec* p = in.spec->FindParam("dtype"); p && p->DefaultValue()) {
      raw = p->DefaultValue()->ToString(), from = "the spec's dtype parameter";
    }
  }
  if (raw.empty()) raw = ExecutorScalar(in, "dtype"), from = "executor.dtype";
  if (raw.empty()) {
    notes->push_back(
        "dtype unknown: no dtype part in the file name (vLLM's name for float16 and "
        "bfloat16 kernels); pass --dtype if the kernel ran another");
    return std::string();
  }
  FS_ASSIGN_OR_RETURN(std::string d, VllmDtype(raw));
  notes->push_back("dtype " + raw + " (" + from +
                   "): " + (d.empty() ? "no dtype part in the file name" : "dtype=" + d));
  return d.empty() ? d : ",dtype=" + d;
}

// ",block_shape=[N,K]" when both are set (vLLM: `not block_shape or not all(block_shape)`).
std::string BlockShapePart(const SweepInputs& in, const MoeExportOptions& opt) {
  std::string shape = opt.block_shape.empty() ? CommonInfo(in, "block_shape") : opt.block_shape;
  shape.erase(std::remove_if(shape.begin(), shape.end(),
                             [](char c) { return c == ' ' || c == '[' || c == ']'; }),
              shape.end());
  size_t comma = shape.find(',');
  if (comma == std::string::npos) return "";
  auto n = ParseInt(shape.substr(0, comma));
  auto k = ParseInt(shape.substr(comma + 1));
  if (!n || !k || *n == 0 || *k == 0) return "";
  return ",block_shape=[" + std::to_string(*n) + "," + std::to_string(*k) + "]";
}

// torch.cuda.get_device_name() with spaces as '_' (vLLM's current_platform.get_device_name()).
StatusOr<std::string> DeviceName(const SweepInputs& in, const MoeExportOptions& opt) {
  std::string name = opt.device_name;
  if (name.empty()) name = CommonInfo(in, "device_name");
  if (name.empty()) {
    std::string device = CommonInfo(in, "device");
    if (device == "cpu") {
      return Status::InvalidArgument(
          "the benchmark ran on the CPU: vLLM's tuned MoE configs are per GPU; pass "
          "--device-name to write one anyway");
    }
    if (device != "cuda" && device != "auto") name = device;
  }
  if (name.empty()) {
    return Status::InvalidArgument(
        "the benchmark did not report its device name (info device_name = "
        "torch.cuda.get_device_name()): pass --device-name");
  }
  std::replace(name.begin(), name.end(), ' ', '_');
  return name;
}

// M of each configuration: its parameter M, else the shapes its attempts reported.
std::map<std::string, int64_t> ConfigM(const SweepInputs& in) {
  std::map<std::string, int64_t> out;
  for (const auto& a : in.attempts) {
    if (a.reference() || out.count(a.config_key())) continue;
    auto it = a.info().find("shapes");
    if (it == a.info().end()) continue;
    auto shapes = ParseShapes(it->second);
    if (shapes.count("M")) out[a.config_key()] = shapes["M"];
  }
  return out;
}

bool Rankable(const json& c) {
  return c.is_object() && c.value("n", 0) > 0 && c.value("status", "") != "infeasible" &&
         !c.value("violates_bound", false) && c.contains("params");
}

bool IsNvidia(const std::string& device) {
  return device.rfind("NVIDIA", 0) == 0 || device.find("GeForce") != std::string::npos ||
         device.find("Tesla") != std::string::npos || device.find("Quadro") != std::string::npos;
}

std::string Describe(const json& c) {
  std::string out;
  for (const auto& [k, v] : c["params"].items()) {
    out += (out.empty() ? "" : " ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  }
  return out;
}

// vLLM's get_default_config (the unquantized Triton path) for the fields the sweep did not set.
int64_t VllmDefault(const std::string& field, int64_t m, int64_t e) {
  const bool small = m <= e;
  if (field == "BLOCK_SIZE_M") return small ? 16 : 64;
  if (field == "BLOCK_SIZE_N") return small ? 32 : 64;
  if (field == "BLOCK_SIZE_K") return small ? 64 : 32;
  return small ? 1 : 8;  // GROUP_SIZE_M
}

// The value that ran for `field` in configuration `c`: its parameter, a pinned value, an inert
// parameter's `fixed`; nullopt when the sweep never set it.
StatusOr<std::optional<int64_t>> Measured(const SweepInputs& in, const json& c,
                                          const std::string& field, std::string* from) {
  std::string text = ParamOf(c, field);
  if (text.empty() && in.spec) {
    const ParamSpec* p = in.spec->FindParam(field);
    if (p && p->fate != ParamFate::kSwept && p->fixed) {
      text = p->fixed->ToString();
      *from = std::string(ParamFateName(p->fate)) + " in the spec";
    }
  }
  if (text.empty()) return std::optional<int64_t>();
  auto v = ParseInt(text);
  if (!v) return Status::InvalidArgument(field + "=" + text + " is not an integer");
  return std::optional<int64_t>(*v);
}

struct Entry {
  nlohmann::ordered_json fields;
  bool usable_on_nvidia = true;  // every block size >= 16 (Triton's minimum tl.dot size)
};

StatusOr<Entry> MakeEntry(const SweepInputs& in, const json& c, int64_t m, int64_t e, bool first,
                          std::vector<std::string>* notes) {
  Entry out;
  for (const char* f : kMoeFields) {
    const std::string field = f;
    std::string from;
    FS_ASSIGN_OR_RETURN(std::optional<int64_t> v, Measured(in, c, field, &from));
    const bool launch_option = field == "num_warps" || field == "num_stages";
    if (!v && launch_option) {
      if (first) {
        notes->push_back(field +
                         " left out: the sweep never set it (Triton's launch default "
                         "applies, as it did when measured)");
      }
      continue;
    }
    if (!v) {
      v = VllmDefault(field, m, e);
      if (first) {
        notes->push_back(field + " not set by the sweep: vLLM's own default for it (" +
                         std::to_string(*v) + " at M=" + std::to_string(m) + ")");
      }
    } else if (!from.empty() && first) {
      notes->push_back(field + "=" + std::to_string(*v) + " (" + from + ")");
    }
    if (field.rfind("BLOCK_SIZE_", 0) == 0 && *v < 16) out.usable_on_nvidia = false;
    out.fields[field] = *v;
  }
  return out;
}

// Configurations whose CI overlaps `best`'s (the statistical tie), in rank order.
std::vector<const json*> TiedWith(const json& best, const std::vector<const json*>& group,
                                  bool minimize) {
  std::vector<const json*> out;
  const double lo = best.value("ci_low", 0.0), hi = best.value("ci_high", 0.0);
  for (const json* c : group) {
    if (c == &best) continue;
    const bool overlaps = minimize ? c->value("ci_low", 0.0) <= hi : c->value("ci_high", 0.0) >= lo;
    if (overlaps) out.push_back(c);
  }
  return out;
}

StatusOr<MoeExport> MoeImpl(const SweepInputs& in, const MoeExportOptions& opt) {
  const json* chosen = ChosenConfig(in.results);
  if (chosen == nullptr) return Status::InvalidArgument("no configuration produced samples");
  MoeExport out;
  out.notes = in.notes;
  FS_ASSIGN_OR_RETURN(int64_t e, Dimension(in, *chosen, "E", opt.E, &out.notes));
  FS_ASSIGN_OR_RETURN(int64_t n, Dimension(in, *chosen, "N", opt.N, &out.notes));
  FS_ASSIGN_OR_RETURN(std::string device, DeviceName(in, opt));
  FS_ASSIGN_OR_RETURN(std::string dtype_part, DtypePart(in, opt, &out.notes));
  out.file_name = "E=" + std::to_string(e) + ",N=" + std::to_string(n) + ",device_name=" + device +
                  dtype_part + BlockShapePart(in, opt) + ".json";

  // Group the rankable configurations by batch size M (rank order kept: first is best).
  std::map<std::string, int64_t> config_m = ConfigM(in);
  std::optional<int64_t> single_m = opt.M;
  std::map<int64_t, std::vector<const json*>> by_m;
  for (const auto& c : in.results["configurations"]) {
    if (!Rankable(c)) continue;
    std::optional<int64_t> m = single_m;
    if (!m) m = ParseInt(ParamOf(c, "M"));
    if (!m && config_m.count(c.value("key", ""))) m = config_m[c.value("key", "")];
    if (!m) {
      FS_ASSIGN_OR_RETURN(int64_t dm, Dimension(in, c, "M", std::nullopt, &out.notes));
      single_m = dm;
      m = dm;
    }
    by_m[*m].push_back(&c);
  }
  if (by_m.empty()) return Status::InvalidArgument("no configuration produced samples");
  const bool minimize = in.results.value("goal", "minimize") != "maximize";
  const bool nvidia = IsNvidia(device);
  bool first = true;
  for (const auto& [m, group] : by_m) {
    const json* pick = nullptr;
    Entry entry;
    for (const json* c : group) {
      FS_ASSIGN_OR_RETURN(Entry candidate, MakeEntry(in, *c, m, e, first, &out.notes));
      if (!candidate.usable_on_nvidia) {
        out.notes.push_back("M=" + std::to_string(m) + ": " + Describe(*c) +
                            (nvidia ? " skipped" : " kept") +
                            ": a block size below 16, Triton's minimum tl.dot size on NVIDIA "
                            "GPUs (vLLM's Triton kernel cannot compile it there)");
        if (nvidia) continue;
      }
      pick = c;
      entry = candidate;
      break;
    }
    if (pick == nullptr) {
      return Status::InvalidArgument("M=" + std::to_string(m) +
                                     ": no measured configuration is usable by vLLM's Triton "
                                     "kernel on " +
                                     device + " (every one has a block size below 16)");
    }
    first = false;
    std::vector<const json*> tied = TiedWith(*pick, group, minimize);
    if (!tied.empty()) {
      std::string others;
      for (const json* t : tied) others += "; " + Describe(*t);
      out.ties.push_back("M=" + std::to_string(m) + ": " + std::to_string(tied.size() + 1) +
                         " configurations are statistically tied (95% CIs overlap); exported " +
                         Describe(*pick) + ", the best median" +
                         (pick == group.front() ? "" : " usable on this device") + "; also tied" +
                         others);
    }
    out.config[std::to_string(m)] = entry.fields;
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

}  // namespace fleetsweep
