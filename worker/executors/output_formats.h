// Result-file formats of the exec executor (`output: {file: NAME, format: F}`).
//
//   protocol    the file holds protocol lines (bench_protocol.h), one per line
//   vllm-bench  the JSON object `vllm bench serve --save-result` writes: each measurement
//               (request/output/total-token throughputs, request_goodput,
//               max_output_tokens_per_s, max_concurrent_requests, and
//               {mean,median,std,pNN}_{ttft,tpot,itl,e2el}_ms) with a finite value becomes one
//               sample named by its key; the other top-level scalars (num_prompts, duration,
//               completed, backend, ...) become info entries; lists and objects (per-request
//               arrays) are skipped
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
