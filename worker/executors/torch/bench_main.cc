// fleetsweep-torch-bench: libtorch kernel families (fused MoE, paged-attention decode,
// prefix-prefill attention) plus the device floors, speaking the benchmark stdout protocol
// (emit.h). Run by the worker through the exec executor (torch_section.h translates a
// `type: torch` executor section into the command line). See docs/torch-executor.md.
#include <cstdio>
#include <exception>
#include <string>

#include "worker/executors/torch/emit.h"
#include "worker/executors/torch/kernels.h"
#include "worker/executors/torch/options.h"

using namespace fleetsweep::torchbench;  // NOLINT(build/namespaces): thin main

int main(int argc, char** argv) {
  Emitter out;
  auto options = ParseOptions(argc, argv);
  if (options.ok() && !options->help.empty()) {
    std::fputs(options->help.c_str(), stdout);
    return 0;
  }
  if (!options.ok()) {
    std::fprintf(stderr, "fleetsweep-torch-bench: %s\n", options.status().message().c_str());
    out.Error("invalid_argument", options.status().message());
    return kExitInvalid;
  }
  try {
    const std::string& k = options->kernel;
    if (k == "moe") return RunFusedMoe(*options, out);
    if (k == "paged_attention") return RunPagedAttention(*options, out);
    if (k == "prefix_prefill") return RunPrefixPrefill(*options, out);
    return RunFloors(*options, out);
  } catch (const std::exception& e) {
    std::string what = e.what();
    auto nl = what.find("\nException raised from");  // c10::Error appends a C++ backtrace
    if (nl != std::string::npos) what.resize(nl);
    const bool oom = what.find("out of memory") != std::string::npos ||
                     what.find("OutOfMemory") != std::string::npos;
    out.Error(oom ? "out_of_memory" : "runtime_error", what);
    return kExitRuntimeError;
  }
}
