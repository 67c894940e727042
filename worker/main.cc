// fleetsweep-worker: flags and wiring only; the agent lives in worker/agent.cc.
#include <unistd.h>
#include <zmq.h>

#include <atomic>
#include <climits>
#include <iostream>

#include "CLI/CLI.hpp"
#include "common/metrics/exposer.h"
#include "common/metrics/worker_metrics.h"
#include "common/store/store.h"
#include "common/util/keys.h"
#include "common/util/process.h"
#include "common/wire/wire.h"
#include "spdlog/spdlog.h"
#include "worker/agent.h"
#include "worker/executors/confine.h"

int main(int argc, char** argv) {
  using namespace fleetsweep;
  CLI::App app{"fleetsweep-worker: runs benchmark executions for a fleetsweep coordinator"};
  app.option_defaults()->always_capture_default();
  AgentOptions o;
  std::string redis, server_key_file, secret_key_file;
  std::vector<std::string> devices;
  int metrics_port = -1;
  bool insecure = false, allow_any_exec = false, exit_when_done = false;
  app.add_option("--coordinator", o.coordinator, "coordinator endpoint, tcp://HOST:PORT")
      ->required()
      ->default_str("");  // required: no default to show
  app.add_option("--store,--redis", redis,
                 "result store the worker writes to directly: redis://[user:password@]host:port");
  app.add_option("--slots", o.slots, "parallel executions (one per GPU)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--prefetch", o.prefetch,
                 "leases asked for ahead per slot, so the next execution starts without a "
                 "round trip; grows up to 16 while executions are short (0 = none)")
      ->check(CLI::Range(0, kMaxPrefetchPerSlot));
  app.add_option("--devices", devices,
                 "device ids, one per slot, cycled; A,B or A B (default: 0 .. slots-1)")
      ->delimiter(',')
      ->default_str("");  // lists: the default is said in words
  app.add_option("--device-env", o.device_env, "variable that pins a slot to its device");
  app.add_option("--node", o.node, "node name (default: hostname)");
  app.add_option("--worker-id", o.worker_id, "unique worker id (default: node-pid-random)");
  app.add_option("--platform", o.platform, "platform name (e.g. bi-v100, cuda, cpu)");
  app.add_option("--platform-surface", o.platform_surface_file, "platform surface file (YAML)");
  app.add_option("--allow-exec", o.allow_exec, "allowed executables (glob patterns)")
      ->default_str("");
  app.add_flag("--allow-any-exec", allow_any_exec,
               "run any command a spec names (cluster mode refuses to start without "
               "--allow-exec otherwise)");
  app.add_option("--scratch-root", o.scratch_root,
                 "the only directory a spec's workdir, files and result file may name "
                 "(default: a private temp dir)");
  app.add_option("--pass-env", o.env_policy.pass_env,
                 "more worker variables benchmarks inherit (glob; a secret-looking name only "
                 "when given exactly)")
      ->default_str("");
  app.add_option("--allow-spec-env", o.env_policy.allow_spec_env,
                 "variable names a spec may set although they are refused by default (glob)")
      ->default_str("");
  app.add_option("--metrics-port", metrics_port, "Prometheus port (0 = pick a free one)");
  app.add_option("--give-up-after", o.give_up_after_seconds,
                 "exit if the coordinator does not answer for this long (0 = never)");
  app.add_flag("--exit-when-finished", o.exit_when_finished, "exit when the sweep is finished");
  app.add_flag("--exit-when-done", exit_when_done,
               "deprecated: the old name of --exit-when-finished (still works)");
  app.add_option("--curve-server-key", server_key_file, "coordinator's public key file");
  app.add_option("--curve-secret-key", secret_key_file, "this worker's secret key file");
  app.add_flag("--insecure", insecure, "plain TCP without CurveZMQ");
  CLI11_PARSE(app, argc, argv);

  if (exit_when_done) {
    std::cerr << "fleetsweep-worker: --exit-when-done is deprecated: use --exit-when-finished "
                 "(same meaning)\n";
    o.exit_when_finished = true;
  }
  if (!devices.empty()) {
    o.devices.clear();
    for (const auto& d : devices) {
      if (!d.empty()) o.devices.push_back(d);
    }
  }
  // Cluster mode (CurveZMQ, or a coordinator off this host): a worker runs only what its
  // allow-list names, unless told otherwise explicitly (docs/security.md).
  const bool local = insecure && (o.coordinator.rfind("tcp://127.", 0) == 0 ||
                                  o.coordinator.rfind("tcp://localhost", 0) == 0 ||
                                  o.coordinator.rfind("ipc://", 0) == 0);
  if (!local && o.allow_exec.empty() && !allow_any_exec) {
    std::cerr << "fleetsweep-worker: in cluster mode a worker needs --allow-exec GLOB (the "
                 "benchmarks it may run), or --allow-any-exec to run any command a spec names\n";
    return 2;
  }
  if (allow_any_exec && !o.allow_exec.empty()) {
    std::cerr << "fleetsweep-worker: --allow-any-exec and --allow-exec contradict each other\n";
    return 2;
  }
  if (!insecure) {
    if (server_key_file.empty() || secret_key_file.empty()) {
      std::cerr << "fleetsweep-worker: CurveZMQ needs --curve-server-key and --curve-secret-key "
                   "(or --insecure for plain TCP)\n";
      return 2;
    }
    auto server = ReadKeyFile(server_key_file);
    auto secret = ReadKeyFile(secret_key_file);
    if (!server.ok() || !secret.ok()) {
      std::cerr << "fleetsweep-worker: "
                << (!server.ok() ? server.status() : secret.status()).message() << "\n";
      return 2;
    }
    auto pub = PublicKeyFromSecret(*secret);
    if (!pub.ok()) {
      std::cerr << "fleetsweep-worker: " << pub.status().message() << "\n";
      return 2;
    }
    o.curve.enabled = true;
    o.curve.server_public_key_z85 = *server;
    o.curve.secret_key_z85 = *secret;
    o.curve.public_key_z85 = *pub;
  } else if (o.coordinator.rfind("tcp://127.", 0) != 0 &&
             o.coordinator.rfind("tcp://localhost", 0) != 0 &&
             o.coordinator.rfind("ipc://", 0) != 0) {
    spdlog::warn(
        "--insecure: talking to {} over plain TCP; anyone on the network can "
        "impersonate the coordinator",
        o.coordinator);
  }

  std::unique_ptr<ResultStore> store;
  if (!redis.empty()) {
    auto s = OpenStore(redis);
    if (!s.ok()) {
      std::cerr << "fleetsweep-worker: " << s.status().message() << "\n";
      return 3;
    }
    store = std::move(s).value();
    o.store = store.get();
  }
  std::unique_ptr<MetricsExposer> exposer;
  std::unique_ptr<WorkerMetrics> metrics;
  if (metrics_port >= 0) {
    auto e = MetricsExposer::Start(metrics_port);
    if (!e.ok()) {
      std::cerr << "fleetsweep-worker: " << e.status().message() << "\n";
      return 3;
    }
    exposer = std::move(e).value();
    WorkerAgent probe(o);  // resolves the default node name
    metrics = std::make_unique<WorkerMetrics>(exposer->registry(), probe.options().node);
    o.metrics = metrics.get();
    spdlog::info("metrics on port {}", exposer->port());
  }
  o.worker_bin_dir = fleetsweep::SelfDir();
  const std::atomic<bool>& stop = StopOnSignals();
  WorkerAgent agent(o);
  std::string device_list;
  for (const auto& d : agent.options().devices) device_list += (device_list.empty() ? "" : ",") + d;
  spdlog::info("worker {}: slots {}, devices {} (slot i runs on the i-th, cycled)",
               agent.options().worker_id, agent.options().slots, device_list);
  Status s = agent.Run(stop);
  RemoveDefaultScratchRoot();  // executions are over (the agent joined its slots)
  if (!s.ok()) {
    std::cerr << "fleetsweep-worker: " << s.message() << "\n";
    return 1;
  }
  return 0;
}
