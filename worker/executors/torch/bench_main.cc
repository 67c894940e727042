// fleetsweep-torch-bench: libtorch kernel families (fused MoE, paged-attention decode,
// prefix-prefill attention) plus the device floors, speaking the benchmark stdout protocol
// (emit.h). Run by the worker through the exec executor (torch_section.h translates a
// `type: torch` executor section into the command line). One execution per process, or, with
// FLEETSWEEP_SESSION=persistent, a persistent session serving executions read from stdin
// (serve.h). See docs/torch-executor.md.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>

#include "worker/executors/torch/emit.h"
#include "worker/executors/torch/kernels.h"
#include "worker/executors/torch/options.h"
#include "worker/executors/torch/serve.h"

using namespace fleetsweep::torchbench;  // NOLINT(build/namespaces): thin main

namespace {

int Serve(const BenchOptions& options, Emitter& out) {
  std::unique_ptr<ExecutionServer> server;
  try {
    const std::string& k = options.kernel;
    server = k == "moe"               ? ServeFusedMoe(options, out)
             : k == "paged_attention" ? ServePagedAttention(options, out)
             : k == "prefix_prefill"  ? ServePrefixPrefill(options, out)
                                      : ServeFloors(options, out);
  } catch (const std::exception& e) {
    ExceptionReport r = DescribeException(e);
    out.Error(r.error_class, r.detail);
    return kExitRuntimeError;
  }
  if (!server) return kExitInvalid;  // the error line is out; the worker sees no ready
  return ServeSession(*server, options, stdin, out);
}

}  // namespace

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
  const char* session = std::getenv("FLEETSWEEP_SESSION");
  if (session != nullptr && std::string(session) == "persistent") return Serve(*options, out);
  try {
    const std::string& k = options->kernel;
    if (k == "moe") return RunFusedMoe(*options, out);
    if (k == "paged_attention") return RunPagedAttention(*options, out);
    if (k == "prefix_prefill") return RunPrefixPrefill(*options, out);
    return RunFloors(*options, out);
  } catch (const std::exception& e) {
    ExceptionReport r = DescribeException(e);
    out.Error(r.error_class, r.detail);
    return kExitRuntimeError;
  }
}
