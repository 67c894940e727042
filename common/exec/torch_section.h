// TorchSectionToExecYaml: turns a `type: torch` executor section into the exec section that runs
// fleetsweep-torch-bench (worker/executors/torch/, a separate executable so that no translation
// unit sees both libtorch and protobuf headers and a crashing kernel cannot take the worker down).
//
//   type: torch
//   kernel: moe              # moe (alias fused_moe) | paged_attention | prefix_prefill | floors
//   device: auto             # cpu | cuda | auto                         (default auto)
//   dtype: float32           # float32 | float16 | bfloat16              (default float32)
//   platform: bi-v100        # surface name or YAML file; default: the worker's
//                            # FLEETSWEEP_PLATFORM_SURFACE, else the generic surface
//   reps: 10                 # timed repetitions per execution (one sample each)
//   warmup: 2
//   seed: 1
//   threads: 1               # CPU intra-op threads
//   shapes: {M: 64, K: 128}  # used on cpu (and on cuda when gpu_shapes is absent)
//   gpu_shapes: {M: 1024, K: 4096}   # used when the bench runs on cuda
//   timeout: 120             # seconds per execution
//   env: {OMP_NUM_THREADS: "1"}      # extra environment for the bench
//   session: {...}           # copied as is into the exec section (docs/executors.md)
//   prewarm: {BLOCK_SIZE_M: [16, 32]}  # persistent sessions: each value prepared once, untimed,
//                            # before the session says ready (--prewarm NAME=V each)
//   prewarm: [BLOCK_SIZE_M]  # the same for every level of each named swept parameter (needs
//                            # `levels`: the spec's swept parameters and their levels)
//
// Result (YAML text):
//   type: exec
//   command: ["{FLEETSWEEP_BIN}/fleetsweep-torch-bench", "--kernel", "moe", "--device", "auto",
//             "--dtype", "float32", ..., "--shapes", "K=128,M=64", ...]
//   timeout: 120
// Swept parameters are not on the command line: the exec executor exports them as
// FLEETSWEEP_PARAM_<NAME>, which the bench reads (docs/torch-executor.md).
//
// Errors: kInvalidArgument naming the offending key (unknown key, missing/unknown kernel, a shape
// that is not a positive integer, a bad scalar). Never throws. No libtorch dependency.
// Thread-safety: a pure function.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/status.h"

namespace YAML {
class Node;
}

namespace fleetsweep {

// The swept parameters of a spec and their levels as text (canonical, in the spec's order): what
// `prewarm: [NAME, ...]` expands to. Empty: the list form is an error naming what is missing.
using ParamLevels = std::map<std::string, std::vector<std::string>>;

StatusOr<std::string> TorchSectionToExecYaml(const std::string& executor_yaml,
                                             const ParamLevels& levels = {});
// The same for the section as a node of a whole spec file: messages read
// "SOURCE:LINE:COLUMN: ..." with the node's position in that file.
StatusOr<std::string> TorchSectionToExecYaml(const YAML::Node& section, const std::string& source,
                                             const ParamLevels& levels = {});

}  // namespace fleetsweep
