// results.csv and the files of a sweep's results (results_writer.h): every configuration as a
// CSV row; results.json, results.csv and summary.txt each written to a temporary name and
// renamed. results.json: results_json.cc; summary.txt: results_summary.cc.
#include "coordinator/aggregate/results_writer.h"

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

namespace fleetsweep {
namespace {

std::string CsvEscape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c;
  }
  return o + "\"";
}

}  // namespace

std::string ResultsToCsv(const SweepResult& r) {
  std::set<std::string> names;
  for (const auto& c : r.configs) {
    for (const auto& [k, v] : c.params) names.insert(k);
  }
  std::ostringstream o;
  o << "rank,key,status";
  for (const auto& n : names) o << "," << CsvEscape(n);
  o << ",n,samples,median,mad,ci_low,ci_high,attempts,failed_attempts,failure_class,"
       "fingerprints,tied\n";
  std::vector<bool> tied(r.configs.size(), false);
  for (int i : r.tied) tied[static_cast<size_t>(i)] = true;
  for (size_t i = 0; i < r.configs.size(); ++i) {
    const ConfigResult& c = r.configs[i];
    o << i + 1 << "," << c.key << "," << Name(c.status);
    for (const auto& n : names) {
      auto it = c.params.find(n);
      o << "," << (it == c.params.end() ? "" : CsvEscape(it->second));
    }
    std::string fps;
    for (const auto& f : c.fingerprints) fps += (fps.empty() ? "" : " ") + f;
    o << "," << c.primary.n << "," << c.primary.samples << "," << c.primary.median << ","
      << c.primary.mad << "," << c.primary.ci_low << "," << c.primary.ci_high << "," << c.attempts
      << "," << c.failed_attempts << "," << c.failure_class << "," << fps << ","
      << (tied[i] ? "1" : "") << "\n";
  }
  return o.str();
}

Status WriteFileAtomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Status::Unavailable(tmp + ": cannot write");
    out << content;
    if (!out.flush()) return Status::Unavailable(tmp + ": write failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return Status::Unavailable(path + ": cannot rename from " + tmp);
  }
  return Status::Ok();
}

Status WriteResults(const std::string& dir, const SweepResult& r, const ResultsOptions& options) {
  // results.csv (a row per configuration: most of the work for a large sweep) is built and
  // written on a second thread while results.json is (issue 16: an interrupted sweep's exit).
  Status csv;
  std::thread csv_writer([&] { csv = WriteFileAtomically(dir + "/results.csv", ResultsToCsv(r)); });
  Status json =
      WriteFileAtomically(dir + "/results.json", ResultsToJson(r, options).dump(2) + "\n");
  csv_writer.join();
  FS_RETURN_IF_ERROR(json);
  FS_RETURN_IF_ERROR(csv);
  return WriteFileAtomically(dir + "/summary.txt", SummaryTable(r, 20));
}

}  // namespace fleetsweep
