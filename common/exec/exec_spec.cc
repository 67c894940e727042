#include "common/exec/exec_spec.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace fleetsweep {
namespace {

bool NameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool NameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
}

Status Bad(const YAML::Node& node, const std::string& what) {
  std::string where;
  if (node.IsDefined() && node.Mark().line >= 0) {
    where = "line " + std::to_string(node.Mark().line + 1) + ": ";
  }
  return Status::InvalidArgument("executor section: " + where + what);
}

StatusOr<std::string> Scalar(const YAML::Node& node, const std::string& what) {
  if (!node.IsScalar()) return Bad(node, what + " must be a scalar");
  return node.Scalar();
}

Status ParseOutput(const YAML::Node& node, ExecOutputSpec* out) {
  if (node.IsScalar()) {
    if (node.Scalar() != "stdout") {
      return Bad(node, "output must be 'stdout' or {file: NAME, format: protocol|vllm-bench}");
    }
    return Status::Ok();
  }
  if (!node.IsMap()) return Bad(node, "output must be 'stdout' or a map");
  for (auto it = node.begin(); it != node.end(); ++it) {
    std::string key = it->first.as<std::string>();
    if (key == "file") {
      FS_ASSIGN_OR_RETURN(out->file, Scalar(it->second, "output.file"));
    } else if (key == "format") {
      FS_ASSIGN_OR_RETURN(out->format, Scalar(it->second, "output.format"));
    } else {
      return Bad(it->first, "unknown key output." + key + " (allowed: file, format)");
    }
  }
  if (out->file.empty()) return Bad(node, "output.file is required in the map form");
  if (out->format != "protocol" && out->format != "vllm-bench") {
    return Bad(node, "output.format '" + out->format + "' is unknown (protocol, vllm-bench)");
  }
  return Status::Ok();
}

StatusOr<double> NonNegative(const YAML::Node& v, const std::string& what) {
  FS_ASSIGN_OR_RETURN(std::string t, Scalar(v, what));
  Value val = Value::FromText(t);
  if (!val.is_number() || !(val.as_double() >= 0) || !std::isfinite(val.as_double())) {
    return Bad(v, what + " must be a number >= 0");
  }
  return val.as_double();
}

Status ParseSession(const YAML::Node& node, ExecSessionSpec* out) {
  if (!node.IsMap()) return Bad(node, "session must be a map such as {mode: persistent}");
  for (auto it = node.begin(); it != node.end(); ++it) {
    std::string key = it->first.as<std::string>();
    const YAML::Node v = it->second;  // a copy: it-> returns a temporary proxy
    if (key == "mode") {
      FS_ASSIGN_OR_RETURN(std::string mode, Scalar(v, "session.mode"));
      if (mode != "persistent" && mode != "one-shot") {
        return Bad(v, "session.mode '" + mode + "' is unknown (one-shot, persistent)");
      }
      out->persistent = mode == "persistent";
    } else if (key == "max_executions") {
      FS_ASSIGN_OR_RETURN(double n, NonNegative(v, "session.max_executions"));
      if (n != std::floor(n)) return Bad(v, "session.max_executions must be a whole number");
      out->max_executions = static_cast<int64_t>(n);
    } else if (key == "restart_every_s") {
      FS_ASSIGN_OR_RETURN(out->restart_every_s, NonNegative(v, "session.restart_every_s"));
    } else if (key == "ready_timeout_s") {
      FS_ASSIGN_OR_RETURN(out->ready_timeout_s, NonNegative(v, "session.ready_timeout_s"));
    } else {
      return Bad(it->first, "unknown key session." + key +
                                " (allowed: mode, max_executions, restart_every_s, "
                                "ready_timeout_s)");
    }
  }
  return Status::Ok();
}

StatusOr<ExecSpec> ParseNode(const YAML::Node& root) {
  if (!root.IsMap()) return Bad(root, "expected a map");
  ExecSpec spec;
  for (auto it = root.begin(); it != root.end(); ++it) {
    std::string key = it->first.as<std::string>();
    const YAML::Node v = it->second;  // a copy: it-> returns a temporary proxy
    if (key == "type") {
      if (!v.IsScalar() || v.Scalar() != "exec") return Bad(v, "type must be 'exec'");
    } else if (key == "command") {
      if (!v.IsSequence() || v.size() == 0) {
        return Bad(v, "command must be a non-empty list (argv; it is never run by a shell)");
      }
      for (const YAML::Node& arg : v) {
        FS_ASSIGN_OR_RETURN(std::string a, Scalar(arg, "each command element"));
        spec.command.push_back(a);
      }
      if (spec.command[0].empty()) return Bad(v, "command[0] is empty");
    } else if (key == "workdir") {
      FS_ASSIGN_OR_RETURN(spec.workdir, Scalar(v, "workdir"));
    } else if (key == "timeout") {
      FS_ASSIGN_OR_RETURN(std::string t, Scalar(v, "timeout"));
      Value val = Value::FromText(t);
      if (!val.is_number() || !(val.as_double() > 0) || !std::isfinite(val.as_double())) {
        return Bad(v, "timeout must be a positive number of seconds");
      }
      spec.timeout_seconds = val.as_double();
    } else if (key == "env") {
      if (!v.IsMap()) return Bad(v, "env must be a map NAME: value");
      for (auto e = v.begin(); e != v.end(); ++e) {
        std::string name = e->first.as<std::string>();
        if (name.empty() || name.find('=') != std::string::npos) {
          return Bad(e->first, "bad environment variable name '" + name + "'");
        }
        FS_ASSIGN_OR_RETURN(spec.env[name], Scalar(e->second, "env." + name));
      }
    } else if (key == "files") {
      if (!v.IsSequence()) return Bad(v, "files must be a list of {path, template}");
      for (const YAML::Node& f : v) {
        if (!f.IsMap() || !f["path"] || !f["template"] || f.size() != 2) {
          return Bad(f, "each file must be {path: NAME, template: TEXT}");
        }
        ExecFileSpec file;
        FS_ASSIGN_OR_RETURN(file.path, Scalar(f["path"], "files.path"));
        FS_ASSIGN_OR_RETURN(file.contents, Scalar(f["template"], "files.template"));
        if (file.path.empty() || file.path[0] == '/') {
          return Bad(f, "files.path must be relative to the workdir");
        }
        spec.files.push_back(file);
      }
    } else if (key == "output") {
      FS_RETURN_IF_ERROR(ParseOutput(v, &spec.output));
    } else if (key == "session") {
      FS_RETURN_IF_ERROR(ParseSession(v, &spec.session));
    } else {
      return Bad(it->first, "unknown key '" + key +
                                "' (allowed: type, command, workdir, timeout, env, files, "
                                "output, session)");
    }
  }
  if (spec.command.empty()) return Bad(root, "command is required");
  return spec;
}

}  // namespace

StatusOr<ExecSpec> ParseExecSpec(const std::string& executor_yaml) {
  try {
    return ParseNode(YAML::Load(executor_yaml));
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("executor section: ") + e.what());
  }
}

StatusOr<std::string> Substitute(const std::string& text,
                                 const std::map<std::string, std::string>& vars) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c != '{') {
      out += c;
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '{') {  // "{{" -> "{"
      out += '{';
      ++i;
      continue;
    }
    size_t j = i + 1;
    if (j < text.size() && NameStart(text[j])) {
      while (j < text.size() && NameChar(text[j])) ++j;
      if (j < text.size() && text[j] == '}') {
        std::string name = text.substr(i + 1, j - i - 1);
        auto it = vars.find(name);
        if (it == vars.end()) {
          return Status::InvalidArgument("unknown placeholder {" + name + "} in '" + text +
                                         "' (write {{ for a literal brace)");
        }
        out += it->second;
        i = j;
        continue;
      }
    }
    out += '{';  // a brace that starts no placeholder is literal
  }
  return out;
}

std::vector<std::string> PlaceholderNames(const std::string& text) {
  std::vector<std::string> names;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '{') continue;
    if (i + 1 < text.size() && text[i + 1] == '{') {
      ++i;
      continue;
    }
    size_t j = i + 1;
    if (j < text.size() && NameStart(text[j])) {
      while (j < text.size() && NameChar(text[j])) ++j;
      if (j < text.size() && text[j] == '}') {
        std::string name = text.substr(i + 1, j - i - 1);
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
        i = j;
      }
    }
  }
  return names;
}

std::vector<std::string> SectionPlaceholders(const ExecSpec& spec) {
  std::vector<std::string> all;
  auto add = [&](const std::string& text) {
    for (std::string& n : PlaceholderNames(text)) {
      if (std::find(all.begin(), all.end(), n) == all.end()) all.push_back(std::move(n));
    }
  };
  for (const std::string& a : spec.command) add(a);
  add(spec.workdir);
  for (const auto& [name, value] : spec.env) add(value);
  for (const ExecFileSpec& f : spec.files) {
    add(f.path);
    add(f.contents);
  }
  if (!spec.output.file.empty()) add(spec.output.file);
  return all;
}

const std::vector<std::string>& BuiltinPlaceholders() {
  static const std::vector<std::string> kNames = {"FLEETSWEEP_BIN", "SLOT", "DEVICE", "ATTEMPT_ID",
                                                  "WORKDIR"};
  return kNames;
}

}  // namespace fleetsweep
