// PlatformSurface: what a platform's kernel backend really implements and which tuning
// parameters it really reads (worker/platforms/*.yaml; format in docs/torch-executor.md).
//
// The bench consults it before running: a parameter the surface does not honour is never read
// (so it cannot change what runs, and the fingerprint stays the same), and a feature the surface
// marks unsupported (paged_attention v2 on BI-V100) fails with a not_implemented error, as the
// real backend does.
//
// Thread-safety: immutable after loading; safe to share.
#pragma once

#include <map>
#include <set>
#include <string>

#include "common/status.h"

namespace fleetsweep::torchbench {

struct PlatformSurface {
  std::string name = "generic";  // "generic": built in, everything honoured and supported
  std::string source = "<builtin>";
  // kernel -> parameters the backend reads. A kernel absent here honours every parameter.
  std::map<std::string, std::set<std::string>> honoured;
  // kernel -> parameters the backend is known to ignore (documentation; disjoint from honoured).
  std::map<std::string, std::set<std::string>> ignored;
  // kernel -> feature -> supported (absent = supported).
  std::map<std::string, std::map<std::string, bool>> supports;
  // kernel -> feature -> error detail for an unsupported feature.
  std::map<std::string, std::map<std::string, std::string>> not_implemented;

  // Whether the kernel family's backend reads `param` (case-sensitive, as in the surface file).
  bool Honours(const std::string& kernel, const std::string& param) const;
  bool Supports(const std::string& kernel, const std::string& feature) const;
  // Error detail for an unsupported feature ("<kernel> <feature> is not implemented on <name>"
  // when the file gives none).
  std::string NotImplementedDetail(const std::string& kernel, const std::string& feature) const;
};

// Parses a surface from YAML text; `source` names it in messages. Never throws.
// Errors: kInvalidArgument (malformed YAML, wrong types, a parameter both honoured and ignored).
StatusOr<PlatformSurface> ParseSurface(const std::string& text, const std::string& source);

// Loads `name_or_path`: "" or "generic" gives the built-in surface; a value containing '/' or
// ending in ".yaml" is a file; otherwise NAME is looked up as NAME.yaml in
// $FLEETSWEEP_PLATFORM_DIR, then <exe_dir>/../platforms, then $FLEETSWEEP_SRC/worker/platforms.
// Errors: kNotFound (no such file), kInvalidArgument (bad content).
StatusOr<PlatformSurface> LoadSurface(const std::string& name_or_path, const std::string& exe_dir);

}  // namespace fleetsweep::torchbench
