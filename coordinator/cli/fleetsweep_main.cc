// fleetsweep: the user CLI. Flags and wiring only.
//   run SPEC --workers N --out DIR   one machine: coordinator + N local workers, embedded store
//   space SPEC [--count] [--json]    prune-only analysis of the space
//   validate SPEC                     check a spec, exit non-zero with file:line:column
//   keygen --out PREFIX               CurveZMQ key pair (PREFIX.key, PREFIX.pub)
#include <iostream>

#include "CLI/CLI.hpp"
#include "common/space/executor_check.h"
#include "common/space/space_command.h"
#include "common/util/keys.h"
#include "common/util/process.h"
#include "coordinator/app/exit_codes.h"
#include "coordinator/cli/cli_commands.h"
#include "coordinator/cli/run_command.h"

int main(int argc, char** argv) {
  using namespace fleetsweep;
  CLI::App app{"fleetsweep: distributed sweeps of LLM-inference kernels and engine settings"};
  app.require_subcommand(1);
  app.option_defaults()->always_capture_default();

  std::string spec;
  auto* run = app.add_subcommand("run", "run a sweep on this machine (embedded store)");
  RunCommandOptions r;
  run->footer(ExitCodesHelp());
  run->add_option("spec", r.spec, "sweep spec (YAML)")->required();
  run->add_option("--workers", r.workers, "local worker processes")->check(CLI::Range(1, 512));
  run->add_option("--slots", r.slots, "slots per worker")->check(CLI::Range(1, 64));
  run->add_option("--out", r.out, "output directory (store, results, logs)")->required();
  run->add_option(
         "--results-full-limit", r.results.full_limit,
         "results.json lists every configuration up to this many; above it only the "
         "--results-top best and those a verdict names (0 = always all; results.csv has all)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--results-top", r.results.top,
                  "configurations a summarised results.json lists in full")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--metrics-port", r.metrics_port, "coordinator Prometheus port (0 = any)");
  run->add_option("--worker-timeout,--lease-timeout", r.worker_timeout,
                  "seconds of silence before a worker's leases are reassigned");
  run->add_option("--worker-arg", r.worker_args, "extra argument for every worker (repeatable)")
      ->default_str("");  // lists: no "=[]" in the help
  run->add_option("--devices", r.devices,
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
                           ExecutorCheckOptions{SelfDir(), !no_program_check, ""});
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
  const std::atomic<bool>& stop = StopOnSignals();
  ExitOnSecondStopSignal(ToInt(ExitCode::kStoppedAtOnce), kStoppedAtOnceMessage);
  return RunCommand(r, stop);
}
