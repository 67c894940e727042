#include "coordinator/coordinator_app.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <random>

#include "common/metrics/coordinator_metrics.h"
#include "common/metrics/exposer.h"
#include "common/space/spec.h"
#include "common/stats/bootstrap.h"
#include "common/store/store.h"
#include "coordinator/aggregator.h"
#include "coordinator/progress_line.h"
#include "coordinator/report/report.h"
#include "coordinator/results_writer.h"
#include "coordinator/store_guard.h"
#include "coordinator/timed_store.h"
#include "spdlog/spdlog.h"

namespace fleetsweep {
namespace {

double Now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

void UpdateMetrics(const Scheduler& s, CoordinatorMetrics* m, Progress* last, double now,
                   double* last_slow) {
  if (!m) return;
  Progress p = s.GetProgress();
  m->SetConfigStates(p.pending, p.leased, p.done, p.infeasible);
  m->SetConfigsTotal(p.total);
  m->SetWorkersConnected(p.workers);
  m->SetSlots(p.slots, p.busy);
  for (int64_t i = last->leases_expired; i < p.leases_expired; ++i) m->IncLeasesExpired();
  for (int64_t i = last->retries; i < p.retries; ++i) m->IncRetries();
  for (int64_t i = last->duplicates; i < p.duplicates; ++i) m->IncDuplicateResults();
  for (int64_t i = last->refused; i < p.refused; ++i) m->IncRefusedResults();
  *last = p;
  if (now - *last_slow < 2.0) return;  // the rest costs O(configurations)
  *last_slow = now;
  int b = s.BestIndex();
  if (b >= 0) {
    const auto& c = s.configs()[b];
    double med = c.median;
    auto ci = stats::BootstrapMedianCI(c.primary, 0.95, 1000, 1);
    m->SetBest(s.spec().primary_metric().name, med, ci.ok() ? ci->low : med,
               ci.ok() ? ci->high : med);
  }
  std::vector<std::pair<std::string, double>> top;
  for (const auto& c : s.configs()) {
    if (!c.primary.empty()) top.emplace_back(c.record.config_key(), c.median);
  }
  const bool minimize = s.spec().primary_metric().goal == Goal::kMinimize;
  std::sort(top.begin(), top.end(), [&](const auto& x, const auto& y) {
    return minimize ? x.second < y.second : x.second > y.second;
  });
  if (top.size() > 10) top.resize(10);
  m->SetTopConfigs(top);
}

// Every few seconds during the sweep: aggregate what is stored so far and publish node effects and
// audit verdicts (bounded: skipped for very large sweeps, where it runs only at the end).
void PublishAudits(const SweepSpec& spec, ResultStore* store, CoordinatorMetrics* m,
                   uint64_t seed) {
  if (!m) return;
  auto n = store->CountAttempts(spec.name);
  if (!n.ok() || *n == 0 || *n > 200000) return;
  auto records = store->LoadConfigs(spec.name);
  auto attempts = store->LoadAttempts(spec.name);
  if (!records.ok() || !attempts.ok()) return;
  AggregateOptions live;  // a cheaper bootstrap for the live view; the final results use 2000
  live.seed = seed;
  live.resamples = 500;
  SweepResult r = Aggregate(spec, *records, *attempts, live);
  for (const auto& e : r.node_effects) {
    if (std::isfinite(e.effect)) {
      m->SetNodeEffect(e.node, e.effect, std::isfinite(e.ci_low) ? e.ci_low : e.effect,
                       std::isfinite(e.ci_high) ? e.ci_high : e.effect);
    }
  }
  std::map<std::string, std::string> verdicts;
  for (const auto& v : r.injection) {
    if (v.verdict != Injection::kUntested) verdicts[v.param] = Name(v.verdict);
  }
  for (const auto& v : r.inert) {
    if (v.verdict == Effect::kNoEffect) verdicts[v.param] = Name(v.verdict);
  }
  for (const auto& [param, verdict] : verdicts) m->SetAuditVerdict(param, verdict);
}

}  // namespace

int RunSweep(const SweepRunOptions& o, const std::atomic<bool>& stop) {
  if (!o.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.out_dir, ec);
    if (ec) {
      std::cerr << "fleetsweep: cannot create output directory " << o.out_dir << ": "
                << ec.message() << "\n";
      return 2;
    }
  }
  auto spec = ParseSpecFile(o.spec_path);
  if (!spec.ok()) {
    std::cerr << "fleetsweep: " << spec.status().message() << "\n";
    return 2;
  }
  if (o.check_executor) {
    std::vector<std::string> problems = CheckExecutorSection(*spec, *o.check_executor);
    for (const std::string& p : problems) std::cerr << "fleetsweep: " << p << "\n";
    if (!problems.empty()) return 2;
  }
  auto store = OpenStore(o.store_url);
  if (!store.ok()) {
    std::cerr << "fleetsweep: cannot open the result store: " << store.status().message() << "\n";
    return 3;
  }
  // Metrics first, so that the store and the scheduler can report into them.
  std::unique_ptr<MetricsExposer> exposer;
  std::unique_ptr<CoordinatorMetrics> metrics;
  if (o.metrics_port >= 0) {
    auto e = MetricsExposer::Start(o.metrics_port);
    if (!e.ok()) {
      std::cerr << "fleetsweep: " << e.status().message() << "\n";
      return 3;
    }
    exposer = std::move(e).value();
    metrics = std::make_unique<CoordinatorMetrics>(exposer->registry(), spec->name);
    spdlog::info("coordinator metrics on port {}", exposer->port());
  }
  CoordinatorMetrics* m = metrics.get();
  TimedStore timed(store->get(), [m](const char* op, double s) {
    if (m) m->ObserveStoreLatency(op, s);
  });
  SchedulerOptions so = o.scheduler;
  if (so.epoch.empty()) {
    std::random_device rd;
    so.epoch = Hex16((uint64_t(rd()) << 32) | rd()).substr(0, 8);
  }
  if (m) {
    so.on_attempt_counted = [m](const v1::Attempt& a) {
      m->IncAttempts(a.ok(), a.ok() ? "none" : v1::FailureClass_Name(a.failure_class()));
      if (a.ok()) m->IncSamplesStored(a.samples_size());
    };
    so.on_lease_granted = [m](const v1::Lease&) { m->IncLeasesGranted(); };
  }
  Scheduler scheduler(*spec, so, &timed);
  Status init = scheduler.Init();
  if (!init.ok()) {
    std::cerr << "fleetsweep: " << init.message() << "\n";
    return init.code() == StatusCode::kAlreadyExists ? 2 : 3;
  }
  CoordinatorServer server(&scheduler, o.server, Now);
  Status b = server.Bind();
  if (!b.ok()) {
    std::cerr << "fleetsweep: " << b.message() << "\n";
    return 3;
  }
  spdlog::info("coordinator for sweep '{}' listening on {}", spec->name, server.endpoint());
  if (o.on_bound) {
    Status s = o.on_bound(server.endpoint(), static_cast<int>(scheduler.configs().size()),
                          scheduler.Finished());
    if (!s.ok()) {
      std::cerr << "fleetsweep: " << s.message() << "\n";
      return 3;
    }
  }
  ProgressLine progress(o.progress, isatty(2) != 0);
  Progress last_metrics;
  double last_slow_metrics = 0;
  double last_audit = 0;
  double last_guard = 0;
  const std::string endpoint = server.endpoint();
  // Serving stops on a signal (stop) or a store fault found on a tick (halt).
  std::atomic<bool> halt{false};
  Status store_fault;
  auto guard_store = [&](double now) {
    const double failing = scheduler.StoreFailingSeconds(now);
    if (m) m->SetStoreWritable(failing == 0);
    if (failing > o.store_give_up_seconds) {
      store_fault = Status::Unavailable("the store " + timed.Describe() + " refused writes for " +
                                        FormatDuration(failing) + " (limit " +
                                        FormatDuration(o.store_give_up_seconds) +
                                        "): " + scheduler.StoreError().message());
      halt.store(true);
      return;
    }
    if (now - last_guard < 2.0) return;
    last_guard = now;
    Status intact =
        CheckStoreIntact(&timed, *spec, static_cast<int64_t>(scheduler.CountedAttemptIds().size()));
    if (intact.code() == StatusCode::kDataLoss) {
      store_fault = intact;
      halt.store(true);
    }
  };
  Status served = server.Serve(halt, [&] {
    double now = Now();
    if (stop.load()) halt.store(true);
    guard_store(now);
    progress.Update(scheduler, now, false);
    UpdateMetrics(scheduler, metrics.get(), &last_metrics, now, &last_slow_metrics);
    if (metrics && now - last_audit >= 5.0) {
      last_audit = now;
      PublishAudits(*spec, &timed, metrics.get(), so.seed);
    }
    if (o.on_tick) o.on_tick(endpoint);
  });
  progress.Update(scheduler, Now(), true);
  progress.Finish();
  if (!served.ok()) {
    std::cerr << "fleetsweep: " << served.message() << "\n";
    return 3;
  }
  if (!store_fault.ok()) {
    std::cerr << "fleetsweep: " << store_fault.message() << "\n";
    return store_fault.code() == StatusCode::kDataLoss ? 6 : 7;
  }
  // Aggregate from the store: the durable record is the truth.
  auto records = (*store)->LoadConfigs(spec->name);
  auto attempts = (*store)->LoadAttempts(spec->name);
  if (!records.ok() || !attempts.ok()) {
    std::cerr << "fleetsweep: cannot read results back: "
              << (!records.ok() ? records.status() : attempts.status()).message() << "\n";
    return 3;
  }
  (void)(*store)->Flush();
  Status complete = CheckAttemptsComplete(*attempts, scheduler.CountedAttemptIds());
  if (complete.ok()) {
    complete = CheckStoreIntact(store->get(), *spec,
                                static_cast<int64_t>(scheduler.CountedAttemptIds().size()));
  }
  if (!complete.ok()) {
    std::cerr << "fleetsweep: " << complete.message() << "\n";
    return 6;
  }
  SweepResult result = Aggregate(*spec, *records, *attempts, so.seed);
  std::cout << SummaryTable(result, 10);
  if (!o.out_dir.empty()) {
    Status w = WriteResults(o.out_dir, result);
    if (!w.ok()) {
      std::cerr << "fleetsweep: " << w.message() << "\n";
      return 3;
    }
    std::cout << "results: " << o.out_dir << "/results.json, " << o.out_dir << "/results.csv\n";
    ReportOptions report_options;
    report_options.attempts = &*attempts;  // the store is still locked by this process
    Status rep = WriteReport(o.out_dir, report_options);
    if (rep.ok()) {
      std::cout << "report: " << o.out_dir << "/report.html\n";
    } else {
      spdlog::warn("report: {}", rep.message());
    }
  }
  if (scheduler.Finished() && result.done == 0) {
    std::cerr << "fleetsweep: no configuration succeeded: the sweep's result is invalid\n";
    return 4;
  }
  if (!result.valid) {  // the honest-measurement audit refused the result
                        // (docs/honest-measurement.md)
    std::cerr << "fleetsweep: the sweep's result is INVALID and no speedup can be claimed from it:";
    for (const auto& why : result.invalid_reasons) std::cerr << "\n  " << why;
    std::cerr << "\n";
    return 5;
  }
  return 0;
}

}  // namespace fleetsweep
