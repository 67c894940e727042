// Harness shared by the libtorch kernel families: device/dtype resolution, the executed-operator
// fingerprint, the reference check, input rotation and per-repetition timing, the one-shot flow
// every kernel follows (RunFamily, RunProtocol) and the persistent-session server that caches
// inputs and references across executions (FamilyServer, serve.h). Includes libtorch: only torch
// TUs may include it.
//
// Thread-safety: single-threaded use (the fingerprint callback is thread-local).
#pragma once

#include <ATen/ATen.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "worker/executors/torch/emit.h"
#include "worker/executors/torch/options.h"
#include "worker/executors/torch/serve.h"

namespace fleetsweep::torchbench {

// Resolved run context. `out` is not owned.
struct Env {
  const BenchOptions* options = nullptr;
  Emitter* out = nullptr;
  at::Device device = at::Device(at::kCPU);
  at::ScalarType dtype = at::kFloat;
  bool cuda = false;

  at::TensorOptions Float() const { return at::TensorOptions().dtype(dtype).device(device); }
  at::TensorOptions F32() const { return at::TensorOptions().dtype(at::kFloat).device(device); }
  at::TensorOptions I64() const { return at::TensorOptions().dtype(at::kLong).device(device); }
};

// Resolves --device/--dtype, seeds, sets threads. On failure writes an error line and returns
// false (invalid_argument: cuda asked but unavailable, or float16 on CPU).
bool ResolveEnv(const BenchOptions& options, Emitter& out, Env* env);

// The start of every kernel run: ResolveEnv, then the shape reader for that device. On failure
// the error line is written and std::nullopt returned (the caller exits with kExitInvalid).
std::optional<ShapeReader> OpenKernel(const BenchOptions& options, Emitter& out, Env* env);

// Executed-operator trace: runs `fn` once with a thread-local RecordFunction callback that feeds
// every operator name and its inputs' dtypes/shapes/scalars into FNV-1a 64.
struct OpTrace {
  uint64_t hash = 0;
  int64_t ops = 0;
};
OpTrace TraceOps(const std::function<void()>& fn);
std::string Hex16(uint64_t v);
// The fingerprint line (the trace's hash) and the info line fingerprint_ops. Both flows trace the
// check's launch of this execution's kernel: the operators that ran, once, untimed.
void EmitFingerprint(const OpTrace& trace, Emitter& out);

struct CheckResult {
  bool passed = false;
  double max_rel_error = 0;
  double tolerance = 0;
  std::string detail;
};
// Reference precision for a kernel dtype: float64 for float32, float32 for float16/bfloat16.
at::ScalarType ReferenceType(at::ScalarType dtype);
double Tolerance(at::ScalarType dtype);  // 1e-4 fp32, 2e-2 fp16/bf16
// max|out - ref| / max|ref|; fails on a non-finite value or an all-zero reference.
CheckResult Compare(const at::Tensor& out, const at::Tensor& ref, at::ScalarType dtype,
                    const std::string& what);

void Synchronize(const Env& env);

// Wall time of the consecutive phases of a prepare: Mark(name) closes the phase that began at the
// previous mark (or construction); Text() is "name=ms;name=ms" (3 decimals), in mark order;
// TotalMs() the milliseconds since construction.
class PhaseClock {
 public:
  PhaseClock() : start_(std::chrono::steady_clock::now()), last_(start_) {}
  void Mark(const std::string& name);
  std::string Text() const { return text_; }
  double TotalMs() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point start_, last_;
  std::string text_;
};

// Number of input copies to rotate: on CUDA enough that copies * bytes_per_copy > L2 (at least 2,
// at most 256); on CPU 2.
int RotationCopies(const Env& env, int64_t bytes_per_copy);

// Runs `warmup` untimed then `reps` timed repetitions of run(copy index), rotating copies, and
// returns the per-repetition milliseconds (CUDA events on torch >= 2, else synchronize +
// steady_clock). Writes info timing_method once.
std::vector<double> TimeReps(const Env& env, int warmup, int reps, int copies,
                             const std::function<void(int)>& run);

// What one execution of a kernel family runs. The closures own their state (they capture shapes
// and parameters by value) so that a plan can outlive the call that made it.
template <class Inputs>
struct KernelPlan {
  std::string kernel;  // "fused_moe": the info line `kernel` and the check detail
  // The parameters `make` and `reference` depend on, as text ("" when none): inputs and reference
  // outputs are shared by the executions of a session whose plans have the same input_key.
  std::string input_key;
  std::function<Inputs(uint64_t)> make;          // one input set (after at::manual_seed(seed))
  std::function<at::Tensor(const Inputs&)> run;  // the kernel
  std::function<at::Tensor(const Inputs&)> reference;  // in ReferenceType(dtype)
  std::function<int64_t(const Inputs&)> bytes;         // an input set's size
};

// Check inputs are drawn from seed ^ kCheckSeedMix: fresh, unlike the timed ones.
constexpr uint64_t kCheckSeedMix = 0x9e3779b97f4a7c15ull;

template <class Inputs>
Inputs MakeInputs(const KernelPlan<Inputs>& plan, uint64_t seed) {
  at::manual_seed(seed);
  return plan.make(seed);
}

// Info lines of the process: torch version, kernel, device, dtype, platform, shapes.
void EmitProcessInfo(const Env& env, const ShapeReader& shapes, const std::string& kernel);
// Info lines of one execution: consumed_params, ignored_params.
void EmitParamInfo(const ParamReader& params, Emitter& out);
// False (after an invalid_argument error line) when a given shape was never read (a typo).
bool CheckUnreadShapes(const ShapeReader& shapes, const std::string& kernel, Emitter& out);
// Writes info lines common to every kernel (EmitProcessInfo then EmitParamInfo). Returns false
// (after an error line) on unread shapes.
bool EmitPreamble(const Env& env, const ParamReader& params, const ShapeReader& shapes,
                  const std::string& kernel);

// The one-shot flow of every kernel family. Steps: reject unread shapes; info lines; check on
// fresh inputs, its launch traced for the fingerprint (exit 4 when it fails); timed repetitions
// over rotated copies (one sample each).
template <class Inputs>
int RunProtocol(Env& env, ParamReader& params, ShapeReader& shapes,
                const KernelPlan<Inputs>& plan) {
  if (!EmitPreamble(env, params, shapes, plan.kernel)) return kExitInvalid;
  const uint64_t seed = env.options->seed;
  {
    Inputs fresh = MakeInputs(plan, seed ^ kCheckSeedMix);
    at::Tensor got;
    OpTrace trace = TraceOps([&] { got = plan.run(fresh); });
    at::Tensor want = plan.reference(fresh);
    CheckResult c = Compare(got, want, env.dtype, plan.kernel);
    env.out->Check(c.passed, c.max_rel_error, c.tolerance, c.detail);
    if (!c.passed) return kExitWrongResult;
    EmitFingerprint(trace, *env.out);
  }
  std::vector<Inputs> copies;
  copies.push_back(MakeInputs(plan, seed));
  const int n = RotationCopies(env, plan.bytes(copies[0]));
  for (int i = 1; i < n; ++i) copies.push_back(MakeInputs(plan, seed + static_cast<uint64_t>(i)));
  env.out->Info("input_copies",
                std::to_string(n) + " x " + std::to_string(plan.bytes(copies[0])) + " bytes");
  std::vector<double> ms = TimeReps(env, env.options->warmup, env.options->reps, n,
                                    [&](int i) { plan.run(copies[static_cast<size_t>(i)]); });
  for (double v : ms) env.out->Sample("time_ms", v);
  return kExitOk;
}

// A kernel family, as RunFamily and FamilyServer use it:
//   struct Family {
//     using Inputs = ...;
//     static constexpr const char* kName;     // "fused_moe": info kernel, check detail
//     static constexpr const char* kSurface;  // the platform surface's section
//     Status ReadShapes(ShapeReader&, const Env&);   // per process: shapes and their defaults
//     Status CheckShapes() const;                    // shape relations (topk <= E, ...)
//     // Per execution: reads and checks the parameters (then CheckShapes), fills *plan; may
//     // write info lines (path, flops_per_rep). Errors: invalid_argument, not_implemented.
//     ExecError Plan(ParamReader&, const Env&, KernelPlan<Inputs>*) const;
//   };

// One-shot: one execution, the process's exit code.
template <class Family>
int RunFamily(const BenchOptions& options, Emitter& out) {
  Env env;
  std::optional<ShapeReader> opened = OpenKernel(options, out, &env);
  if (!opened) return kExitInvalid;
  ShapeReader shapes = std::move(*opened);
  ParamReader params(options, Family::kSurface);
  Family family;
  KernelPlan<typename Family::Inputs> plan;
  Status st = family.ReadShapes(shapes, env);
  ExecError err = st.ok() ? family.Plan(params, env, &plan) : ExecError::Invalid(st.message());
  if (!err.ok()) {
    out.Error(err);
    return err.exit_code;
  }
  return RunProtocol(env, params, shapes, plan);
}

// A persistent session of one kernel family (serve.h). Per process: the device, the shapes, and
// up to kMaxCachedInputSets input sets, each with its check inputs, reference output and timed
// copies (what one-shot rebuilds every execution), keyed by the plan's input_key and reused by
// every execution with that key; least recently used first out. Per execution: parameters, the
// check of this execution's kernel output against the cached reference, the executed-operator
// fingerprint, the timing. The inputs are drawn from the same seeds as one-shot, so a
// configuration has the same fingerprint in both modes.
constexpr size_t kMaxCachedInputSets = 4;

template <class Family>
class FamilyServer : public ExecutionServer {
 public:
  using Inputs = typename Family::Inputs;

  // Resolves the device and reads the shapes, writes the process's info lines. nullptr after an
  // error line (the process exits kExitInvalid before ready). May throw (libtorch).
  static std::unique_ptr<ExecutionServer> Make(const BenchOptions& options, Emitter& out) {
    std::unique_ptr<FamilyServer> s(new FamilyServer(options, out));
    if (!s->Start()) return nullptr;
    return s;
  }

  int Prepare(const BenchOptions& options) override {
    for (int attempt = 0;; ++attempt) {
      try {
        return PrepareOnce(options);
      } catch (const std::exception& e) {
        const std::string what = e.what();
        const bool oom = what.find("out of memory") != std::string::npos ||
                         what.find("OutOfMemory") != std::string::npos;
        if (attempt > 0 || !oom || cache_.empty()) throw;
        // Cached input sets may hold the memory this execution needs: drop them, try again.
        DropCaches();
        retried_after_oom_ = true;
      }
    }
  }

  int Run() override {
    if (!pending_) {
      out_.Error("bad_request", "run without a prepared execution");
      return kExitInvalid;
    }
    Pending p = std::move(*pending_);
    pending_.reset();
    Cached& c = cache_.at(p.key);
    const int n = static_cast<int>(c.copies.size());
    out_.Info("input_copies", std::to_string(n) + " x " + std::to_string(c.bytes) + " bytes");
    std::vector<double> ms = TimeReps(env_, options_.warmup, options_.reps, n,
                                      [&](int i) { p.plan.run(c.copies[static_cast<size_t>(i)]); });
    for (double v : ms) out_.Sample("time_ms", v);
    return kExitOk;
  }

  void Forget() override { pending_.reset(); }
  bool UsesDevice() const override { return env_.cuda; }
  void DropCaches() override {
    pending_.reset();
    cache_.clear();
  }

 private:
  struct Cached {
    Inputs fresh;                // the check's inputs (seed ^ kCheckSeedMix)
    at::Tensor reference;        // reference(fresh)
    std::vector<Inputs> copies;  // timed inputs (seed + i)
    int64_t bytes = 0;
    std::string key;  // the plans' input_key
    uint64_t used = 0;
  };
  struct Pending {
    KernelPlan<Inputs> plan;
    std::string key;
  };

  FamilyServer(const BenchOptions& options, Emitter& out) : options_(options), out_(out) {}

  bool Start() {
    std::optional<ShapeReader> opened = OpenKernel(options_, out_, &env_);
    if (!opened) return false;
    shapes_ = std::move(*opened);
    Status st = family_.ReadShapes(shapes_, env_);
    if (st.ok()) st = family_.CheckShapes();
    if (!st.ok()) {
      out_.Error("invalid_argument", st.message());
      return false;
    }
    if (!CheckUnreadShapes(shapes_, Family::kName, out_)) return false;
    if (env_.cuda) at::empty({1}, env_.F32());  // the CUDA context exists before ready
    EmitProcessInfo(env_, shapes_, Family::kName);
    out_.Info("session", "persistent: inputs and reference outputs cached across executions");
    return true;
  }

  int PrepareOnce(const BenchOptions& options) {
    PhaseClock phases;
    ParamReader params(options, Family::kSurface);
    KernelPlan<Inputs> plan;
    ExecError err = family_.Plan(params, env_, &plan);
    if (!err.ok()) {
      out_.Error(err);
      return err.exit_code;
    }
    EmitParamInfo(params, out_);
    phases.Mark("plan");
    bool hit = false;
    Cached& c = Entry(plan, &hit);
    if (!hit) Synchronize(env_);
    phases.Mark("inputs");
    out_.Info("input_cache", std::string(hit ? "hit" : "miss") +
                                 (retried_after_oom_ ? " (rebuilt after out of memory)" : ""));
    retried_after_oom_ = false;
    at::Tensor got;
    OpTrace trace = TraceOps([&] { got = plan.run(c.fresh); });
    Synchronize(env_);
    phases.Mark("check_run");
    CheckResult r = Compare(got, c.reference, env_.dtype, plan.kernel);
    phases.Mark("compare");
    out_.Check(r.passed, r.max_rel_error, r.tolerance, r.detail);
    if (!r.passed) {
      out_.Error("wrong_result", r.detail);
      return kExitWrongResult;
    }
    EmitFingerprint(trace, out_);
    Synchronize(env_);
    phases.Mark("fingerprint");
    out_.Info("prepare_phases_ms", phases.Text());
    out_.Info("prepare_ms", std::to_string(phases.TotalMs()));
    pending_ = Pending{std::move(plan), c.key};
    return kExitOk;
  }

  // The input set of `plan` (built on a miss, after evicting the least recently used).
  Cached& Entry(const KernelPlan<Inputs>& plan, bool* hit) {
    auto it = cache_.find(plan.input_key);
    *hit = it != cache_.end();
    if (!*hit) {
      while (cache_.size() >= kMaxCachedInputSets) {
        auto lru = cache_.begin();
        for (auto i = cache_.begin(); i != cache_.end(); ++i) {
          if (i->second.used < lru->second.used) lru = i;
        }
        cache_.erase(lru);
      }
      const uint64_t seed = options_.seed;
      Cached c;
      c.fresh = MakeInputs(plan, seed ^ kCheckSeedMix);
      c.reference = plan.reference(c.fresh);
      c.copies.push_back(MakeInputs(plan, seed));
      c.bytes = plan.bytes(c.copies[0]);
      const int n = RotationCopies(env_, c.bytes);
      for (int i = 1; i < n; ++i) {
        c.copies.push_back(MakeInputs(plan, seed + static_cast<uint64_t>(i)));
      }
      c.key = plan.input_key;
      it = cache_.emplace(plan.input_key, std::move(c)).first;
    }
    it->second.used = ++tick_;
    return it->second;
  }

  const BenchOptions& options_;
  Emitter& out_;
  Env env_;
  ShapeReader shapes_;
  Family family_;
  std::map<std::string, Cached> cache_;
  uint64_t tick_ = 0;
  bool retried_after_oom_ = false;
  std::optional<Pending> pending_;
};

}  // namespace fleetsweep::torchbench
