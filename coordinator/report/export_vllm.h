// Exports of a finished sweep in vLLM's formats (docs/report.md, "Exports"):
//   * the fused-MoE tuned-config JSON, named and shaped as vLLM's get_moe_configs() loads it
//     (vllm/model_executor/layers/fused_moe/fused_moe.py): the file
//     "E={E},N={N},device_name={name}[,dtype={d}][,block_shape=[n,k]].json" maps each batch size
//     M (a string key) to BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M and, when the
//     sweep set them, num_warps and num_stages. vLLM picks the entry with the closest M and looks
//     for the file in $VLLM_TUNED_CONFIG_FOLDER first, then in its configs/ directory.
//   * the chosen engine settings as `vllm serve` arguments and as a --config YAML.
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
  // "" = the benchmark's info "device_name" (torch.cuda.get_device_name()), else its info
  // "device" when that is a name (not cpu/cuda). Spaces become '_'.
  std::string device_name;
  // "" = the benchmark's info "dtype", else the spec's dtype parameter, else executor.dtype.
  // float16/bfloat16: no dtype part (vLLM's get_config_dtype_str gives None); float32 and the
  // quantization schemes (fp8_w8a8, int8_w8a8, int8_w8a16, int4_w4a16) give ",dtype=...".
  std::string dtype;
  std::string block_shape;         // "128,128"; "" = the benchmark's info "block_shape"
  std::optional<int64_t> E, N, M;  // override what the sweep says
};

struct MoeExport {
  std::string file_name;           // "E=8,N=14336,device_name=NVIDIA_H100,dtype=fp8_w8a8.json"
  nlohmann::ordered_json config;   // "M" -> fields, keys in increasing M
  std::vector<std::string> notes;  // where each value came from, what was skipped, for the user
  std::vector<std::string> ties;   // per M: the statistical tie and which member was exported
};

// One entry per batch size M the sweep measured: M is a configuration's parameter "M", else the
// M of the shapes its attempts reported, else one M for all (--M, executor shapes). Each M gets
// its best-ranked configuration with samples (not infeasible, within the metric bounds); on an
// NVIDIA device a configuration with a block size below 16 (Triton's minimum tl.dot size) is
// skipped with a note, elsewhere kept with a note. A tie (CIs overlapping the exported one's) is
// reported in `ties`. Fields: what ran (the configuration's parameter, a pinned value, an inert
// parameter's `fixed`); BLOCK_SIZE_* and GROUP_SIZE_M the sweep never set get vLLM's own
// default for that M (noted); num_warps and num_stages the sweep never set are left out (noted),
// never invented.
// Errors: kInvalidArgument when E, N, M or the device name cannot be determined (a CPU run needs
// --device-name), the dtype has no vLLM name, a field is not an integer, no configuration has
// samples, or an M has no configuration usable on the device.
StatusOr<MoeExport> ExportVllmMoe(const SweepInputs& in, const MoeExportOptions& options);

struct EngineArgsExport {
  std::string cli;   // "--max-num-seqs 256 --enable-chunked-prefill"
  std::string yaml;  // "max-num-seqs: 256\nenable-chunked-prefill: true\n"
  std::vector<std::string> notes;
};

// The chosen configuration (ChosenConfig) plus pinned parameters of group "engine" only: the spec
// declares which parameters are vLLM engine arguments (kernel tiles such as BM are not); inert
// parameters are left out. Names become long options (underscores -> dashes). Booleans become
// --flag / --no-flag, and in the YAML `flag: true` / `no-flag: true`: vLLM's config loader drops
// (or, in newer versions, passes as a value) a `false`, so `flag: false` would not read the same
// as the flags. kInvalidArgument without samples or without an engine parameter.
StatusOr<EngineArgsExport> ExportEngineArgs(const SweepInputs& in);

}  // namespace fleetsweep
