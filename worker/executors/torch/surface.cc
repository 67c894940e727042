#include "worker/executors/torch/surface.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace fleetsweep::torchbench {

bool PlatformSurface::Honours(const std::string& kernel, const std::string& param) const {
  auto it = honoured.find(kernel);
  if (it == honoured.end()) return true;
  return it->second.count(param) > 0;
}

bool PlatformSurface::Supports(const std::string& kernel, const std::string& feature) const {
  auto it = supports.find(kernel);
  if (it == supports.end()) return true;
  auto f = it->second.find(feature);
  return f == it->second.end() || f->second;
}

std::string PlatformSurface::NotImplementedDetail(const std::string& kernel,
                                                  const std::string& feature) const {
  auto it = not_implemented.find(kernel);
  if (it != not_implemented.end()) {
    auto f = it->second.find(feature);
    if (f != it->second.end()) return f->second;
  }
  return kernel + " " + feature + " is not implemented on " + name;
}

namespace {

std::string Where(const std::string& source, const YAML::Node& n) {
  return source + ":" + std::to_string(n.Mark().line + 1) + ":" +
         std::to_string(n.Mark().column + 1);
}

Status ReadNameList(const YAML::Node& n, const std::string& source, std::set<std::string>* out) {
  if (!n.IsSequence())
    return Status::InvalidArgument(Where(source, n) + ": expected a list of parameter names");
  for (const auto& e : n) out->insert(e.as<std::string>());
  return Status::Ok();
}

}  // namespace

StatusOr<PlatformSurface> ParseSurface(const std::string& text, const std::string& source) {
  PlatformSurface s;
  s.source = source;
  try {
    YAML::Node root = YAML::Load(text);
    if (!root.IsMap())
      return Status::InvalidArgument(source + ": a platform surface must be a map");
    for (const auto& kv : root) {
      const std::string key = kv.first.as<std::string>();
      const YAML::Node& v = kv.second;
      if (key == "platform") {
        s.name = v.as<std::string>();
        continue;
      }
      if (key == "description" || key == "notes") continue;
      if (!v.IsMap()) {
        return Status::InvalidArgument(Where(source, v) + ": kernel '" + key + "' must be a map");
      }
      for (const auto& fk : v) {
        const std::string field = fk.first.as<std::string>();
        const YAML::Node& fv = fk.second;
        if (field == "honoured") {
          FS_RETURN_IF_ERROR(ReadNameList(fv, source, &s.honoured[key]));
        } else if (field == "ignored") {
          FS_RETURN_IF_ERROR(ReadNameList(fv, source, &s.ignored[key]));
        } else if (field == "supports") {
          if (!fv.IsMap())
            return Status::InvalidArgument(Where(source, fv) + ": supports must map feature: bool");
          for (const auto& f : fv) s.supports[key][f.first.as<std::string>()] = f.second.as<bool>();
        } else if (field == "not_implemented") {
          if (!fv.IsMap())
            return Status::InvalidArgument(Where(source, fv) +
                                           ": not_implemented must map feature: message");
          for (const auto& f : fv)
            s.not_implemented[key][f.first.as<std::string>()] = f.second.as<std::string>();
        } else if (field == "reason" || field == "notes") {
          continue;
        } else {
          return Status::InvalidArgument(
              Where(source, fk.first) + ": unknown field '" + field +
              "' (expected honoured, ignored, supports, not_implemented, reason)");
        }
      }
      for (const auto& p : s.ignored[key]) {
        if (s.honoured[key].count(p)) {
          return Status::InvalidArgument(source + ": " + key + "." + p +
                                         " is both honoured and ignored");
        }
      }
      if (s.honoured[key].empty() && !v["honoured"]) s.honoured.erase(key);
      if (s.ignored[key].empty()) s.ignored.erase(key);
    }
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(source + ": " + e.what());
  }
  return s;
}

StatusOr<PlatformSurface> LoadSurface(const std::string& name_or_path, const std::string& exe_dir) {
  if (name_or_path.empty() || name_or_path == "generic") return PlatformSurface();
  std::vector<std::string> candidates;
  const bool is_path =
      name_or_path.find('/') != std::string::npos ||
      (name_or_path.size() > 5 && name_or_path.compare(name_or_path.size() - 5, 5, ".yaml") == 0);
  if (is_path) {
    candidates.push_back(name_or_path);
  } else {
    if (const char* d = std::getenv("FLEETSWEEP_PLATFORM_DIR")) {
      candidates.push_back(std::string(d) + "/" + name_or_path + ".yaml");
    }
    if (!exe_dir.empty()) candidates.push_back(exe_dir + "/../platforms/" + name_or_path + ".yaml");
    if (const char* src = std::getenv("FLEETSWEEP_SRC")) {
      candidates.push_back(std::string(src) + "/worker/platforms/" + name_or_path + ".yaml");
    }
  }
  for (const auto& path : candidates) {
    std::ifstream in(path);
    if (!in) continue;
    std::stringstream buf;
    buf << in.rdbuf();
    return ParseSurface(buf.str(), path);
  }
  std::string tried;
  for (const auto& c : candidates) tried += (tried.empty() ? "" : ", ") + c;
  return Status::NotFound("platform surface '" + name_or_path + "' not found (tried " + tried +
                          ")");
}

}  // namespace fleetsweep::torchbench
