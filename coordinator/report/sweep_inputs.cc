#include "coordinator/report/sweep_inputs.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

namespace fleetsweep {

StatusOr<SweepInputs> LoadSweepInputs(const std::string& dir) {
  SweepInputs in;
  const std::string path = dir + "/results.json";
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::NotFound(path + ": cannot read (run the sweep first)");
  std::stringstream buf;
  buf << f.rdbuf();
  in.results = nlohmann::json::parse(buf.str(), nullptr, /*allow_exceptions=*/false);
  if (in.results.is_discarded() || !in.results.is_object()) {
    return Status::InvalidArgument(path + ": not a JSON object");
  }
  if (in.results.contains("valid") && in.results["valid"] == false) {
    in.notes.push_back(
        "results.json says the sweep is INVALID (see report.html): the exported "
        "values are not defensible");
  }
  const std::string store_dir = dir + "/store";
  auto store = OpenEmbeddedStore(dir);
  if (!store.ok()) {
    in.notes.push_back(store.status().code() == StatusCode::kNotFound
                           ? "no store at " + store_dir + ": spec defaults unavailable"
                           : "store " + store_dir + ": " + store.status().message());
    return in;
  }
  const std::string sweep = in.results.value("sweep", "");
  FS_ASSIGN_OR_RETURN(auto text, (*store)->GetSpec(sweep));
  if (text.has_value()) {
    FS_ASSIGN_OR_RETURN(SweepSpec spec, ParseSpecText(*text, store_dir + " (stored spec)"));
    in.spec = std::move(spec);
  } else {
    in.notes.push_back("the store holds no spec for sweep '" + sweep + "'");
  }
  FS_ASSIGN_OR_RETURN(in.attempts, (*store)->LoadAttempts(sweep));
  return in;
}

StatusOr<std::unique_ptr<ResultStore>> OpenEmbeddedStore(const std::string& dir) {
  const std::string store_dir = dir + "/store";
  struct stat st;
  if (stat(store_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Status::NotFound("no store at " + store_dir);
  }
  return OpenStore("file:" + store_dir);
}

const nlohmann::json* ChosenConfig(const nlohmann::json& r) {
  // Only type-checked accessors below: a malformed document gives nullptr, never a throw.
  if (!r.contains("configurations") || !r["configurations"].is_array()) return nullptr;
  const auto& cfgs = r["configurations"];
  auto by_key = [&](const nlohmann::json& ref) -> const nlohmann::json* {
    if (!ref.is_object() || !ref.contains("key")) return nullptr;
    for (const auto& c : cfgs) {
      if (c.is_object() && c.contains("key") && c["key"] == ref["key"]) return &c;
    }
    return nullptr;
  };
  if (r.contains("winner")) {
    if (const auto* c = by_key(r["winner"])) return c;
  }
  if (r.contains("tied") && r["tied"].is_array() && !r["tied"].empty()) {
    if (const auto* c = by_key(r["tied"][0])) return c;
  }
  for (const auto& c : cfgs) {
    if (!c.is_object() || !c.contains("n") || !c["n"].is_number() || !c.contains("params")) {
      continue;
    }
    const bool infeasible = c.contains("status") && c["status"] == "infeasible";
    if (c["n"].get<double>() > 0 && !infeasible) return &c;
  }
  return nullptr;
}

}  // namespace fleetsweep
