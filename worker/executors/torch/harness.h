// Harness shared by the libtorch kernel families: device/dtype resolution, the executed-operator
// fingerprint, the reference check, input rotation and per-repetition timing, and the protocol
// flow every kernel follows (RunProtocol). Includes libtorch: only torch TUs may include it.
//
// Thread-safety: single-threaded use (the fingerprint callback is thread-local).
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "worker/executors/torch/emit.h"
#include "worker/executors/torch/options.h"

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

// Number of input copies to rotate: on CUDA enough that copies * bytes_per_copy > L2 (at least 2,
// at most 256); on CPU 2.
int RotationCopies(const Env& env, int64_t bytes_per_copy);

// Runs `warmup` untimed then `reps` timed repetitions of run(copy index), rotating copies, and
// returns the per-repetition milliseconds (CUDA events on torch >= 2, else synchronize +
// steady_clock). Writes info timing_method once.
std::vector<double> TimeReps(const Env& env, int warmup, int reps, int copies,
                             const std::function<void(int)>& run);

// The flow of every kernel family. `make(seed)` builds one input set; `run` is the kernel;
// `reference` the straightforward implementation in `ReferenceType`; `bytes` an input set's size.
// Steps: reject unread shapes; info lines; check on fresh inputs (exit 4 when it fails);
// fingerprint of one untimed run; timed repetitions over rotated copies (one sample each).
template <class Inputs>
int RunProtocol(Env& env, ParamReader& params, ShapeReader& shapes, const std::string& kernel,
                const std::function<Inputs(uint64_t)>& make,
                const std::function<at::Tensor(const Inputs&)>& run,
                const std::function<at::Tensor(const Inputs&)>& reference,
                const std::function<int64_t(const Inputs&)>& bytes);

// Writes info lines common to every kernel (torch version, device, dtype, platform, shapes,
// consumed and ignored parameters). Returns false (after an error line) on unread shapes.
bool EmitPreamble(const Env& env, const ParamReader& params, const ShapeReader& shapes,
                  const std::string& kernel);

template <class Inputs>
int RunProtocol(Env& env, ParamReader& params, ShapeReader& shapes, const std::string& kernel,
                const std::function<Inputs(uint64_t)>& make,
                const std::function<at::Tensor(const Inputs&)>& run,
                const std::function<at::Tensor(const Inputs&)>& reference,
                const std::function<int64_t(const Inputs&)>& bytes) {
  if (!EmitPreamble(env, params, shapes, kernel)) return kExitInvalid;
  const uint64_t seed = env.options->seed;
  {
    at::manual_seed(seed ^ 0x9e3779b97f4a7c15ull);  // fresh inputs, unlike the timed ones
    Inputs fresh = make(seed ^ 0x9e3779b97f4a7c15ull);
    at::Tensor got = run(fresh);
    at::Tensor want = reference(fresh);
    CheckResult c = Compare(got, want, env.dtype, kernel);
    env.out->Check(c.passed, c.max_rel_error, c.tolerance, c.detail);
    if (!c.passed) return kExitWrongResult;
  }
  std::vector<Inputs> copies;
  at::manual_seed(seed);
  copies.push_back(make(seed));
  OpTrace trace = TraceOps([&] { run(copies[0]); });
  env.out->Fingerprint(Hex16(trace.hash));
  env.out->Info("fingerprint_ops", std::to_string(trace.ops));
  const int n = RotationCopies(env, bytes(copies[0]));
  for (int i = 1; i < n; ++i) {
    at::manual_seed(seed + static_cast<uint64_t>(i));
    copies.push_back(make(seed + static_cast<uint64_t>(i)));
  }
  env.out->Info("input_copies",
                std::to_string(n) + " x " + std::to_string(bytes(copies[0])) + " bytes");
  std::vector<double> ms = TimeReps(env, env.options->warmup, env.options->reps, n,
                                    [&](int i) { run(copies[static_cast<size_t>(i)]); });
  for (double v : ms) env.out->Sample("time_ms", v);
  return kExitOk;
}

}  // namespace fleetsweep::torchbench
