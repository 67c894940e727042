#include "coordinator/cli/watch.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <thread>
#include <vector>

#include "common/space/space_index.h"
#include "common/space/spec.h"
#include "common/stats/descriptive.h"
#include "common/store/failure_text.h"
#include "nlohmann/json.hpp"

namespace fleetsweep {
namespace {

constexpr size_t kRecentEvents = 8;

std::string FormatEvent(const std::string& line) {
  nlohmann::json e = nlohmann::json::parse(line, nullptr, false);
  if (e.is_discarded() || !e.is_object()) return line.substr(0, 100);
  std::string s =
      e.contains("type") && e["type"].is_string() ? e["type"].get<std::string>() : "event";
  for (const char* k : {"config_key", "node", "ok", "samples", "failure"}) {
    if (!e.contains(k)) continue;
    const auto& v = e[k];
    if (std::string(k) == "failure") {
      if (!v.is_string() || v == "FAILURE_CLASS_UNSPECIFIED") continue;
      s += " failure=" + FailureClassText(v.get<std::string>());  // "exit_code", not the enum
      continue;
    }
    s += std::string(" ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  }
  return s;
}

std::string Bar(int64_t done, int64_t total, int width = 40) {
  int fill = total > 0 ? static_cast<int>(width * static_cast<double>(done) / total) : 0;
  return "[" + std::string(fill, '#') + std::string(width - fill, '.') + "]";
}

}  // namespace

Watcher::Watcher(ResultStore* store, std::string sweep) : store_(store), sweep_(std::move(sweep)) {}

Status Watcher::Snapshot(std::ostream& out) {
  FS_ASSIGN_OR_RETURN(auto spec_text, store_->GetSpec(sweep_));
  FS_ASSIGN_OR_RETURN(auto records, store_->LoadConfigs(sweep_));
  if (!spec_text && records.empty()) {
    return Status::NotFound("sweep '" + sweep_ + "' not found in " + store_->Describe());
  }
  std::string metric;
  bool minimize = true;
  int64_t total = 0;  // configurations that have no record yet are pending
  if (spec_text) {
    auto spec = ParseSpecText(*spec_text, "<stored spec>");
    if (spec.ok()) {
      metric = spec->primary_metric().name;
      minimize = spec->primary_metric().goal == Goal::kMinimize;
      auto n = SweepSize(*spec);
      if (n.ok()) total = *n;
    }
  }
  for (;;) {
    FS_ASSIGN_OR_RETURN(auto events, store_->ReadEvents(sweep_, event_cursor_, 1000));
    for (const auto& e : events) {
      recent_.push_back(FormatEvent(e));
      if (recent_.size() > kRecentEvents) recent_.pop_front();
    }
    event_cursor_ += static_cast<int64_t>(events.size());
    if (events.size() < 1000) break;
  }

  WatchProgress p;
  p.total = std::max(total, static_cast<int64_t>(records.size()));
  p.pending = p.total - static_cast<int64_t>(records.size());
  std::map<std::string, const v1::ConfigRecord*> by_key;
  for (const auto& r : records) {
    by_key[r.config_key()] = &r;
    switch (r.state()) {
      case v1::CONFIG_STATE_DONE:
        ++p.done;
        break;
      case v1::CONFIG_STATE_INFEASIBLE:
        ++p.infeasible;
        break;
      case v1::CONFIG_STATE_LEASED:
        ++p.leased;
        break;
      default:
        ++p.pending;
    }
  }
  // The attempts one at a time (a large sweep's are not all held; each refresh reads them).
  std::map<std::string, std::vector<double>> samples;
  FS_RETURN_IF_ERROR(store_->ForEachAttempt(sweep_, [&](const v1::Attempt& a) {
    p.executions.Add(a);
    if (!a.ok() || a.reference()) return Status::Ok();
    for (const auto& s : a.samples()) {
      if (metric.empty()) metric = s.metric();
      if (s.metric() == metric) samples[a.config_key()].push_back(s.value());
    }
    return Status::Ok();
  }));
  p.events = event_cursor_;
  progress_ = p;

  std::vector<std::pair<double, std::string>> medians;
  for (const auto& [key, v] : samples) {
    auto m = stats::Median(v);
    if (m.ok()) medians.emplace_back(*m, key);
  }
  std::sort(medians.begin(), medians.end());
  if (!minimize) std::reverse(medians.begin(), medians.end());

  char line[256];
  out << "sweep " << sweep_ << "  (" << store_->Describe() << ")\n";
  std::snprintf(line, sizeof line,
                "%s %lld/%lld done  %lld infeasible  %lld running  %lld pending\n",
                Bar(p.done + p.infeasible, p.total).c_str(), static_cast<long long>(p.done),
                static_cast<long long>(p.total), static_cast<long long>(p.infeasible),
                static_cast<long long>(p.leased), static_cast<long long>(p.pending));
  out << line << ExecutionsText(p.executions) << ", events " << p.events
      << (p.finished() ? "  -- finished\n" : "\n");
  out << "current best by median " << (metric.empty() ? "(no samples yet)" : metric)
      << (minimize ? " (lower is better)" : " (higher is better)") << ":\n";
  for (size_t i = 0; i < medians.size() && i < 5; ++i) {
    std::string params;
    auto it = by_key.find(medians[i].second);
    if (it != by_key.end()) {
      std::map<std::string, std::string> sorted(it->second->params().begin(),
                                                it->second->params().end());
      for (const auto& [k, v] : sorted) params += (params.empty() ? "" : " ") + k + "=" + v;
    }
    std::snprintf(line, sizeof line, "  %zu. %12.5g  n=%-4zu %s\n", i + 1, medians[i].first,
                  samples[medians[i].second].size(), params.c_str());
    out << line;
  }
  out << "recent events:\n";
  if (recent_.empty()) out << "  (none)\n";
  for (const auto& e : recent_) out << "  " << e << "\n";
  return Status::Ok();
}

int RunWatch(const std::string& store_url, const std::string& sweep, bool once,
             double interval_seconds, const std::atomic<bool>& stop, std::ostream& out,
             std::ostream& err) {
  auto store = OpenStore(store_url);
  if (!store.ok()) {
    err << "fleetsweep watch: " << store.status().message() << "\n";
    return 2;
  }
  Watcher w(store->get(), sweep);
  for (;;) {
    if (!once) out << "\033[H\033[2J";  // home + clear
    Status s = w.Snapshot(out);
    out.flush();
    if (!s.ok()) {
      err << "fleetsweep watch: " << s.message() << "\n";
      if (once || s.code() != StatusCode::kUnavailable) return 2;
    }
    if (once || w.progress().finished()) return 0;
    const auto until = std::chrono::steady_clock::now() +
                       std::chrono::milliseconds(static_cast<int64_t>(interval_seconds * 1000));
    while (std::chrono::steady_clock::now() < until) {
      if (stop.load()) return 0;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
}

}  // namespace fleetsweep
