#include "coordinator/report/export_vllm.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "coordinator/report/report_data.h"
#include "yaml-cpp/yaml.h"

namespace fleetsweep {
namespace {

using nlohmann::json;

// POSIX shell single quotes; a ' inside becomes '\''.
std::string ShellQuote(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

StatusOr<EngineArgsExport> EngineImpl(const SweepInputs& in) {
  const json* chosen = ChosenConfig(in.results);
  if (chosen == nullptr) return Status::InvalidArgument("no configuration produced samples");
  EngineArgsExport out;
  out.notes = in.notes;
  if (!in.spec) {
    return Status::InvalidArgument(
        "the sweep's spec is not in DIR/store: it says which parameters are engine arguments");
  }
  // name -> value text, for the parameters declared as engine arguments (group: engine).
  std::vector<std::pair<std::string, std::string>> args;
  std::map<std::string, std::string> params;
  for (const auto& [k, v] : (*chosen)["params"].items()) params[k] = v.get<std::string>();
  std::string others;
  for (const auto& p : in.spec->params) {
    if (p.group != "engine") {
      others += (others.empty() ? "" : ", ") + p.name;
      continue;
    }
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
  if (!others.empty()) out.notes.push_back("not engine arguments (no group: engine): " + others);
  if (args.empty()) {
    return Status::InvalidArgument(
        "no parameter is declared as a vLLM engine argument: give them group: engine in the "
        "spec (kernel parameters are exported with --format vllm-moe)");
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
    if (text == "true") {
      out.yaml += flag + ": true\n";
    } else if (text == "false") {
      out.yaml += "no-" + flag + ": true\n";  // `flag: false` is not read as --no-flag
    } else {
      out.yaml += flag + ": " + (scalar_ok ? text : quoted.dump()) + "\n";
    }
  }
  return out;
}

}  // namespace

StatusOr<EngineArgsExport> ExportEngineArgs(const SweepInputs& in) {
  try {
    return EngineImpl(in);
  } catch (const json::exception& e) {
    return Status::InvalidArgument(std::string("results.json has an unexpected shape: ") +
                                   e.what());
  }
}

}  // namespace fleetsweep
