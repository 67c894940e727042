// fleetsweep-store-dump: prints what a result store holds for one sweep, one JSON object per
// line, for the chaos and bad-input tests (they check the store against the benchmark's ledger)
// and bench/device_time_table.py (where a device's time went).
//
//   fleetsweep-store-dump STORE_URL SWEEP
//   {"kind":"config","config_key":"...","state":3,"params":{"A":"1",...}}
//   {"kind":"attempt","config_key":"...","attempt_id":"...","ok":true,"samples":1,"primary":1,
//    "values":[1.0],"reference":false,"failure_class":0,"failure_detail":"","term_signal":0,
//    "node":"w3","cancelled":false,"slot":0,"device":"0","started_unix_ms":...,
//    "duration_seconds":0.05,"info":{"session.position":"3",...}}
//
// `primary` counts the samples of the first metric seen and `values` lists them. Exits 1
// (message on stderr) when the store cannot be opened or read; 2 on bad usage.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "common/store/store.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: fleetsweep-store-dump STORE_URL SWEEP\n");
    return 2;
  }
  const std::string sweep = argv[2];
  auto store = fleetsweep::OpenStore(argv[1]);
  if (!store.ok()) {
    std::fprintf(stderr, "store-dump: %s\n", store.status().ToString().c_str());
    return 1;
  }
  auto configs = (*store)->LoadConfigs(sweep);
  auto attempts = (*store)->LoadAttempts(sweep);
  if (!configs.ok() || !attempts.ok()) {
    std::fprintf(stderr, "store-dump: %s\n",
                 (!configs.ok() ? configs.status() : attempts.status()).ToString().c_str());
    return 1;
  }
  for (const auto& c : *configs) {
    nlohmann::json params = nlohmann::json::object();
    for (const auto& [name, value] : c.params()) params[name] = value;
    nlohmann::json j = {{"kind", "config"},
                        {"config_key", c.config_key()},
                        {"state", c.state()},
                        {"params", params}};
    std::printf("%s\n", j.dump().c_str());
  }
  for (const auto& a : *attempts) {
    int primary = 0;
    nlohmann::json values = nlohmann::json::array();
    std::string first_metric;
    for (const auto& s : a.samples()) {
      if (first_metric.empty()) first_metric = s.metric();
      if (s.metric() == first_metric) {
        ++primary;
        values.push_back(s.value());
      }
    }
    auto cancelled = a.info().find("exec.cancelled");
    nlohmann::json info = nlohmann::json::object();
    for (const auto& [k, v] : a.info()) info[k] = v;
    nlohmann::json j = {{"kind", "attempt"},
                        {"config_key", a.config_key()},
                        {"attempt_id", a.attempt_id()},
                        {"ok", a.ok()},
                        {"samples", a.samples_size()},
                        {"primary", primary},
                        {"values", values},
                        {"reference", a.reference()},
                        {"failure_class", a.failure_class()},
                        {"failure_detail", a.failure_detail()},
                        {"term_signal", a.term_signal()},
                        {"node", a.node()},
                        {"cancelled", cancelled != a.info().end() && cancelled->second == "true"},
                        {"slot", a.slot()},
                        {"device", a.device()},
                        {"started_unix_ms", a.started_unix_ms()},
                        {"duration_seconds", a.duration_seconds()},
                        {"info", info}};
    std::printf("%s\n", j.dump().c_str());
  }
  return 0;
}
