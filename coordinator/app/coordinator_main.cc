// fleetsweep-coordinator: the cluster coordinator. Flags and wiring only.
#include <iostream>

#include "CLI/CLI.hpp"
#include "common/util/process.h"
#include "coordinator/app/coordinator_app.h"
#include "coordinator/app/exit_codes.h"
#include "coordinator/server/curve_flags.h"
#include "spdlog/spdlog.h"

int main(int argc, char** argv) {
  using namespace fleetsweep;
  CLI::App app{"fleetsweep-coordinator: shards a sweep across fleetsweep workers"};
  app.option_defaults()->always_capture_default();
  SweepRunOptions o;
  std::string redis, secret_key_file, authorized_keys;
  bool insecure = false, exit_when_done = false;
  o.server.bind = "tcp://*:5555";
  app.add_option("--spec", o.spec_path, "sweep spec (YAML)")->required();
  app.add_option("--store,--redis", redis,
                 "result store: redis://[user:password@]host:port[/db] or file:DIR")
      ->required();
  app.add_option("--bind", o.server.bind, "ZeroMQ endpoint to bind");
  app.add_option("--metrics-port", o.metrics_port, "Prometheus port (0 = pick a free one)");
  app.add_option("--worker-timeout,--lease-timeout", o.scheduler.worker_timeout_seconds,
                 "seconds of silence before a worker's leases are reassigned");
  app.add_option("--lease-grace", o.scheduler.lease_grace_seconds,
                 "lease deadline = execution timeout + this");
  app.add_option("--heartbeat", o.scheduler.heartbeat_seconds, "worker heartbeat interval");
  app.add_option("--store-give-up", o.store_give_up_seconds,
                 "exit (code 7) when store writes have failed this long (seconds)");
  app.add_option("--out", o.out_dir, "write results.json/csv here when the sweep finishes");
  app.add_option(
         "--results-full-limit", o.results.full_limit,
         "results.json lists every configuration up to this many; above it only the "
         "--results-top best and those a verdict names (0 = always all; results.csv has all)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--results-top", o.results.top,
                 "configurations a summarised results.json lists in full")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--exit-when-finished", o.server.exit_when_done,
               "exit when the sweep is finished (the worker's flag has the same name)");
  app.add_flag("--exit-when-done", exit_when_done,
               "deprecated: the old name of --exit-when-finished (still works)");
  o.server.unheard_linger_seconds = 5;  // a restart that finds the sweep finished tells workers
  app.add_flag(
      "--no-progress", [&](int64_t) { o.progress = false; }, "no progress line");
  app.add_option("--curve-secret-key", secret_key_file, "coordinator's secret key file");
  app.add_option("--authorized-keys", authorized_keys, "file of authorised worker public keys");
  app.add_flag("--insecure", insecure, "plain TCP without CurveZMQ");
  app.footer(ExitCodesHelp());
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; every flag error is ExitCode::kBadInput (CLI11's own codes are 100+).
    return app.exit(e) == 0 ? 0 : ToInt(ExitCode::kBadInput);
  }
  o.store_url = redis;
  if (exit_when_done) {
    std::cerr << "fleetsweep-coordinator: --exit-when-done is deprecated: use "
                 "--exit-when-finished (same meaning)\n";
    o.server.exit_when_done = true;
  }

  auto curve = CurveFromFlags(insecure, secret_key_file, authorized_keys);
  if (!curve.ok()) {
    std::cerr << "fleetsweep-coordinator: " << curve.status().message() << "\n";
    return ToInt(ExitCode::kBadInput);
  }
  o.server.curve = *curve;
  if (insecure) {
    spdlog::warn(
        "--insecure: workers are not authenticated; anyone who reaches {} can take "
        "work and report results",
        o.server.bind);
  }
  const std::atomic<bool>& stop = StopOnSignals();
  ExitOnSecondStopSignal(ToInt(ExitCode::kStoppedAtOnce), kStoppedAtOnceMessage);
  // Workers run elsewhere: the section is checked, its programs are not looked for here.
  o.check_executor = ExecutorCheckOptions{"", false, ""};
  o.free_at_exit = false;  // main returns right after RunSweep
  return RunSweep(o, stop);
}
