#include "coordinator/report/report_data.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "coordinator/report/html_util.h"

namespace fleetsweep::report {
namespace {

using nlohmann::json;

double Num(const json& j, const char* key, double dflt = NAN) {
  auto it = j.find(key);
  return (it != j.end() && it->is_number()) ? it->get<double>() : dflt;
}

std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

double Median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

std::set<std::string> KeysOf(const json& list) {
  std::set<std::string> keys;
  if (!list.is_array()) return keys;
  for (const auto& e : list) {
    if (e.is_object() && e.contains("key") && e["key"].is_string())
      keys.insert(e["key"].get<std::string>());
  }
  return keys;
}

// One parameter's audit findings merged into one object: the fingerprint audit
// (audit.injection[].verdict -> "injection", "example"), the measured-effect test
// (audit.inert[] -> "inert", "test", "p_value", "spread", "note") and a declared-inert reason
// (audit.declared_inert[] -> "declared_inert"). Older documents: results["parameters"].
json ParamAudit(const json& r, const std::string& name) {
  json out = json::object();
  auto each = [&](const char* field, auto fn) {
    const json* list = FindField(r, field);
    if (list == nullptr || !list->is_array()) return;
    for (const auto& e : *list) {
      if (e.is_object() && (Str(e, "param") == name || Str(e, "name") == name)) fn(e);
    }
  };
  each("injection", [&](const json& e) {
    out["injection"] = Str(e, "verdict");
    if (!Str(e, "example").empty()) out["example"] = e["example"];
  });
  each("inert", [&](const json& e) {
    out["inert"] = Str(e, "verdict");
    for (const char* k : {"test", "p_value", "spread", "note"}) {
      if (!e.contains(k) || e[k].is_null()) continue;
      if (e[k].is_string() && e[k].get<std::string>().empty()) continue;
      out[k] = e[k];
    }
  });
  each("declared_inert", [&](const json& e) { out["declared_inert"] = Str(e, "reason"); });
  each("parameters", [&](const json& e) {
    for (const auto& [k, v] : e.items()) {
      if (k != "name") out[k] = v;
    }
  });
  return out.empty() ? json(nullptr) : out;
}

}  // namespace

const nlohmann::json* FindField(const nlohmann::json& j, const std::string& name) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(name);
  if (it != j.end() && !it->is_null()) return &*it;
  auto a = j.find("audit");
  if (a != j.end() && a->is_object()) {
    auto it2 = a->find(name);
    if (it2 != a->end() && !it2->is_null()) return &*it2;
  }
  return nullptr;
}

std::string JsonText(const nlohmann::json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number_float()) return FormatNumber(j.get<double>());
  if (j.is_object()) {
    std::string s;
    for (const auto& [k, v] : j.items()) s += (s.empty() ? "" : ", ") + k + "=" + JsonText(v);
    return s;
  }
  if (j.is_array()) {
    std::string s;
    for (const auto& v : j) s += (s.empty() ? "" : "; ") + JsonText(v);
    return s;
  }
  return j.dump();
}

bool LevelLess(const std::string& a, const std::string& b) {
  char *ea = nullptr, *eb = nullptr;
  double da = std::strtod(a.c_str(), &ea), db = std::strtod(b.c_str(), &eb);
  bool na = !a.empty() && *ea == '\0', nb = !b.empty() && *eb == '\0';
  if (na && nb) return da < db || (da == db && a < b);
  if (na != nb) return na;
  return a < b;
}

// 95% order-statistic CI of the median: the widest-k interval [x(k), x(n-k-1)] (0-based) whose
// binomial(n, 1/2) coverage is at least 95%.
static void MedianCi(std::vector<double> v, LevelStat* s) {
  std::sort(v.begin(), v.end());
  const int n = static_cast<int>(v.size());
  s->ci_low = v.front();
  s->ci_high = v.back();
  s->ci_exact = false;
  double tail = 0, pk = std::pow(0.5, n);  // P(X = 0)
  int k = -1;
  for (int j = 0; j < n / 2; ++j) {  // P(X <= j) <= 0.025 keeps x(j+1) as the lower end
    tail += pk;
    pk = pk * (n - j) / (j + 1);
    if (tail > 0.025) break;
    k = j + 1;
  }
  if (k < 1) return;  // fewer than 6 values: no interval reaches 95%
  s->ci_low = v[k - 1];
  s->ci_high = v[n - k];
  s->ci_exact = true;
}

ReportData BuildReportData(const nlohmann::json& r) {
  ReportData d;
  if (!r.is_object()) return d;
  d.sweep = Str(r, "sweep");
  d.metric = Str(r, "metric");
  d.goal = Str(r, "goal");
  d.lower_is_better = d.goal != "maximize";
  if (const json* v = FindField(r, "valid"); v && v->is_boolean()) d.valid = v->get<bool>();
  for (const char* f : {"invalid_reasons", "problems", "reasons", "errors"}) {
    const json* p = FindField(r, f);
    if (p == nullptr) continue;
    if (p->is_array()) {
      for (const auto& e : *p) d.invalid_reasons.push_back(JsonText(e));
    } else {
      d.invalid_reasons.push_back(JsonText(*p));
    }
  }
  const std::set<std::string> tied = KeysOf(r.value("tied", json::array()));
  std::string winner;
  if (r.contains("winner") && r["winner"].is_object()) winner = Str(r["winner"], "key");
  std::set<std::string> names, nodes, fps;
  const json& cfgs = r.contains("configurations") ? r["configurations"] : json::array();
  for (const auto& c : cfgs) {
    if (!c.is_object()) continue;
    RankedConfig rc;
    rc.rank = static_cast<int>(Num(c, "rank", static_cast<double>(d.configs.size() + 1)));
    rc.key = Str(c, "key");
    if (c.contains("params") && c["params"].is_object()) {
      for (const auto& [k, v] : c["params"].items()) {
        rc.params[k] = v.is_string() ? v.get<std::string>() : v.dump();
        names.insert(k);
      }
    }
    rc.status = Str(c, "status");
    rc.n = static_cast<int64_t>(Num(c, "n", 0));
    rc.median = Num(c, "median");
    rc.ci_low = Num(c, "ci_low");
    rc.ci_high = Num(c, "ci_high");
    if (c.contains("fingerprints") && c["fingerprints"].is_array()) {
      rc.fingerprints = static_cast<int>(c["fingerprints"].size());
      for (const auto& f : c["fingerprints"]) fps.insert(JsonText(f));
    }
    if (c.contains("nodes") && c["nodes"].is_array()) {
      for (const auto& n : c["nodes"]) nodes.insert(JsonText(n));
    }
    if (c.contains("failure") && c["failure"].is_object()) rc.failure = Str(c["failure"], "class");
    rc.winner = !rc.key.empty() && rc.key == winner;
    rc.tied = tied.count(rc.key) > 0;
    d.configs.push_back(std::move(rc));
  }
  d.total_configs = static_cast<int64_t>(d.configs.size());
  if (r.contains("configurations_truncated") && r["configurations_truncated"].is_object()) {
    const json& t = r["configurations_truncated"];
    const int64_t total = static_cast<int64_t>(Num(t, "total", 0));
    if (total > d.total_configs) {
      d.total_configs = total;
      d.truncated = true;
    }
  }
  d.param_names.assign(names.begin(), names.end());
  // A value no parameter can print (\x01 then "absent"), for configurations without the parameter.
  const std::string absent = std::string(1, '\x01') + "absent";
  for (const auto& name : d.param_names) {
    std::set<std::string> values;
    for (const auto& c : d.configs) {
      auto it = c.params.find(name);
      values.insert(it == c.params.end() ? absent : it->second);
    }
    if (values.size() == 1 && d.configs.size() > 1) d.constant_params[name] = *values.begin();
  }
  d.nodes.assign(nodes.begin(), nodes.end());
  d.distinct_fingerprints = static_cast<int>(fps.size());

  std::vector<double> all;
  for (const auto& c : d.configs) {
    if (c.n > 0 && std::isfinite(c.median)) all.push_back(c.median);
  }
  const double overall = std::fabs(Median(all));
  for (const auto& name : d.param_names) {
    std::map<std::string, std::vector<double>> by_level;
    for (const auto& c : d.configs) {
      auto it = c.params.find(name);
      if (it == c.params.end() || c.n == 0 || !std::isfinite(c.median)) continue;
      by_level[it->second].push_back(c.median);
    }
    ParamEffect e;
    e.name = name;
    e.audit = ParamAudit(r, name);
    if (by_level.size() < 2 && e.audit.is_null()) continue;
    std::vector<std::string> levels;
    for (const auto& kv : by_level) levels.push_back(kv.first);
    std::sort(levels.begin(), levels.end(), LevelLess);
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& l : levels) {
      const auto& v = by_level[l];
      LevelStat s;
      s.level = l;
      s.median_of_medians = Median(v);
      auto [mn, mx] = std::minmax_element(v.begin(), v.end());
      s.best = d.lower_is_better ? *mn : *mx;
      s.worst = d.lower_is_better ? *mx : *mn;
      s.configs = static_cast<int>(v.size());
      MedianCi(v, &s);
      lo = std::min(lo, s.median_of_medians);
      hi = std::max(hi, s.median_of_medians);
      e.levels.push_back(s);
    }
    e.effect = (levels.size() >= 2 && overall > 0) ? (hi - lo) / overall : 0;
    d.effects.push_back(std::move(e));
  }
  std::stable_sort(d.effects.begin(), d.effects.end(),
                   [](const ParamEffect& a, const ParamEffect& b) { return a.effect > b.effect; });
  return d;
}

}  // namespace fleetsweep::report
