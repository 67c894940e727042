// Entry points of the kernel families of fleetsweep-torch-bench. This header has no libtorch
// dependency; the implementations (moe.cc, paged_attention.cc, prefix_prefill.cc, harness.cc)
// are the only translation units that include libtorch.
//
// Each Run* writes its protocol lines (info, check, fingerprint, samples, or one error line) to
// `out` and returns an ExitCode (emit.h). They may throw std::exception (c10::Error, e.g. out of
// memory); the caller (bench_main.cc) turns that into an error line.
//
// Each Serve* starts a persistent session of the family (serve.h): it resolves the device, reads
// the shapes and writes the process's info lines; nullptr after an error line (exit kExitInvalid).
// `options` and `out` must outlive the server. May throw std::exception.
#pragma once

#include <memory>
#include <string>

#include "worker/executors/torch/emit.h"
#include "worker/executors/torch/options.h"
#include "worker/executors/torch/serve.h"

namespace fleetsweep::torchbench {

int RunFusedMoe(const BenchOptions& options, Emitter& out);
int RunPagedAttention(const BenchOptions& options, Emitter& out);
int RunPrefixPrefill(const BenchOptions& options, Emitter& out);
// Copy bandwidth and matmul throughput of the device: the floors a kernel's time is compared to.
int RunFloors(const BenchOptions& options, Emitter& out);

std::unique_ptr<ExecutionServer> ServeFusedMoe(const BenchOptions& options, Emitter& out);
std::unique_ptr<ExecutionServer> ServePagedAttention(const BenchOptions& options, Emitter& out);
std::unique_ptr<ExecutionServer> ServePrefixPrefill(const BenchOptions& options, Emitter& out);
std::unique_ptr<ExecutionServer> ServeFloors(const BenchOptions& options, Emitter& out);

// "1.13.0" etc. (TORCH_VERSION of the headers the bench was built with).
std::string TorchVersionString();

}  // namespace fleetsweep::torchbench
