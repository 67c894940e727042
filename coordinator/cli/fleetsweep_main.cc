// fleetsweep: the user CLI. Flags and wiring only.
//   run SPEC --workers N --out DIR   one machine: coordinator + N local workers, embedded store
//   space SPEC [--count] [--json]    prune-only analysis of the space
//   validate SPEC                     check a spec, exit non-zero with file:line:column
//   keygen --out PREFIX               CurveZMQ key pair (PREFIX.key, PREFIX.pub)
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <iostream>
#include <memory>

#include "CLI/CLI.hpp"
#include "common/space/space_command.h"
#include "common/util/keys.h"
#include "coordinator/app/coordinator_app.h"
#include "coordinator/app/exit_codes.h"
#include "coordinator/cli/cli_commands.h"
#include "coordinator/cli/local_workers.h"
#include "spdlog/spdlog.h"

namespace {
std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop.store(true); }

bool MakeDirs(const std::string& path) {
  std::string cur;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (!cur.empty()) mkdir(cur.c_str(), 0755);
    }
    if (i < path.size()) cur += path[i];
  }
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
}  // namespace

int main(int argc, char** argv) {
  using namespace fleetsweep;
  CLI::App app{"fleetsweep: distributed sweeps of LLM-inference kernels and engine settings"};
  app.require_subcommand(1);
  app.option_defaults()->always_capture_default();

  std::string spec;
  auto* run = app.add_subcommand("run", "run a sweep on this machine (embedded store)");
  int workers = 2, slots = 1, metrics_port = -1;
  fleetsweep::ResultsOptions results;
  std::string out;
  double worker_timeout = 10;
  std::vector<std::string> worker_args;
  run->footer(ExitCodesHelp());
  run->add_option("spec", spec, "sweep spec (YAML)")->required();
  run->add_option("--workers", workers, "local worker processes")->check(CLI::Range(1, 512));
  run->add_option("--slots", slots, "slots per worker")->check(CLI::Range(1, 64));
  run->add_option("--out", out, "output directory (store, results, logs)")->required();
  run->add_option(
         "--results-full-limit", results.full_limit,
         "results.json lists every configuration up to this many; above it only the "
         "--results-top best and those a verdict names (0 = always all; results.csv has all)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--results-top", results.top,
                  "configurations a summarised results.json lists in full")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--metrics-port", metrics_port, "coordinator Prometheus port (0 = any)");
  run->add_option("--worker-timeout,--lease-timeout", worker_timeout,
                  "seconds of silence before a worker's leases are reassigned");
  run->add_option("--worker-arg", worker_args, "extra argument for every worker (repeatable)")
      ->default_str("");  // lists: no "=[]" in the help
  std::vector<std::string> devices;
  run->add_option("--devices", devices,
                  "device per worker, cycled; A,B or A B (default: worker i gets i)")
      ->delimiter(',')
      ->default_str("");

  auto* space = app.add_subcommand("space", "prune-only analysis of a sweep space");
  bool count_only = false, json = false;
  int first = 10;
  space->add_option("spec", spec, "sweep spec (YAML)")->required();
  space->add_flag("--count", count_only, "print only the final count");
  space->add_flag("--json", json, "machine-readable output");
  space->add_option("--first", first, "configurations to list");

  auto* validate = app.add_subcommand("validate", "check a sweep spec");
  validate->add_option("spec", spec, "sweep spec (YAML)")->required();
  bool no_program_check = false;
  validate->add_flag("--no-program-check", no_program_check,
                     "do not look for the benchmark program on this machine (it runs on other "
                     "machines)");

  auto* keygen = app.add_subcommand("keygen", "generate a CurveZMQ key pair");
  std::string key_prefix;
  keygen->add_option("--out", key_prefix, "writes PREFIX.key and PREFIX.pub")->required();

  CliCommands extra;  // report, export, watch, list, show
  extra.Register(&app);

  auto* help = app.add_subcommand("help", "this help, or a command's: fleetsweep help COMMAND");
  std::string help_topic;
  help->add_option("command", help_topic, "a command");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; every flag error is ExitCode::kBadInput (CLI11's own codes are 100+).
    return app.exit(e) == 0 ? 0 : ToInt(ExitCode::kBadInput);
  }

  if (*help) {
    CLI::App* topic = nullptr;
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      if (sub->get_name() == help_topic) topic = sub;
    }
    if (!help_topic.empty() && topic == nullptr) {
      std::cerr << "fleetsweep help: no command '" << help_topic
                << "' (fleetsweep help lists them)\n";
      return 2;
    }
    // app.help() would describe the selected subcommand (`help` itself): format the root.
    // The usage line names the program ("Usage: fleetsweep run [OPTIONS] spec").
    std::cout << (topic ? topic->help("fleetsweep")
                        : app.get_formatter()->make_help(&app, "fleetsweep",
                                                         CLI::AppFormatMode::Normal));
    return 0;
  }

  if (*space) return SpaceCommand(spec, count_only, json, first, std::cout, std::cerr);
  if (*validate) {
    return ValidateCommand(spec, std::cout, std::cerr,
                           ExecutorCheckOptions{fleetsweep::SelfDir(), !no_program_check, ""});
  }
  if (*keygen) {
    auto pub = GenerateKeyPair(key_prefix);
    if (!pub.ok()) {
      std::cerr << "fleetsweep keygen: " << pub.status().message() << "\n";
      return 2;
    }
    std::cout << "wrote " << key_prefix << ".key (secret) and " << key_prefix
              << ".pub (public: " << *pub << ")\n";
    return 0;
  }
  if (extra.Selected()) return extra.Run();

  // run
  if (!MakeDirs(out) || !MakeDirs(out + "/logs")) {
    std::cerr << "fleetsweep: cannot create output directory " << out << "\n";
    return ToInt(ExitCode::kBadInput);
  }
  signal(SIGINT, OnSignal);
  signal(SIGTERM, OnSignal);
  signal(SIGPIPE, SIG_IGN);
  LocalWorkerOptions lw;
  lw.count = workers;
  lw.slots_per_worker = slots;
  lw.worker_binary = fleetsweep::SelfDir() + "/fleetsweep-worker";
  lw.log_dir = out + "/logs";
  lw.extra_args = worker_args;
  lw.devices = devices;
  LocalWorkers local(lw);

  SweepRunOptions o;
  o.spec_path = spec;
  o.store_url = "file:" + out + "/store";
  o.server.bind = "tcp://127.0.0.1:0";
  o.server.exit_when_done = true;
  o.scheduler.worker_timeout_seconds = worker_timeout;
  o.metrics_port = metrics_port;
  o.out_dir = out;
  o.results = results;
  o.free_at_exit = false;  // main returns right after RunSweep
  o.check_executor = ExecutorCheckOptions{fleetsweep::SelfDir(), true, ""};
  bool started = false;
  o.on_bound = [&](const std::string& endpoint, int total, bool finished) -> Status {
    if (finished) {
      std::cerr << "fleetsweep: all " << total << " configurations already finished in " << out
                << " (resumed)\n";
      return Status::Ok();
    }
    started = true;
    return local.StartAll(endpoint);
  };
  o.on_tick = [&](const std::string&) {
    // Interrupted: the workers stop now (SIGTERM cancels their executions), not after the
    // results are written, and are not restarted.
    if (g_stop.load()) {
      local.TermAll();
    } else if (started) {
      local.Supervise(true);
    }
  };
  int rc = RunSweep(o, g_stop);
  // A finished sweep's workers exit by themselves (grace); an interrupted one's were sent SIGTERM.
  local.StopAll(g_stop.load() ? 0.0 : 5.0);
  return rc;
}
