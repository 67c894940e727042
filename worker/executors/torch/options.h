// Bench options: flags of fleetsweep-torch-bench, the parameters it was given (flags and
// FLEETSWEEP_PARAM_<NAME> environment variables) and the shapes it runs at.
//
// Nothing here depends on libtorch. ParamReader and ShapeReader record what a kernel actually
// read, so the bench can report the parameters it was given but never consumed.
//
// Thread-safety: not thread-safe (single-threaded bench).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "worker/executors/torch/surface.h"

namespace fleetsweep::torchbench {

using ShapeMap = std::map<std::string, int64_t>;

struct BenchOptions {
  std::string help;    // set (and nothing else) when --help was asked for: print it, exit 0
  std::string kernel;  // moe | paged_attention | prefix_prefill | floors
  std::string device = "auto";    // cpu | cuda | auto (cuda when available)
  std::string dtype = "float32";  // float32 | float16 | bfloat16
  std::string platform;  // surface name or file; "" = $FLEETSWEEP_PLATFORM_SURFACE or generic
  int reps = 20;
  int warmup = 3;
  int threads = 0;  // CPU intra-op threads; 0 = libtorch's default
  uint64_t seed = 1;
  int64_t l2_bytes = 60ll << 20;  // inputs are rotated so that their total exceeds this (CUDA)
  bool skip_check = false;        // for the floors mode only; kernels always check
  ShapeMap shapes;                // --shapes (CPU, or any device when gpu_shapes is empty)
  ShapeMap gpu_shapes;            // --gpu-shapes (used when the device is cuda)
  std::string shapes_env;         // $FLEETSWEEP_SHAPES, overrides single keys on any device
  std::map<std::string, std::string> params;  // env FLEETSWEEP_PARAM_* then --param (wins)
  // --prewarm: parameter sets a persistent session prepares once, untimed, before it says ready
  // (serve.h), so that no execution in the session pays for its kernel's first launch of new
  // shapes or for building the inputs. Each set is a list of NAME=VALUE.
  std::vector<std::map<std::string, std::string>> prewarm;
  std::string exe_dir;  // directory of the bench binary
  PlatformSurface surface;
};

// Parses argv and the environment (FLEETSWEEP_PARAM_*, FLEETSWEEP_SHAPES,
// FLEETSWEEP_PLATFORM_SURFACE) and loads the surface. Never throws.
// --help returns options whose `help` holds the usage text (with defaults).
// Errors: kInvalidArgument (bad flag or value),
// kNotFound (surface file).
StatusOr<BenchOptions> ParseOptions(int argc, char** argv);

// `base` with `params` (one persistent-session execution's, serve.h) overriding its parameters;
// a given name replaces any parameter whose name differs from it only in case (the environment
// may hold FLEETSWEEP_PARAM_BLOCK_SIZE where the request names block_size).
BenchOptions WithParams(const BenchOptions& base, const std::map<std::string, std::string>& params);

// "M=64,K=128" (also "M=64 K=128") -> {M:64, K:128}. Errors: kInvalidArgument.
StatusOr<ShapeMap> ParseShapeList(const std::string& text);

// Reads the kernel parameters a surface lets through. Lookup of NAME tries the exact name, then a
// case-insensitive match (the exec executor may upper-case FLEETSWEEP_PARAM_ names).
class ParamReader {
 public:
  ParamReader(const BenchOptions& options, std::string surface_kernel)
      : options_(options), kernel_(std::move(surface_kernel)) {}

  // Whether the platform surface lets the kernel read `name`.
  bool Honoured(const std::string& name) const;
  // The value if given and honoured, else `fallback`. Errors: kInvalidArgument (not an integer).
  StatusOr<int64_t> Int(const std::string& name, int64_t fallback);
  StatusOr<bool> Bool(const std::string& name, bool fallback);
  // Given parameters that no Int()/Bool() call consumed (ignored by the surface or unknown).
  std::vector<std::string> Unconsumed() const;
  // "NAME=value" of every consumed parameter, in name order.
  std::string ConsumedSummary() const;

 private:
  const std::string* Find(const std::string& name, std::string* key) const;
  const BenchOptions& options_;
  std::string kernel_;
  std::map<std::string, std::string> consumed_;  // given key -> value
};

// Shapes in effect: gpu_shapes on cuda (when given) else shapes, then FLEETSWEEP_SHAPES.
class ShapeReader {
 public:
  static StatusOr<ShapeReader> Make(const BenchOptions& options, bool on_cuda);
  // The shape value, or `fallback` when not given. Errors: kInvalidArgument when < 1.
  StatusOr<int64_t> Get(const std::string& name, int64_t fallback);
  // Given shape keys nobody read (typos); the bench rejects them.
  std::vector<std::string> Unread() const;
  std::string Summary() const;  // "K=128,M=64,..." of what was read

 private:
  ShapeMap given_;
  std::map<std::string, int64_t> read_;
};

}  // namespace fleetsweep::torchbench
