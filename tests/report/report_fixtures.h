// Hand-written results.json documents shared by the report's unit tests (report_test.cc,
// report_executions_test.cc): four configurations, one infeasible, a hostile string in a level.
#pragma once

#include <string>

#include "nlohmann/json.hpp"

namespace fleetsweep::report_fixtures {

using nlohmann::json;

inline json Config(int rank, const std::string& key, json params, double median, int64_t n = 6,
                   const std::string& status = "done") {
  return {{"rank", rank},
          {"key", key},
          {"params", params},
          {"status", status},
          {"n", n},
          {"median", median},
          {"ci_low", median * 0.95},
          {"ci_high", median * 1.05},
          {"fingerprints", {"f" + key}},
          {"nodes", {"node-a", "node-b"}}};
}

inline json Results() {
  json r;
  r["sweep"] = "demo";
  r["metric"] = "time_ms";
  r["goal"] = "minimize";
  r["summary"] = {{"configurations", 4}, {"done", 3}, {"infeasible", 1}};
  r["configurations"] = {
      Config(1, "k1", {{"BM", "16"}, {"ORDER", "ijk"}}, 1.0),
      Config(2, "k2", {{"BM", "32"}, {"ORDER", "ijk"}}, 2.0),
      Config(3, "k3", {{"BM", "16"}, {"ORDER", "<b>kji</b>"}}, 3.0),
      Config(4, "k4", {{"BM", "32"}, {"ORDER", "<b>kji</b>"}}, 0, 0, "infeasible")};
  r["configurations"][3]["failure"] = {{"class", "EXIT_CODE"}, {"detail", "x"}};
  r["winner"] = {{"key", "k1"}, {"params", r["configurations"][0]["params"]}};
  r["tied"] = json::array();
  r["warnings"] = {"a <warning> & more"};
  return r;
}

}  // namespace fleetsweep::report_fixtures
