// Exports of a finished sweep in vLLM's formats (docs/report.md):
//   * the fused-MoE tuned-config JSON (vllm/model_executor/layers/fused_moe/configs/
//     "E={E},N={N},device_name={name}.json": batch size M as a string key -> the six ints
//     BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M, num_warps, num_stages);
//   * the winning engine settings as `vllm serve` arguments and as a --config YAML.
// Pure functions of SweepInputs (sweep_inputs.h); thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "coordinator/report/sweep_inputs.h"
#include "nlohmann/json.hpp"

namespace fleetsweep {

struct MoeExportOptions {
  std::string device_name;         // "" = from the attempts' info "device_name"
  std::optional<int64_t> E, N, M;  // override what the sweep says
};

struct MoeExport {
  std::string file_name;           // "E=8,N=14336,device_name=NVIDIA_H100.json"
  nlohmann::ordered_json config;   // "M" -> the six fields, keys in increasing M
  std::vector<std::string> notes;  // where each value came from, for the user
};

// One entry per batch size M: M is the sweep parameter "M" when there is one (each level gets
// its best-ranked configuration with samples), else the single shape M (flag, attempts' info
// "shapes", executor `shapes`). Fields the configuration does not carry come from the spec
// (pinned/inert: ParamSpec::DefaultValue) and otherwise vLLM's defaults (64, 64, 32, 8, 4, 2).
// Errors: kInvalidArgument when E, N, M or the device name cannot be determined, when a field is
// not an integer, or when no configuration has samples.
StatusOr<MoeExport> ExportVllmMoe(const SweepInputs& in, const MoeExportOptions& options);

struct EngineArgsExport {
  std::string cli;   // "--max-num-seqs 256 --enable-chunked-prefill"
  std::string yaml;  // "max-num-seqs: 256\nenable-chunked-prefill: true\n"
  std::vector<std::string> notes;
};

// The chosen configuration (ChosenConfig) plus pinned parameters, restricted to group "engine"
// when the spec has such a group; inert parameters are left out. Names become long options
// (underscores -> dashes); booleans become --flag / --no-flag. kInvalidArgument without samples.
StatusOr<EngineArgsExport> ExportEngineArgs(const SweepInputs& in);

}  // namespace fleetsweep
