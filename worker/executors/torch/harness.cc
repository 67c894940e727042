#include "worker/executors/torch/harness.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/cuda.h>
#include <torch/version.h>

#if TORCH_VERSION_MAJOR >= 2
#include <c10/core/Event.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "common/space/value.h"
#include "worker/executors/torch/kernels.h"

namespace fleetsweep::torchbench {

std::string TorchVersionString() { return TORCH_VERSION; }

std::optional<ShapeReader> OpenKernel(const BenchOptions& options, Emitter& out, Env* env) {
  if (!ResolveEnv(options, out, env)) return std::nullopt;
  auto shapes = ShapeReader::Make(options, env->cuda);
  if (!shapes.ok()) {
    out.Error("invalid_argument", shapes.status().message());
    return std::nullopt;
  }
  return std::move(shapes).value();
}

bool ResolveEnv(const BenchOptions& options, Emitter& out, Env* env) {
  env->options = &options;
  env->out = &out;
  const bool have_cuda = torch::cuda::is_available();
  if (options.device == "cuda" && !have_cuda) {
    out.Error("invalid_argument", "--device cuda but no CUDA device is available to libtorch");
    return false;
  }
  env->cuda = options.device == "cuda" || (options.device == "auto" && have_cuda);
  env->device = env->cuda ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU);
  if (options.dtype == "float16") {
    env->dtype = at::kHalf;
  } else if (options.dtype == "bfloat16") {
    env->dtype = at::kBFloat16;
  } else {
    env->dtype = at::kFloat;
  }
  if (!env->cuda && env->dtype == at::kHalf) {
    // CPU half matmul is missing or emulated in some libtorch builds: refuse rather than mislead.
    out.Error("invalid_argument",
              "float16 is only supported on cuda; use float32 or bfloat16 on cpu");
    return false;
  }
  if (options.threads > 0) at::set_num_threads(options.threads);
  return true;
}

// ---- fingerprint --------------------------------------------------------------------------

namespace {

// FNV-1a 64 as the rest of the project computes it (common/space/value.h), fed incrementally.
struct Fnv {
  uint64_t h = fleetsweep::Fnv1a64("");
  void Str(const std::string& s) {
    h = fleetsweep::Fnv1a64(s, h);
    h = fleetsweep::Fnv1a64("\x1f", h);  // separator: "ab"+"c" != "a"+"bc"
  }
};

thread_local Fnv* t_trace = nullptr;
thread_local int64_t t_ops = 0;

void Describe(const c10::IValue& v, std::ostringstream& os) {
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    if (!t.defined()) {
      os << "T?";
      return;
    }
    os << "T" << c10::toString(t.scalar_type()) << "[";
    for (auto s : t.sizes()) os << s << ",";
    os << "]";
  } else if (v.isInt()) {
    os << "i" << v.toInt();
  } else if (v.isSymInt()) {
    os << "s" << v.toSymInt();
  } else if (v.isBool()) {
    os << (v.toBool() ? "true" : "false");
  } else if (v.isDouble()) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "d%.6g", v.toDouble());
    os << buf;
  } else if (v.isNone()) {
    os << "None";
  } else if (v.isString()) {
    os << "'" << v.toStringRef() << "'";
  } else if (v.isIntList()) {
    os << "(";
    for (auto x : v.toIntVector()) os << x << ",";
    os << ")";
  } else if (v.isList()) {
    os << "[";
    for (const auto& e : v.toListRef()) {
      Describe(e, os);
      os << ",";
    }
    os << "]";
  } else {
    os << v.tagKind();
  }
}

std::unique_ptr<at::ObserverContext> OnOpStart(const at::RecordFunction& fn) {
  if (t_trace == nullptr) return nullptr;
  std::ostringstream os;
  os << fn.name() << "(";
  for (const auto& in : fn.inputs()) {
    Describe(in, os);
    os << ";";
  }
  os << ")";
  t_trace->Str(os.str());
  ++t_ops;
  return nullptr;
}

}  // namespace

OpTrace TraceOps(const std::function<void()>& fn) {
  Fnv fnv;
  t_trace = &fnv;
  t_ops = 0;
  at::RecordFunctionCallback cb(&OnOpStart);
  cb.needsInputs(true);
  cb.scopes({at::RecordScope::FUNCTION, at::RecordScope::USER_SCOPE});
  at::CallbackHandle handle = at::addThreadLocalCallback(cb);
  try {
    fn();
  } catch (...) {
    at::removeCallback(handle);
    t_trace = nullptr;
    throw;
  }
  at::removeCallback(handle);
  t_trace = nullptr;
  return OpTrace{fnv.h, t_ops};
}

void EmitFingerprint(const OpTrace& trace, Emitter& out) {
  out.Fingerprint(Hex16(trace.hash));
  out.Info("fingerprint_ops", std::to_string(trace.ops));
}

std::string Hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// ---- check ---------------------------------------------------------------------------------

at::ScalarType ReferenceType(at::ScalarType dtype) {
  return dtype == at::kFloat ? at::kDouble : at::kFloat;
}

double Tolerance(at::ScalarType dtype) { return dtype == at::kFloat ? 1e-4 : 2e-2; }

CheckResult Compare(const at::Tensor& out, const at::Tensor& ref, at::ScalarType dtype,
                    const std::string& what) {
  CheckResult c;
  c.tolerance = Tolerance(dtype);
  if (out.sizes() != ref.sizes()) {
    std::ostringstream os;
    os << what << ": output shape " << out.sizes() << " != reference shape " << ref.sizes();
    c.detail = os.str();
    c.max_rel_error = INFINITY;
    return c;
  }
  at::Tensor o = out.to(at::kDouble);
  at::Tensor r = ref.to(at::kDouble);
  const double scale = r.abs().max().item<double>();
  const double err = (o - r).abs().max().item<double>();
  const bool finite = o.isfinite().all().item<bool>();
  c.max_rel_error = scale > 0 ? err / scale : INFINITY;
  c.passed = finite && scale > 0 && c.max_rel_error <= c.tolerance;
  std::ostringstream os;
  os << what << " vs " << c10::toString(ReferenceType(dtype)) << " reference: max|out-ref|=" << err
     << ", max|ref|=" << scale << ", " << out.numel() << " elements"
     << (finite ? "" : ", NON-FINITE output") << (scale > 0 ? "" : ", ZERO reference");
  c.detail = os.str();
  return c;
}

// ---- timing --------------------------------------------------------------------------------

void PhaseClock::Mark(const std::string& name) {
  const auto now = std::chrono::steady_clock::now();
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.3f",
                std::chrono::duration<double, std::milli>(now - last_).count());
  if (!text_.empty()) text_ += ';';
  text_ += name + "=" + ms;
  last_ = now;
}

void Synchronize(const Env& env) {
  if (env.cuda) torch::cuda::synchronize();
}

int RotationCopies(const Env& env, int64_t bytes_per_copy) {
  if (!env.cuda) return 2;
  const int64_t per = std::max<int64_t>(bytes_per_copy, 1);
  const int64_t need = env.options->l2_bytes / per + 1;
  return static_cast<int>(std::min<int64_t>(256, std::max<int64_t>(2, need)));
}

namespace {

std::vector<double> TimeWithClock(const Env& env, int reps, int copies, int offset,
                                  const std::function<void(int)>& run) {
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    Synchronize(env);
    auto t0 = std::chrono::steady_clock::now();
    run((offset + r) % copies);
    Synchronize(env);
    auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return ms;
}

}  // namespace

std::vector<double> TimeReps(const Env& env, int warmup, int reps, int copies,
                             const std::function<void(int)>& run) {
  for (int w = 0; w < warmup; ++w) run(w % copies);
  Synchronize(env);
  if (!env.cuda) {
    env.out->Info("timing_method", "steady_clock per repetition (cpu)");
    return TimeWithClock(env, reps, copies, warmup, run);
  }
#if TORCH_VERSION_MAJOR >= 2
  try {
    const c10::impl::DeviceGuardImplInterface* impl =
        c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA);
    c10::Stream stream = impl->getStream(env.device);
    std::vector<c10::Event> starts, ends;
    starts.reserve(static_cast<size_t>(reps));
    ends.reserve(static_cast<size_t>(reps));
    for (int r = 0; r < reps; ++r) {
      starts.emplace_back(c10::DeviceType::CUDA, c10::EventFlag::BACKEND_DEFAULT);
      ends.emplace_back(c10::DeviceType::CUDA, c10::EventFlag::BACKEND_DEFAULT);
    }
    for (int r = 0; r < reps; ++r) {
      starts[static_cast<size_t>(r)].record(stream);
      run((warmup + r) % copies);
      ends[static_cast<size_t>(r)].record(stream);
    }
    ends.back().synchronize();
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) {
      ms.push_back(starts[static_cast<size_t>(r)].elapsedTime(ends[static_cast<size_t>(r)]));
    }
    env.out->Info("timing_method", "cuda events (c10::Event) per repetition");
    return ms;
  } catch (const std::exception& e) {
    env.out->Info("timing_fallback", std::string("cuda events failed: ") + e.what());
  }
#endif
  env.out->Info("timing_method", "cuda synchronize + steady_clock per repetition");
  return TimeWithClock(env, reps, copies, warmup, run);
}

bool CheckUnreadShapes(const ShapeReader& shapes, const std::string& kernel, Emitter& out) {
  auto unread = shapes.Unread();
  if (unread.empty()) return true;
  std::string s;
  for (const auto& u : unread) s += (s.empty() ? "" : ",") + u;
  out.Error("invalid_argument", "unknown shape(s) for " + kernel + ": " + s);
  return false;
}

void EmitProcessInfo(const Env& env, const ShapeReader& shapes, const std::string& kernel) {
  Emitter& out = *env.out;
  out.Info("torch_version", TorchVersionString());
  out.Info("kernel", kernel);
  out.Info("device", env.cuda ? "cuda" : "cpu");
  out.Info("dtype", c10::toString(env.dtype));
  out.Info("platform", env.options->surface.name + " (" + env.options->surface.source + ")");
  out.Info("shapes", shapes.Summary());
}

void EmitParamInfo(const ParamReader& params, Emitter& out) {
  out.Info("consumed_params", params.ConsumedSummary());
  std::string ignored;
  for (const auto& p : params.Unconsumed()) ignored += (ignored.empty() ? "" : ",") + p;
  out.Info("ignored_params", ignored);
}

bool EmitPreamble(const Env& env, const ParamReader& params, const ShapeReader& shapes,
                  const std::string& kernel) {
  if (!CheckUnreadShapes(shapes, kernel, *env.out)) return false;
  EmitProcessInfo(env, shapes, kernel);
  EmitParamInfo(params, *env.out);
  return true;
}

// ---- floors --------------------------------------------------------------------------------

int RunFloors(const BenchOptions& options, Emitter& out) {
  Env env;
  std::optional<ShapeReader> opened = OpenKernel(options, out, &env);
  if (!opened) return kExitInvalid;
  ShapeReader shapes = std::move(*opened);
  auto copy_mib = shapes.Get("copy_mib", env.cuda ? 1024 : 64);
  auto mm = shapes.Get("matmul_n", env.cuda ? 8192 : 256);
  if (!copy_mib.ok() || !mm.ok()) {
    out.Error("invalid_argument", (copy_mib.ok() ? mm.status() : copy_mib.status()).message());
    return kExitInvalid;
  }
  ParamReader params(options, "floors");
  if (!EmitPreamble(env, params, shapes, "floors")) return kExitInvalid;

  const int64_t n = (*copy_mib << 20) / 4;
  at::Tensor src = at::randn({n}, env.F32());
  at::Tensor dst = at::empty_like(src);
  auto copy_ms = TimeReps(env, options.warmup, options.reps, 1, [&](int) { dst.copy_(src); });
  const bool same = at::equal(dst, src);
  std::vector<double> gbps;
  for (double v : copy_ms) {
    out.Sample("copy_time_ms", v);
    gbps.push_back(2.0 * static_cast<double>(n) * 4 / (v * 1e-3) / 1e9);
  }
  src.reset();
  dst.reset();

  const int64_t m = *mm;
  at::Tensor a = at::randn({m, m}, env.Float());
  at::Tensor b = at::randn({m, m}, env.Float());
  at::Tensor c = at::empty({m, m}, env.Float());
  auto mm_ms = TimeReps(env, options.warmup, options.reps, 1, [&](int) { at::mm_out(c, a, b); });
  std::vector<double> tflops;
  for (double v : mm_ms) {
    out.Sample("matmul_time_ms", v);
    tflops.push_back(2.0 * static_cast<double>(m) * m * m / (v * 1e-3) / 1e12);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  out.Info("copy_bytes_per_rep", std::to_string(2 * n * 4));
  out.Info("copy_GBps_median", std::to_string(median(gbps)));
  out.Info("matmul_shape", std::to_string(m) + "^3 " + c10::toString(env.dtype));
  out.Info("matmul_TFLOPs_median", std::to_string(median(tflops)));
  out.Check(same, 0, 0, "copy destination equals source");
  return same ? kExitOk : kExitWrongResult;
}

namespace {

// Floors in a persistent session: nothing to cache (no parameters); each run measures afresh.
class FloorsServer : public ExecutionServer {
 public:
  explicit FloorsServer(Emitter& out) : out_(out) {}
  int Prepare(const BenchOptions& options) override {
    options_ = options;
    return kExitOk;
  }
  int Run() override {
    if (!options_) {
      out_.Error("bad_request", "run without a prepared execution");
      return kExitInvalid;
    }
    const int rc = RunFloors(*options_, out_);
    if (rc == kExitWrongResult) out_.Error("wrong_result", "copy destination differs from source");
    return rc;
  }
  void Forget() override { options_.reset(); }
  void DropCaches() override { options_.reset(); }

 private:
  Emitter& out_;
  std::optional<BenchOptions> options_;
};

}  // namespace

std::unique_ptr<ExecutionServer> ServeFloors(const BenchOptions& options, Emitter& out) {
  Env env;
  if (!OpenKernel(options, out, &env)) return nullptr;
  out.Info("torch_version", TorchVersionString());
  out.Info("kernel", "floors");
  out.Info("device", env.cuda ? "cuda" : "cpu");
  return std::make_unique<FloorsServer>(out);
}

}  // namespace fleetsweep::torchbench
