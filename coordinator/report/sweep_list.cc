#include "coordinator/report/sweep_list.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "common/space/space_index.h"
#include "common/space/spec.h"
#include "common/stats/descriptive.h"
#include "common/store/execution_count.h"
#include "common/store/failure_text.h"

namespace fleetsweep {
namespace {

bool IsDir(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

struct ConfigRow {
  const v1::ConfigRecord* record = nullptr;
  int executions = 0, ok = 0;
  std::vector<double> values;  // primary-metric samples of ok executions
  double median = 0;
};

struct SweepView {
  std::string name, metric, unit;
  bool minimize = true;
  std::vector<v1::ConfigRecord> records;  // only configurations counted or changed so far
  int64_t total = 0;                      // the sweep's configurations (SweepSize)
  std::vector<ConfigRow> rows;            // ranked: with results first, best first
  int64_t finished = 0, done = 0, infeasible = 0;
  ExecutionCount executions;  // the sweep's, as `run` and `watch` count them
};

std::string ParamsText(const v1::ConfigRecord& r) {
  std::map<std::string, std::string> sorted(r.params().begin(), r.params().end());
  std::string out;
  for (const auto& [k, v] : sorted) out += (out.empty() ? "" : " ") + k + "=" + v;
  return out;
}

const char* StateText(v1::ConfigState s, bool eliminated) {
  switch (s) {
    case v1::CONFIG_STATE_DONE:
      return eliminated ? "eliminated" : "done";
    case v1::CONFIG_STATE_INFEASIBLE:
      return "infeasible";
    case v1::CONFIG_STATE_LEASED:
      return "running";
    default:
      return "pending";
  }
}

StatusOr<SweepView> LoadView(ResultStore* store, const std::string& name) {
  SweepView v;
  v.name = name;
  FS_ASSIGN_OR_RETURN(std::optional<std::string> text, store->GetSpec(name));
  if (!text) return Status::NotFound("no sweep '" + name + "' in " + store->Describe());
  auto spec = ParseSpecText(*text, name);
  if (spec.ok()) {
    v.metric = spec->primary_metric().name;
    v.unit = spec->primary_metric().unit;
    v.minimize = spec->primary_metric().goal == Goal::kMinimize;
    auto n = SweepSize(*spec);
    if (n.ok()) v.total = *n;
  }
  FS_ASSIGN_OR_RETURN(v.records, store->LoadConfigs(name));
  std::map<std::string, size_t> index;
  for (const auto& r : v.records) {
    index[r.config_key()] = v.rows.size();
    v.rows.emplace_back();
    v.rows.back().record = &r;
    if (r.state() == v1::CONFIG_STATE_DONE) ++v.done;
    if (r.state() == v1::CONFIG_STATE_INFEASIBLE) ++v.infeasible;
  }
  v.finished = v.done + v.infeasible;
  v.total = std::max(v.total, static_cast<int64_t>(v.records.size()));
  // The attempts one at a time (a large sweep's are not all held).
  FS_RETURN_IF_ERROR(store->ForEachAttempt(name, [&](const v1::Attempt& a) {
    v.executions.Add(a);
    if (a.reference()) return Status::Ok();
    auto it = index.find(a.config_key());
    if (it == index.end()) return Status::Ok();
    ConfigRow& row = v.rows[it->second];
    ++row.executions;
    if (!a.ok()) return Status::Ok();
    ++row.ok;
    for (const auto& s : a.samples()) {
      if (s.metric() == v.metric) row.values.push_back(s.value());
    }
    return Status::Ok();
  }));
  for (auto& row : v.rows) {
    if (row.values.empty()) continue;
    auto median = stats::Median(row.values);
    if (median.ok()) row.median = *median;
  }
  std::stable_sort(v.rows.begin(), v.rows.end(), [&](const ConfigRow& a, const ConfigRow& b) {
    if (a.values.empty() != b.values.empty()) return !a.values.empty();
    if (a.values.empty()) return a.record->seq() < b.record->seq();
    return v.minimize ? a.median < b.median : a.median > b.median;
  });
  return v;
}

// "  <- exit_code: exit status 2: bench: unknown order" for an infeasible configuration (its last
// failure, first line, at most 120 characters); "" otherwise.
std::string WhyInfeasible(const v1::ConfigRecord& r) {
  if (r.state() != v1::CONFIG_STATE_INFEASIBLE) return "";
  std::string detail = r.last_failure_detail().substr(0, r.last_failure_detail().find('\n'));
  if (detail.size() > 120) detail = detail.substr(0, 117) + "...";
  return "  <- " + FailureClassText(r.last_failure()) + (detail.empty() ? "" : ": " + detail);
}

std::string Number(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", x);
  return b;
}

}  // namespace

std::string StoreUrlFor(const std::string& store) {
  if (store.rfind("redis://", 0) == 0 || store.rfind("file:", 0) == 0) return store;
  if (IsDir(store + "/store")) return "file:" + store + "/store";
  return "file:" + store;
}

StatusOr<std::string> ListSweepsText(ResultStore* store) {
  FS_ASSIGN_OR_RETURN(std::vector<std::string> names, store->ListSweeps());
  std::ostringstream o;
  if (names.empty()) {
    o << "no sweeps in " << store->Describe() << "\n";
    return o.str();
  }
  char line[1024];
  std::snprintf(line, sizeof line, "%-24s %-12s %-40s %-24s  %s\n", "sweep", "state",
                "configurations", "executions", "best (median)");
  o << line;
  for (const std::string& name : names) {
    FS_ASSIGN_OR_RETURN(SweepView v, LoadView(store, name));
    const int64_t total = v.total;
    const char* state = total > 0 && v.finished == total ? "finished"
                        : v.executions.executions > 0    ? "unfinished"
                                                         : "not started";
    const std::string configs = std::to_string(v.finished) + "/" + std::to_string(total) +
                                " finished (" + std::to_string(v.done) + " ok, " +
                                std::to_string(v.infeasible) + " infeasible)";
    std::string best = "-";
    if (!v.rows.empty() && !v.rows[0].values.empty()) {
      best = v.metric + " " + Number(v.rows[0].median) + (v.unit.empty() ? "" : " " + v.unit) +
             " (" + ParamsText(*v.rows[0].record) + ")";
    }
    std::snprintf(line, sizeof line, "%-24s %-12s %-40s %-24s  %s\n", name.c_str(), state,
                  configs.c_str(), ExecutionsText(v.executions).c_str(), best.c_str());
    o << line;
  }
  return o.str();
}

StatusOr<std::string> ShowSweepText(ResultStore* store, const std::string& sweep, int limit) {
  FS_ASSIGN_OR_RETURN(SweepView v, LoadView(store, sweep));
  std::ostringstream o;
  o << "sweep " << v.name << ": " << v.total << " configurations, " << v.finished << " finished ("
    << v.done << " ok, " << v.infeasible << " infeasible), " << ExecutionsText(v.executions)
    << "; ranked by the median " << v.metric << " (" << (v.minimize ? "lower" : "higher")
    << " is better)\n";
  char line[1024];
  std::snprintf(line, sizeof line, "%-5s %-18s %-11s %10s %14s  %s\n", "rank", "config", "state",
                "executions", ("median " + v.metric).c_str(), "parameters");
  o << line;
  int shown = 0;
  for (size_t i = 0; i < v.rows.size() && (limit <= 0 || shown < limit); ++i, ++shown) {
    const ConfigRow& row = v.rows[i];
    const std::string median = row.values.empty() ? "-" : Number(row.median);
    std::snprintf(line, sizeof line, "%-5zu %-18s %-11s %10d %14s  %s", i + 1,
                  row.record->config_key().c_str(),
                  StateText(row.record->state(), row.record->eliminated()), row.executions,
                  median.c_str(), ParamsText(*row.record).c_str());
    o << line << WhyInfeasible(*row.record) << "\n";
  }
  if (static_cast<size_t>(shown) < v.rows.size()) {
    o << "(" << v.rows.size() - shown << " more: --limit 0 shows all)\n";
  }
  return o.str();
}

}  // namespace fleetsweep
