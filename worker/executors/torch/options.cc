#include "worker/executors/torch/options.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <sstream>

extern char** environ;

namespace fleetsweep::torchbench {

namespace {

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string ExeDir(const char* argv0) {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  std::string path = n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string(argv0);
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace

StatusOr<ShapeMap> ParseShapeList(const std::string& text) {
  ShapeMap out;
  std::string norm = text;
  std::replace(norm.begin(), norm.end(), ',', ' ');
  std::istringstream in(norm);
  std::string item;
  while (in >> item) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("shape '" + item + "': expected NAME=INTEGER");
    }
    const std::string value = item.substr(eq + 1);
    char* end = nullptr;
    long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0') {
      return Status::InvalidArgument("shape '" + item + "': value is not an integer");
    }
    out[item.substr(0, eq)] = v;
  }
  return out;
}

StatusOr<BenchOptions> ParseOptions(int argc, char** argv) {
  BenchOptions o;
  std::string shapes, gpu_shapes;
  std::vector<std::string> params, prewarm;
  CLI::App app{
      "fleetsweep-torch-bench: libtorch kernels speaking the benchmark JSON-lines protocol"};
  app.option_defaults()->always_capture_default();
  app.add_option("--kernel", o.kernel, "moe | paged_attention | prefix_prefill | floors")
      ->required()
      ->check(CLI::IsMember({"moe", "paged_attention", "prefix_prefill", "floors"}));
  app.add_option("--device", o.device, "cpu | cuda | auto")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  app.add_option("--dtype", o.dtype, "float32 | float16 | bfloat16")
      ->check(CLI::IsMember({"float32", "float16", "bfloat16"}));
  app.add_option("--platform", o.platform, "platform surface name or YAML file");
  app.add_option("--reps", o.reps, "timed repetitions (one sample line each)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--warmup", o.warmup, "untimed warm-up repetitions")->check(CLI::Range(0, 100000));
  app.add_option("--threads", o.threads, "CPU intra-op threads (0 = default)");
  app.add_option("--seed", o.seed, "random seed of the inputs");
  int64_t l2_mb = o.l2_bytes >> 20;
  app.add_option("--l2-mb", l2_mb, "device L2 size in MiB (input rotation exceeds it)");
  app.add_option("--shapes", shapes, "shapes, e.g. M=64,K=128,N=256");
  app.add_option("--gpu-shapes", gpu_shapes, "shapes used instead when the device is cuda");
  app.add_option("--param", params,
                 "kernel parameter NAME=VALUE (overrides FLEETSWEEP_PARAM_NAME)");
  app.add_option("--prewarm", prewarm,
                 "persistent sessions: parameters NAME=VALUE[,NAME=VALUE] prepared once, untimed, "
                 "before the session says ready (repeatable)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    BenchOptions help;
    help.help = app.help();
    return help;
  } catch (const CLI::ParseError& e) {
    return Status::InvalidArgument(std::string(e.what()) + " (see --help)");
  }
  o.l2_bytes = l2_mb << 20;
  o.exe_dir = ExeDir(argv[0]);
  FS_ASSIGN_OR_RETURN(o.shapes, ParseShapeList(shapes));
  FS_ASSIGN_OR_RETURN(o.gpu_shapes, ParseShapeList(gpu_shapes));
  if (const char* env = std::getenv("FLEETSWEEP_SHAPES")) o.shapes_env = env;

  static const char kPrefix[] = "FLEETSWEEP_PARAM_";
  for (char** e = environ; e && *e; ++e) {
    if (std::strncmp(*e, kPrefix, sizeof(kPrefix) - 1) != 0) continue;
    std::string kv = *e + sizeof(kPrefix) - 1;
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    o.params[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& p : params) {
    auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("--param '" + p + "': expected NAME=VALUE");
    }
    o.params[p.substr(0, eq)] = p.substr(eq + 1);
  }
  for (const auto& set : prewarm) {
    std::map<std::string, std::string> assign;
    size_t start = 0;
    while (start <= set.size()) {
      size_t comma = set.find(',', start);
      if (comma == std::string::npos) comma = set.size();
      const std::string item = set.substr(start, comma - start);
      const size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
        return Status::InvalidArgument("--prewarm '" + set + "': expected NAME=VALUE[,NAME=VALUE]");
      }
      assign[item.substr(0, eq)] = item.substr(eq + 1);
      start = comma + 1;
    }
    o.prewarm.push_back(std::move(assign));
  }
  std::string platform = o.platform;
  if (platform.empty()) {
    if (const char* env = std::getenv("FLEETSWEEP_PLATFORM_SURFACE")) platform = env;
  }
  FS_ASSIGN_OR_RETURN(o.surface, LoadSurface(platform, o.exe_dir));
  return o;
}

BenchOptions WithParams(const BenchOptions& base,
                        const std::map<std::string, std::string>& params) {
  BenchOptions o = base;
  for (const auto& [name, value] : params) {
    const std::string lower = Lower(name);
    for (auto it = o.params.begin(); it != o.params.end();) {
      it = it->first != name && Lower(it->first) == lower ? o.params.erase(it) : std::next(it);
    }
    o.params[name] = value;
  }
  return o;
}

const std::string* ParamReader::Find(const std::string& name, std::string* key) const {
  auto it = options_.params.find(name);
  if (it == options_.params.end()) {
    for (auto i = options_.params.begin(); i != options_.params.end(); ++i) {
      if (Lower(i->first) == Lower(name)) {
        it = i;
        break;
      }
    }
  }
  if (it == options_.params.end()) return nullptr;
  *key = it->first;
  return &it->second;
}

bool ParamReader::Honoured(const std::string& name) const {
  return options_.surface.Honours(kernel_, name);
}

StatusOr<int64_t> ParamReader::Int(const std::string& name, int64_t fallback) {
  if (!Honoured(name)) return fallback;
  std::string key;
  const std::string* v = Find(name, &key);
  if (v == nullptr) return fallback;
  char* end = nullptr;
  long long x = std::strtoll(v->c_str(), &end, 10);
  if (v->empty() || *end != '\0') {
    return Status::InvalidArgument("parameter " + name + "='" + *v + "' is not an integer");
  }
  consumed_[key] = *v;
  return static_cast<int64_t>(x);
}

StatusOr<bool> ParamReader::Bool(const std::string& name, bool fallback) {
  if (!Honoured(name)) return fallback;
  std::string key;
  const std::string* v = Find(name, &key);
  if (v == nullptr) return fallback;
  const std::string l = Lower(*v);
  bool b;
  if (l == "true" || l == "1" || l == "yes") {
    b = true;
  } else if (l == "false" || l == "0" || l == "no") {
    b = false;
  } else {
    return Status::InvalidArgument("parameter " + name + "='" + *v + "' is not a boolean");
  }
  consumed_[key] = *v;
  return b;
}

std::vector<std::string> ParamReader::Unconsumed() const {
  std::vector<std::string> out;
  for (const auto& kv : options_.params) {
    if (!consumed_.count(kv.first)) out.push_back(kv.first);
  }
  return out;
}

std::string ParamReader::ConsumedSummary() const {
  std::string s;
  for (const auto& kv : consumed_) s += (s.empty() ? "" : ",") + kv.first + "=" + kv.second;
  return s;
}

StatusOr<ShapeReader> ShapeReader::Make(const BenchOptions& options, bool on_cuda) {
  ShapeReader r;
  r.given_ = (on_cuda && !options.gpu_shapes.empty()) ? options.gpu_shapes : options.shapes;
  FS_ASSIGN_OR_RETURN(ShapeMap env, ParseShapeList(options.shapes_env));
  for (const auto& kv : env) r.given_[kv.first] = kv.second;
  return r;
}

StatusOr<int64_t> ShapeReader::Get(const std::string& name, int64_t fallback) {
  auto it = given_.find(name);
  int64_t v = it == given_.end() ? fallback : it->second;
  if (v < 1)
    return Status::InvalidArgument("shape " + name + "=" + std::to_string(v) + " must be >= 1");
  read_[name] = v;
  return v;
}

std::vector<std::string> ShapeReader::Unread() const {
  std::vector<std::string> out;
  for (const auto& kv : given_) {
    if (!read_.count(kv.first)) out.push_back(kv.first);
  }
  return out;
}

std::string ShapeReader::Summary() const {
  std::string s;
  for (const auto& kv : read_)
    s += (s.empty() ? "" : ",") + kv.first + "=" + std::to_string(kv.second);
  return s;
}

}  // namespace fleetsweep::torchbench
