#include "common/space/space_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/space/expand.h"
#include "common/space/spec.h"

namespace fleetsweep {
namespace {

nlohmann::json ToJson(const Value& v) {
  switch (v.type()) {
    case Value::Type::kInt:
      return v.as_int();
    case Value::Type::kDouble:
      return v.as_double();
    case Value::Type::kBool:
      return v.as_bool();
    case Value::Type::kString:
      return v.as_string();
  }
  return nullptr;
}

std::string Levels(const ParamSpec& p, size_t max_chars = 48) {
  std::string out;
  const std::vector<Value>& levels = p.fate == ParamFate::kSwept ? p.values : p.declared_levels;
  for (const Value& v : levels) {
    std::string piece = (out.empty() ? "" : " ") + v.ToString();
    if (out.size() + piece.size() > max_chars) return out + " ...";
    out += piece;
  }
  if (p.fate == ParamFate::kPinned && p.fixed) {
    out = p.fixed->ToString() + (out.empty() ? "" : " (of " + out + ")");
  }
  if (p.fate == ParamFate::kInert && p.fixed) {
    out += (out.empty() ? "" : " ") + std::string("(fixed ") + p.fixed->ToString() + ")";
  }
  return out;
}

// Levels the parameter contributes to the raw product.
size_t LevelCount(const ParamSpec& p) {
  if (p.fate == ParamFate::kSwept) return p.values.size();
  return std::max<size_t>(1, p.declared_levels.size());
}

// Integers print exactly; huge raw products (doubles) print in scientific form.
std::string Count(double v) {
  if (v < 9.0e15) return std::to_string(static_cast<uint64_t>(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", v);
  return buf;
}

std::string Pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

void PrintText(const SweepSpec& spec, const SpaceCounts& counts, const std::vector<Config>& first,
               int first_n, std::ostream& out) {
  out << "sweep " << spec.name << " (" << spec.source << ")\n\nparameters\n";
  size_t w_name = 9, w_group = 5, w_levels = 6;
  for (const ParamSpec& p : spec.params) {
    w_name = std::max(w_name, p.name.size());
    w_group = std::max(w_group, p.group.size());
    w_levels = std::max(w_levels, Levels(p).size());
  }
  out << "  " << Pad("parameter", w_name) << "  " << Pad("fate", 6) << "  " << Pad("group", w_group)
      << "  " << Pad("n", 5) << "  " << Pad("levels", w_levels) << "  reason\n";
  for (const ParamSpec& p : spec.params) {
    out << "  " << Pad(p.name, w_name) << "  " << Pad(ParamFateName(p.fate), 6) << "  "
        << Pad(p.group.empty() ? "-" : p.group, w_group) << "  "
        << Pad(std::to_string(LevelCount(p)), 5) << "  " << Pad(Levels(p), w_levels) << "  "
        << (p.reason.empty() ? "" : p.reason) << "\n";
  }
  std::vector<std::pair<std::string, std::string>> rows = {
      {"raw product (every declared level)", Count(counts.raw)},
      {"minus inert parameters", Count(counts.after_inert)},
      {"minus pinned parameters", Count(counts.after_pinned)}};
  for (size_t k = 0; k < spec.constraints.size(); ++k) {
    rows.push_back({"after constraint " + std::to_string(k + 1) + ": " + spec.constraints[k].text,
                    std::to_string(counts.after_constraint[k])});
  }
  rows.push_back({"final", std::to_string(counts.final_count)});
  size_t w = 0;
  for (const auto& r : rows) w = std::max(w, r.second.size());
  out << "\nspace size\n";
  for (const auto& r : rows) {
    out << "  " << std::string(w - r.second.size(), ' ') << r.second << "  " << r.first << "\n";
  }
  if (first_n == 0) return;
  out << "\n"
      << (first_n < 0 ? std::string("all ") : "first " + std::to_string(first.size()) + " of ")
      << counts.final_count << " configurations\n";
  for (const Config& c : first) out << "  " << ConfigHash(c) << "  " << ConfigToString(c) << "\n";
}

nlohmann::json ToJson(const SweepSpec& spec, const SpaceCounts& counts,
                      const std::vector<Config>& first) {
  nlohmann::json j;
  j["sweep"] = spec.name;
  j["source"] = spec.source;
  nlohmann::json params = nlohmann::json::array();
  for (const ParamSpec& p : spec.params) {
    nlohmann::json jp;
    jp["name"] = p.name;
    jp["fate"] = ParamFateName(p.fate);
    jp["group"] = p.group;
    jp["levels"] = nlohmann::json::array();
    for (const Value& v : p.fate == ParamFate::kSwept ? p.values : p.declared_levels) {
      jp["levels"].push_back(ToJson(v));
    }
    jp["level_count"] = LevelCount(p);
    jp["fixed"] = p.fixed ? ToJson(*p.fixed) : nlohmann::json(nullptr);
    jp["reason"] = p.reason;
    params.push_back(jp);
  }
  j["parameters"] = params;
  nlohmann::json jc;
  jc["raw"] = counts.raw;
  jc["after_inert"] = counts.after_inert;
  jc["after_pinned"] = counts.after_pinned;
  jc["constraints"] = nlohmann::json::array();
  for (size_t k = 0; k < spec.constraints.size(); ++k) {
    jc["constraints"].push_back({{"text", spec.constraints[k].text},
                                 {"line", spec.constraints[k].line},
                                 {"remaining", counts.after_constraint[k]}});
  }
  jc["final"] = counts.final_count;
  j["counts"] = jc;
  nlohmann::json configs = nlohmann::json::array();
  for (const Config& c : first) {
    nlohmann::json jparams = nlohmann::json::object();
    for (const auto& [name, value] : c) jparams[name] = ToJson(value);
    configs.push_back({{"hash", ConfigHash(c)}, {"key", CanonicalKey(c)}, {"params", jparams}});
  }
  j["configurations"] = configs;
  return j;
}

}  // namespace

int SpaceCommand(const std::string& spec_path, bool count_only, bool json, int first_n,
                 std::ostream& out, std::ostream& err) {
  StatusOr<SweepSpec> spec = ParseSpecFile(spec_path);
  if (!spec.ok()) {
    err << "fleetsweep space: " << spec.status().message() << "\n";
    return kExitBadSpec;
  }
  StatusOr<SpaceCounts> counts = CountSpace(*spec);
  if (!counts.ok()) {
    err << "fleetsweep space: " << spec_path << ": " << counts.status().message() << "\n";
    return kExitBadSpec;
  }
  if (count_only) {
    if (json) {
      out << nlohmann::json{{"count", counts->final_count}}.dump() << "\n";
    } else {
      out << counts->final_count << "\n";
    }
    return kExitOk;
  }
  std::vector<Config> first;
  if (first_n != 0) {
    SpaceIterator it(*spec);
    while ((first_n < 0 || first.size() < static_cast<size_t>(first_n)) && it.Advance()) {
      first.push_back(it.current());
    }
    if (!it.status().ok()) {
      err << "fleetsweep space: " << spec_path << ": " << it.status().message() << "\n";
      return kExitBadSpec;
    }
  }
  if (json) {
    out << ToJson(*spec, *counts, first).dump(2) << "\n";
  } else {
    PrintText(*spec, *counts, first, first_n, out);
  }
  return kExitOk;
}

int ValidateCommand(const std::string& spec_path, std::ostream& out, std::ostream& err,
                    const ExecutorCheckOptions& executor) {
  StatusOr<SweepSpec> spec = ParseSpecFile(spec_path);
  if (!spec.ok()) {  // one problem per line
    std::istringstream lines(spec.status().message());
    for (std::string line; std::getline(lines, line);)
      err << "fleetsweep validate: " << line << "\n";
    return kExitBadSpec;
  }
  StatusOr<SpaceCounts> counts = CountSpace(*spec);
  if (!counts.ok()) {
    err << "fleetsweep validate: " << spec_path << ": " << counts.status().message() << "\n";
    return kExitBadSpec;
  }
  std::vector<std::string> problems = CheckExecutorSection(*spec, executor);
  for (const std::string& p : problems) err << "fleetsweep validate: " << p << "\n";
  if (!problems.empty()) return kExitBadSpec;
  size_t swept = 0, pinned = 0, inert = 0;
  for (const ParamSpec& p : spec->params) {
    (p.fate == ParamFate::kSwept ? swept : p.fate == ParamFate::kPinned ? pinned : inert)++;
  }
  out << "OK: " << spec_path << ": sweep " << spec->name << ": " << spec->params.size()
      << " parameters (" << swept << " swept, " << pinned << " pinned, " << inert << " inert), "
      << spec->constraints.size() << " constraints, " << counts->final_count << " configurations\n";
  return kExitOk;
}

}  // namespace fleetsweep
