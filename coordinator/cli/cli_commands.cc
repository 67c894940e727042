// `fleetsweep report | export | watch`: flags and wiring only; the work is in coordinator/report/.
#include "coordinator/cli/cli_commands.h"

#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "CLI/CLI.hpp"
#include "coordinator/cli/watch.h"
#include "coordinator/report/export_vllm.h"
#include "coordinator/report/report.h"
#include "coordinator/report/sweep_list.h"

namespace fleetsweep {

struct CliCommands::State {
  CLI::App* report = nullptr;
  CLI::App* exporter = nullptr;
  CLI::App* watch = nullptr;
  CLI::App* list = nullptr;
  CLI::App* show = nullptr;
  int limit = 40;
  std::string dir;
  ReportOptions report_options;
  std::string format, out, device_name, dtype, block_shape;
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

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Creates `dir` and its parents; false when it cannot.
bool MakeDirs(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  return IsDir(dir);
}

// Where a file of the export goes: `out` itself when it names a file with `suffix`, else
// `out`/`name` (or DIR/`name`). Creates the directory it goes into.
StatusOr<std::string> OutPath(const std::string& out, const std::string& dir,
                              const std::string& suffix, const std::string& name) {
  std::string path = out.empty()                              ? dir + "/" + name
                     : (EndsWith(out, suffix) && !IsDir(out)) ? out
                                                              : out + "/" + name;
  std::string parent = std::filesystem::path(path).parent_path().string();
  if (!parent.empty() && !MakeDirs(parent)) {
    return Status::Unavailable("cannot create directory " + parent);
  }
  return path;
}

int ExportMoe(const CliCommands::State& s, const SweepInputs& in) {
  MoeExportOptions o;
  o.device_name = s.device_name;
  o.dtype = s.dtype;
  o.block_shape = s.block_shape;
  if (s.exporter->count("--E")) o.E = s.e;
  if (s.exporter->count("--N")) o.N = s.n;
  if (s.exporter->count("--M")) o.M = s.m;
  auto ex = ExportVllmMoe(in, o);
  if (!ex.ok()) return Fail("export", ex.status());
  for (const auto& n : ex->notes) std::cerr << "note: " << n << "\n";
  for (const auto& t : ex->ties) std::cerr << "tie: " << t << "\n";
  auto path = OutPath(s.out, s.dir, ".json", ex->file_name);
  if (!path.ok()) return Fail("export", path.status());
  if (!WriteText(*path, ex->config.dump(4) + "\n")) {
    return Fail("export", Status::Unavailable(*path + ": cannot write"));
  }
  std::cout << "wrote " << *path << " (" << ex->config.size() << " batch sizes)\n";
  std::cerr << "vLLM reads it from $VLLM_TUNED_CONFIG_FOLDER (set it to the file's directory) or "
               "from vllm/model_executor/layers/fused_moe/configs/, under exactly this name\n";
  return 0;
}

int ExportEngine(const CliCommands::State& s, const SweepInputs& in) {
  auto ex = ExportEngineArgs(in);
  if (!ex.ok()) return Fail("export", ex.status());
  for (const auto& n : ex->notes) std::cerr << "note: " << n << "\n";
  auto yaml_path = OutPath(s.out, s.dir, ".yaml", "engine-args.yaml");
  if (!yaml_path.ok()) return Fail("export", yaml_path.status());
  std::string txt_path = *yaml_path;
  txt_path = txt_path.substr(0, txt_path.size() - 5) + ".txt";
  if (!WriteText(*yaml_path, ex->yaml) || !WriteText(txt_path, ex->cli + "\n")) {
    return Fail("export", Status::Unavailable("cannot write " + *yaml_path + " / " + txt_path));
  }
  std::cout << ex->cli << "\n";
  std::cerr << "wrote " << txt_path << " and " << *yaml_path << " (vllm serve --config)\n";
  return 0;
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
  s.exporter
      ->add_option("--out", s.out,
                   "output file (vllm-moe: FILE.json; engine-args: FILE.yaml, with FILE.txt "
                   "beside it) or directory (created when missing)")
      ->default_str("DIR");
  s.exporter->add_option("--device-name", s.device_name,
                         "vLLM device name (vllm-moe; default: what the benchmark reported)");
  s.exporter->add_option("--dtype", s.dtype,
                         "kernel dtype for the file name (vllm-moe: float16, bfloat16, float32, "
                         "fp8_w8a8, int8_w8a8, int8_w8a16, int4_w4a16; default: what the "
                         "benchmark reported)");
  s.exporter->add_option("--block-shape", s.block_shape,
                         "block-quantization shape N,K (vllm-moe, e.g. 128,128)");
  s.exporter->add_option("--E", s.e, "number of experts (vllm-moe; default: from the sweep)");
  s.exporter->add_option("--N", s.n, "intermediate size N (vllm-moe; default: from the sweep)");
  s.exporter->add_option("--M", s.m, "batch size M when the sweep has one (vllm-moe)");

  s.watch = app->add_subcommand("watch", "follow a running cluster sweep in the terminal");
  s.watch
      ->add_option("--store,--redis", s.store_url,
                   "redis://host:port[/db], file:DIR, or a `run --out` directory")
      ->required();
  s.watch->add_option("--sweep", s.sweep, "sweep name")->required();
  s.watch->add_flag("--once", s.once, "print one snapshot and exit");
  s.watch->add_option("--interval", s.interval, "seconds between refreshes")
      ->check(CLI::Range(0.1, 3600.0));

  s.list = app->add_subcommand("list", "the sweeps in a store: state, progress, best result");
  s.list
      ->add_option("--store,--redis", s.store_url,
                   "redis://host:port[/db], file:DIR, or a `run --out` directory")
      ->required();
  s.show = app->add_subcommand("show", "one sweep's configurations, ranked, from its store");
  s.show->add_option("sweep", s.sweep, "sweep name (see fleetsweep list)")->required();
  s.show
      ->add_option("--store,--redis", s.store_url,
                   "redis://host:port[/db], file:DIR, or a `run --out` directory")
      ->required();
  s.show->add_option("--limit", s.limit, "configurations shown (0 = all)")
      ->check(CLI::NonNegativeNumber);
}

bool CliCommands::Selected() const {
  return (state_->report && *state_->report) || (state_->exporter && *state_->exporter) ||
         (state_->watch && *state_->watch) || (state_->list && *state_->list) ||
         (state_->show && *state_->show);
}

int CliCommands::Run() {
  State& s = *state_;
  if (*s.report) {
    Status st = WriteReport(s.dir, s.report_options);
    if (!st.ok()) return Fail("report", st);
    std::cout << "report: " << s.dir << "/report.html\n";
    return 0;
  }
  if (*s.list || *s.show) {
    const char* cmd = *s.list ? "list" : "show";
    auto store = OpenStore(StoreUrlFor(s.store_url));
    if (!store.ok()) return Fail(cmd, store.status());
    auto text =
        *s.list ? ListSweepsText(store->get()) : ShowSweepText(store->get(), s.sweep, s.limit);
    if (!text.ok()) return Fail(cmd, text.status());
    std::cout << *text;
    return 0;
  }
  if (*s.watch) {
    static std::atomic<bool> never{false};
    return RunWatch(StoreUrlFor(s.store_url), s.sweep, s.once, s.interval, never, std::cout,
                    std::cerr);
  }
  auto in = LoadSweepInputs(s.dir);
  if (!in.ok()) return Fail("export", in.status());
  return s.format == "vllm-moe" ? ExportMoe(s, *in) : ExportEngine(s, *in);
}

}  // namespace fleetsweep
