// Result-file formats of the exec executor (`output: {file: NAME, format: F}`).
//
//   protocol    the file holds protocol lines (bench_protocol.h), one per line
//   vllm-bench  the JSON object vLLM's benchmark_serving.py writes with --save-result: every
//               top-level finite number becomes one sample named by its key
//               (output_throughput, mean_ttft_ms, p99_itl_ms, ...); top-level strings become
//               info entries; lists and objects (per-request arrays) are skipped
//
// ParseOutputFile never throws; errors are kInvalidArgument naming the file and the problem.
#pragma once

#include <string>

#include "common/status.h"
#include "worker/executors/bench_protocol.h"

namespace fleetsweep {

constexpr size_t kMaxOutputFileBytes = 64 << 20;

// Parses `contents` (the file's bytes; `name` is for messages) into `state`.
Status ParseOutputFile(const std::string& format, const std::string& name,
                       const std::string& contents, ProtocolState* state);

}  // namespace fleetsweep
