#include "coordinator/app/sweep_runner.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <random>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "common/metrics/coordinator_metrics.h"
#include "common/metrics/exposer.h"
#include "common/space/spec.h"
#include "common/store/store.h"
#include "common/store/write_behind_store.h"
#include "common/util/freed_memory.h"
#include "coordinator/aggregate/aggregator.h"
#include "coordinator/aggregate/incremental_aggregate.h"
#include "coordinator/aggregate/results_writer.h"
#include "coordinator/app/live_audits.h"
#include "coordinator/app/progress_line.h"
#include "coordinator/app/store_guard.h"
#include "coordinator/app/store_watch.h"
#include "coordinator/app/timed_store.h"
#include "coordinator/report/report.h"
#include "spdlog/spdlog.h"

namespace fleetsweep {
namespace {

double Now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// The attempts the scheduler counted before serving (a resumed sweep's), read once from the
// store; nullopt when there are more than `max` or the store cannot be read (then the live
// audits publish progress only).
std::optional<std::vector<v1::Attempt>> CountedBefore(ResultStore* store, const SweepSpec& spec,
                                                      const Scheduler& scheduler, int64_t max) {
  const LeaseTable& counted = scheduler.leases();
  if (counted.counted() == 0) return std::vector<v1::Attempt>{};
  if (counted.counted() > max) return std::nullopt;
  auto attempts = store->LoadAttempts(spec.name);
  if (!attempts.ok()) return std::nullopt;
  std::vector<v1::Attempt> out;
  for (auto& a : *attempts) {
    if (counted.Counted(a.attempt_id())) out.push_back(std::move(a));
  }
  return out;
}

}  // namespace

// Declared in the order they must be built; destroyed in reverse (server first, store last).
struct SweepRunner::State {
  SweepSpec spec;
  std::unique_ptr<ResultStore> store;
  std::unique_ptr<MetricsExposer> exposer;
  std::unique_ptr<CoordinatorMetrics> metrics;
  std::unique_ptr<TimedStore> timed;
  // What the scheduler, the server and the store watch use while serving: writes are made
  // durable by its thread (group commit) while the serving thread goes on; every read drains it.
  std::unique_ptr<WriteBehindStore> write_behind;
  SchedulerOptions scheduler_options;
  std::unique_ptr<Scheduler> scheduler;
  std::unique_ptr<CoordinatorServer> server;
  // Attempts counted since the last tick, for LiveAudits (filled only with metrics on).
  std::vector<v1::Attempt> live_feed;
};

RunOutcome JudgeResult(const SweepResult& result, bool finished) {
  if (finished && result.done == 0) {
    return RunOutcome::Fail(ExitCode::kNothingSucceeded,
                            "no configuration succeeded: the sweep's result is invalid");
  }
  if (!result.valid) {  // docs/honest-measurement.md
    std::string m = "the sweep's result is INVALID and no speedup can be claimed from it:";
    for (const auto& why : result.invalid_reasons) m += "\n  " + why;
    return RunOutcome::Fail(ExitCode::kAuditRefused, m);
  }
  return RunOutcome{};
}

SweepRunner::SweepRunner(SweepRunOptions options, std::ostream& out)
    : options_(std::move(options)), out_(out) {}

SweepRunner::~SweepRunner() {
  // Intentionally leaked (options_.free_at_exit false): the process is about to exit. The
  // metrics exposer's web server (civetweb) stops by waiting for its listener thread, which polls
  // with a 2 s timeout: destroying it held every exit with metrics on for up to 2 s; its threads
  // end with the process. The store is still closed (its writes were made durable by Finish).
  if (state_ && !options_.free_at_exit) {
    (void)state_->scheduler.release();
    (void)state_->exposer.release();
  }
}

std::string SweepRunner::endpoint() const {
  return state_ && state_->server ? state_->server->endpoint() : "";
}

RunOutcome SweepRunner::Open() {
  const SweepRunOptions& o = options_;
  if (!o.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.out_dir, ec);
    if (ec) {
      return RunOutcome::Fail(ExitCode::kBadInput,
                              "cannot create output directory " + o.out_dir + ": " + ec.message());
    }
  }
  auto spec = ParseSpecFile(o.spec_path);
  if (!spec.ok()) return RunOutcome::Fail(ExitCode::kBadInput, spec.status().message());
  if (o.check_executor) {
    std::vector<std::string> problems = CheckExecutorSection(*spec, *o.check_executor);
    if (!problems.empty()) return RunOutcome{ExitCode::kBadInput, problems};
  }
  auto st = std::make_unique<State>();
  st->spec = std::move(spec).value();
  auto store = OpenStore(o.store_url);
  if (!store.ok()) {
    return RunOutcome::Fail(ExitCode::kStartOrIoFailure,
                            "cannot open the result store: " + store.status().message());
  }
  st->store = std::move(store).value();
  // Metrics first, so that the store and the scheduler can report into them.
  if (o.metrics_port >= 0) {
    auto e = MetricsExposer::Start(o.metrics_port);
    if (!e.ok()) return RunOutcome::Fail(ExitCode::kStartOrIoFailure, e.status().message());
    st->exposer = std::move(e).value();
    st->metrics = std::make_unique<CoordinatorMetrics>(st->exposer->registry(), st->spec.name);
    spdlog::info("coordinator metrics on port {}", st->exposer->port());
  }
  CoordinatorMetrics* m = st->metrics.get();
  st->timed = std::make_unique<TimedStore>(st->store.get(), [m](const char* op, double s) {
    if (m) m->ObserveStoreLatency(op, s);
  });
  st->write_behind = std::make_unique<WriteBehindStore>(st->timed.get());
  SchedulerOptions& so = st->scheduler_options;
  so = o.scheduler;
  if (so.epoch.empty()) {
    std::random_device rd;
    so.epoch = Hex16((uint64_t(rd()) << 32) | rd()).substr(0, 8);
  }
  if (m) {
    std::vector<v1::Attempt>* feed = &st->live_feed;
    so.on_attempt_counted = [m, feed](const v1::Attempt& a) {
      m->IncAttempts(a.ok(), a.ok() ? "none" : v1::FailureClass_Name(a.failure_class()));
      if (a.ok()) m->IncSamplesStored(a.samples_size());
      feed->push_back(a);
    };
    so.on_lease_granted = [m](const v1::Lease&) { m->IncLeasesGranted(); };
  }
  st->scheduler = std::make_unique<Scheduler>(st->spec, so, st->write_behind.get());
  Status init = st->scheduler->Init();
  if (!init.ok()) {
    // kAlreadyExists: the store holds another spec under this sweep's name.
    return RunOutcome::Fail(init.code() == StatusCode::kAlreadyExists ? ExitCode::kBadInput
                                                                      : ExitCode::kStartOrIoFailure,
                            init.message());
  }
  st->server = std::make_unique<CoordinatorServer>(st->scheduler.get(), o.server, Now);
  st->server->SetDurability(st->write_behind.get());
  Status b = st->server->Bind();
  if (!b.ok()) return RunOutcome::Fail(ExitCode::kStartOrIoFailure, b.message());
  spdlog::info("coordinator for sweep '{}' listening on {}", st->spec.name, st->server->endpoint());
  if (o.on_bound) {
    Status s = o.on_bound(st->server->endpoint(), static_cast<int>(st->scheduler->configs().size()),
                          st->scheduler->Finished());
    if (!s.ok()) return RunOutcome::Fail(ExitCode::kStartOrIoFailure, s.message());
  }
  state_ = std::move(st);
  return RunOutcome{};
}

RunOutcome SweepRunner::Serve(const std::atomic<bool>& stop) {
  if (!state_) return RunOutcome::Fail(ExitCode::kStartOrIoFailure, "Serve before Open");
  State& st = *state_;
  Scheduler& scheduler = *st.scheduler;
  CoordinatorMetrics* m = st.metrics.get();
  ProgressLine progress(options_.progress, isatty(2) != 0);
  LiveAuditOptions live;
  live.seed = st.scheduler_options.seed;
  // The live audits run on their own thread; a tick hands them the attempts counted since the
  // last one and the records of those attempts' configurations. They start with the records of
  // the configurations counted before serving only (a resumed sweep's): never the whole space.
  std::optional<std::vector<v1::Attempt>> before =
      m ? CountedBefore(st.write_behind.get(), st.spec, scheduler, live.max_live_attempts)
        : std::nullopt;
  std::vector<v1::ConfigRecord> records;
  if (before) {
    std::unordered_set<int> seen;
    for (const auto& a : *before) {
      const int i = scheduler.configs().Find(a.config_key());
      if (i >= 0 && seen.insert(i).second) records.push_back(scheduler.configs().Record(i));
    }
  }
  LiveAudits audits(st.spec, m, live, records, std::move(before));
  std::vector<v1::ConfigRecord>().swap(records);
  auto hand_over = [&](double now) {
    if (!m) return;
    LiveBatch batch;
    batch.now = now;
    batch.progress = scheduler.GetProgress();
    if (audits.aggregating()) batch.attempts.swap(st.live_feed);
    st.live_feed.clear();
    std::unordered_set<int> touched;
    for (const auto& a : batch.attempts) {
      // A counted attempt's configuration is held (it was leased), so Find knows it.
      const int i = scheduler.configs().Find(a.config_key());
      if (i >= 0 && touched.insert(i).second) {
        batch.records.push_back(scheduler.configs().Record(i));
      }
    }
    audits.Hand(std::move(batch));
  };
  StoreWatch watch(st.spec, st.write_behind.get(), options_.store_give_up_seconds);
  const std::string endpoint = st.server->endpoint();
  // Serving stops on a signal (stop) or a store fault found on a tick (halt).
  std::atomic<bool> halt{false};
  Status store_fault;
  Status served = st.server->Serve(halt, [&] {
    const double now = Now();
    if (stop.load()) halt.store(true);
    Status fault = watch.Check(scheduler, now, m);
    if (!fault.ok()) {
      store_fault = fault;
      halt.store(true);
    }
    progress.Update(scheduler, now, false);
    hand_over(now);
    if (options_.on_tick) options_.on_tick(endpoint);
  });
  progress.Update(scheduler, Now(), true);
  progress.Finish();
  if (stop.load()) {
    spdlog::info(
        "stopping: reading back and aggregating what is stored (a second SIGINT/SIGTERM "
        "exits at once without results; running again resumes)");
  }
  if (!served.ok()) return RunOutcome::Fail(ExitCode::kStartOrIoFailure, served.message());
  if (!store_fault.ok())
    return RunOutcome::Fail(StoreWatch::CodeOf(store_fault), store_fault.message());
  return RunOutcome{};
}

RunOutcome SweepRunner::Finish() {
  if (!state_) return RunOutcome::Fail(ExitCode::kStartOrIoFailure, "Finish before Open");
  State& st = *state_;
  const SweepRunOptions& o = options_;
  // Where Finish spends its time, logged once at the end (issue 16: an interrupted sweep must
  // exit within 2 s).
  double mark = Now();
  std::string phases;
  auto phase = [&](const char* name) {
    const double now = Now();
    char b[64];
    std::snprintf(b, sizeof b, "%s%s %.2f s", phases.empty() ? "" : ", ", name, now - mark);
    phases += b;
    mark = now;
  };
  // Aggregate from the store: the durable record is the truth (read through the write-behind
  // store: every accepted write is durable first). The attempts are streamed into the aggregate
  // one by one, never all held (issue 16: a million-configuration sweep stopped by SIGINT).
  // Nothing is served or scheduled past here: what Finish needs of the server and the scheduler
  // is kept, and they go (on a thread, beside the records' read) before the aggregate is built:
  // their per-configuration state is about 0.7 KB a configuration that ran (issue 16's completed
  // large sweeps). The server's queued shutdowns are sent within its linger.
  // Until the aggregate is taken, what is freed (the scheduler's and the server's state, then
  // each consumed record and entry) goes back to the system at once: with jemalloc's default
  // decay it stayed resident under the aggregate's peak (240 -> 166 MiB for a completed
  // 64,000-configuration sweep, docs/performance.md). Not for results and the report: returning
  // pages costs time, and the peak is past.
  std::optional<FreedMemoryReturnedPromptly> prompt;
  prompt.emplace();
  const bool finished = st.scheduler->Finished();
  const size_t space_configurations = st.scheduler->configs().size();
  LeaseTable counted = st.scheduler->TakeLeases();  // which attempts were counted
  st.server.reset();
  std::thread release([scheduler = std::move(st.scheduler)]() mutable { scheduler.reset(); });
  auto records = st.write_behind->LoadConfigs(st.spec.name);
  release.join();
  if (!records.ok()) {
    return RunOutcome::Fail(ExitCode::kStartOrIoFailure,
                            "cannot read results back: " + records.status().message());
  }
  AggregateOptions aggregate_options;
  aggregate_options.seed = st.scheduler_options.seed;
  aggregate_options.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // The store holds records only for configurations that were counted or changed state, so an
  // interrupted sweep aggregates (and bootstraps) only those; the rest never ran.
  const size_t record_count = records->size();
  IncrementalAggregate aggregate(st.spec, std::move(*records), aggregate_options);
  records = std::vector<v1::ConfigRecord>{};  // emptied by the aggregate; its array goes too
  size_t counted_found = 0;  // attempt ids are unique, so each counted one is found at most once
  Status read = st.write_behind->ForEachAttempt(st.spec.name, [&](const v1::Attempt& a) {
    counted_found += counted.Counted(a.attempt_id()) ? 1 : 0;
    aggregate.Add(a);
    return Status::Ok();
  });
  (void)st.write_behind->Flush();
  Status complete =
      read.ok() ? read : Status(read.code(), "cannot read results back: " + read.message());
  if (complete.ok() && static_cast<int64_t>(counted_found) != counted.counted()) {
    // Some counted attempt is missing: the exact check names one (a rare path: load them all).
    auto attempts = st.write_behind->LoadAttempts(st.spec.name);
    complete = attempts.ok() ? CheckAttemptsComplete(*attempts, counted) : attempts.status();
  }
  if (complete.ok()) {
    complete = CheckStoreIntact(st.write_behind.get(), st.spec, counted.counted());
  }
  counted = LeaseTable();  // checked: its memory goes before the peak
  phase("read back and checked");
  if (!complete.ok()) {
    // kDataLoss: attempts vanished; anything else: the store could not be read right now.
    return RunOutcome::Fail(complete.code() == StatusCode::kDataLoss ? ExitCode::kStoreLostData
                                                                     : ExitCode::kStartOrIoFailure,
                            complete.message());
  }
  // Interrupted: nothing reads or writes the store past here (no report), so it is closed now
  // and its index (~0.2 KB a configuration that ran) is not held under the aggregate's peak. Its
  // writes were made durable by the read back's drain; the layers over it go first, on a thread
  // beside the aggregate (freeing the index took ~8% of the main thread's time there), joined
  // whichever way Finish returns.
  std::thread closing;
  struct Join {
    std::thread* t;
    ~Join() {
      if (t->joinable()) t->join();
    }
  } join_closing{&closing};
  if (!finished) {
    closing = std::thread([w = std::move(st.write_behind), t = std::move(st.timed),
                           s = std::move(st.store)]() mutable {
      w.reset();
      t.reset();
      s.reset();
    });
  }
  SweepResult result = aggregate.TakeResult();
  prompt.reset();
  result.interrupted = !finished;
  result.space_configurations = space_configurations;
  phase("aggregate");
  out_ << SummaryTable(result, 10);
  if (!o.out_dir.empty()) {
    Status w = WriteResults(o.out_dir, result, o.results);
    if (!w.ok()) return RunOutcome::Fail(ExitCode::kStartOrIoFailure, w.message());
    out_ << "results: " << o.out_dir << "/results.json, " << o.out_dir << "/results.csv\n";
    phase("results");
    if (result.interrupted) {
      // Interrupted: exit promptly (issue 16: within 2 s); the report is one command away and is
      // written when a resumed sweep finishes.
      out_ << "report: not written for an interrupted sweep (`fleetsweep report " << o.out_dir
           << "` writes it)\n";
    } else {
      // The report plots every execution: the attempts are streamed once more (the store is
      // locked by us), never all held at once.
      ReportOptions report_options;
      report_options.for_each_attempt =
          [&](const std::function<Status(const v1::Attempt&)>& visit) {
            return st.write_behind->ForEachAttempt(st.spec.name, visit);
          };
      Status rep = WriteReport(o.out_dir, report_options);
      if (rep.ok()) {
        out_ << "report: " << o.out_dir << "/report.html\n";
      } else {
        spdlog::warn("report: {}", rep.message());
      }
    }
    phase("report");
  }
  spdlog::info("finish ({} configurations aggregated): {}", record_count, phases);
  RunOutcome outcome = JudgeResult(result, finished);
  if (!o.free_at_exit) {  // intentionally leaked: the process is about to exit
    new SweepResult(std::move(result));
  }
  return outcome;
}

}  // namespace fleetsweep
