// SourceDir: the source tree a test reads its data files from (tests/data/...): $FLEETSWEEP_SRC
// when set and non-empty, else FLEETSWEEP_SOURCE_DIR when the test target defines it (CMake:
// target_compile_definitions(... FLEETSWEEP_SOURCE_DIR="${PROJECT_SOURCE_DIR}")), else ".".
// Header-only: tests that do not link fleetsweep::test_support use it too. Never fails.
#pragma once

#include <cstdlib>
#include <string>

namespace fleetsweep::testing {

inline std::string SourceDir() {
  const char* src = std::getenv("FLEETSWEEP_SRC");
  if (src && *src) return src;
#ifdef FLEETSWEEP_SOURCE_DIR
  return FLEETSWEEP_SOURCE_DIR;
#else
  return ".";
#endif
}

}  // namespace fleetsweep::testing
