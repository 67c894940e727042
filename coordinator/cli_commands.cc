// `fleetsweep report | export | watch`: flags and wiring only; the work is in coordinator/report/.
#include "coordinator/cli_commands.h"

#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <iostream>
#include <optional>

#include "CLI/CLI.hpp"
#include "coordinator/report/export_vllm.h"
#include "coordinator/report/report.h"
#include "coordinator/report/watch.h"

namespace fleetsweep {

struct CliCommands::State {
  CLI::App* report = nullptr;
  CLI::App* exporter = nullptr;
  CLI::App* watch = nullptr;
  std::string dir;
  ReportOptions report_options;
  std::string format, out, device_name;
  int64_t e = 0, n = 0, m = 0;
  std::string store_url, sweep;
  bool once = false;
  double interval = 2.0;
};

namespace {

bool IsDir(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool WriteText(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  return static_cast<bool>(f.flush());
}

int Fail(const char* cmd, const Status& s) {
  std::cerr << "fleetsweep " << cmd << ": " << s.message() << "\n";
  return 2;
}

}  // namespace

CliCommands::CliCommands() : state_(std::make_unique<State>()) {}
CliCommands::~CliCommands() = default;

void CliCommands::Register(CLI::App* app) {
  State& s = *state_;
  s.report = app->add_subcommand("report", "write DIR/report.html from DIR/results.json");
  s.report->add_option("dir", s.dir, "the sweep's output directory")->required();
  s.report->add_option("--x", s.report_options.x_param, "heatmap column parameter");
  s.report->add_option("--y", s.report_options.y_param, "heatmap row parameter");
  s.report->add_option("--rows", s.report_options.max_ranked_rows, "ranked rows shown")
      ->check(CLI::Range(1, 100000));

  s.exporter = app->add_subcommand("export", "export the winner in vLLM's formats");
  s.exporter->add_option("dir", s.dir, "the sweep's output directory")->required();
  s.exporter->add_option("--format", s.format, "vllm-moe | engine-args")
      ->required()
      ->check(CLI::IsMember({"vllm-moe", "engine-args"}));
  s.exporter->add_option("--out", s.out, "output file (.json / .yaml) or directory; default DIR");
  s.exporter->add_option("--device-name", s.device_name, "vLLM device name (vllm-moe)");
  s.exporter->add_option("--E", s.e, "number of experts (vllm-moe; default: from the sweep)");
  s.exporter->add_option("--N", s.n, "intermediate size N (vllm-moe; default: from the sweep)");
  s.exporter->add_option("--M", s.m, "batch size M when the sweep has one (vllm-moe)");

  s.watch = app->add_subcommand("watch", "follow a running cluster sweep in the terminal");
  s.watch->add_option("--redis", s.store_url, "redis://host:port[/db] (or file:DIR)")->required();
  s.watch->add_option("--sweep", s.sweep, "sweep name")->required();
  s.watch->add_flag("--once", s.once, "print one snapshot and exit");
  s.watch->add_option("--interval", s.interval, "seconds between refreshes")
      ->check(CLI::Range(0.1, 3600.0));
}

bool CliCommands::Selected() const {
  return (state_->report && *state_->report) || (state_->exporter && *state_->exporter) ||
         (state_->watch && *state_->watch);
}

int CliCommands::Run() {
  State& s = *state_;
  if (*s.report) {
    Status st = WriteReport(s.dir, s.report_options);
    if (!st.ok()) return Fail("report", st);
    std::cout << "report: " << s.dir << "/report.html\n";
    return 0;
  }
  if (*s.watch) {
    static std::atomic<bool> never{false};
    return RunWatch(s.store_url, s.sweep, s.once, s.interval, never, std::cout, std::cerr);
  }
  auto in = LoadSweepInputs(s.dir);
  if (!in.ok()) return Fail("export", in.status());
  const std::string out_dir = s.out.empty() ? s.dir : s.out;
  if (s.format == "vllm-moe") {
    MoeExportOptions o;
    o.device_name = s.device_name;
    if (s.exporter->count("--E")) o.E = s.e;
    if (s.exporter->count("--N")) o.N = s.n;
    if (s.exporter->count("--M")) o.M = s.m;
    auto ex = ExportVllmMoe(*in, o);
    if (!ex.ok()) return Fail("export", ex.status());
    const bool to_file = !s.out.empty() && !IsDir(s.out) && s.out.size() > 5 &&
                         s.out.compare(s.out.size() - 5, 5, ".json") == 0;
    const std::string path = to_file ? s.out : out_dir + "/" + ex->file_name;
    for (const auto& n : ex->notes) std::cerr << "note: " << n << "\n";
    if (!WriteText(path, ex->config.dump(4) + "\n")) {
      return Fail("export", Status::Unavailable(path + ": cannot write"));
    }
    std::cout << "wrote " << path << "\n";
    return 0;
  }
  auto ex = ExportEngineArgs(*in);
  if (!ex.ok()) return Fail("export", ex.status());
  for (const auto& n : ex->notes) std::cerr << "note: " << n << "\n";
  const std::string yaml_path = out_dir + "/engine-args.yaml";
  const std::string txt_path = out_dir + "/engine-args.txt";
  if (!WriteText(yaml_path, ex->yaml) || !WriteText(txt_path, ex->cli + "\n")) {
    return Fail("export", Status::Unavailable("cannot write " + yaml_path + " / " + txt_path));
  }
  std::cout << ex->cli << "\n";
  std::cerr << "wrote " << txt_path << " and " << yaml_path << " (vllm serve --config)\n";
  return 0;
}

}  // namespace fleetsweep
