#include "common/util/freed_memory.h"

#include <malloc.h>

#include <cstddef>
#include <string>

// jemalloc's control interface, present only when the binary links jemalloc (Debian's build
// exports it unprefixed).
extern "C" int mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen)
    __attribute__((weak));

namespace fleetsweep {

bool MallocIsJemalloc() {
  if (mallctl == nullptr) return false;
  const char* version = nullptr;
  size_t len = sizeof version;
  return mallctl("version", &version, &len, nullptr, 0) == 0 && version != nullptr;
}

bool ReturnFreedMemoryPromptly() {
  if (!MallocIsJemalloc()) {
    malloc_trim(0);
    return false;
  }
  unsigned arenas = 0;
  size_t len = sizeof arenas;
  if (mallctl("arenas.narenas", &arenas, &len, nullptr, 0) != 0) return false;
  bool all = true;
  for (const char* setting : {"dirty_decay_ms", "muzzy_decay_ms"}) {
    ssize_t zero = 0;
    // New arenas, then each existing one (an arena index that is not initialised refuses: skip).
    all &= mallctl((std::string("arenas.") + setting).c_str(), nullptr, nullptr, &zero,
                   sizeof zero) == 0;
    for (unsigned i = 0; i < arenas; ++i) {
      const std::string name = "arena." + std::to_string(i) + "." + setting;
      (void)mallctl(name.c_str(), nullptr, nullptr, &zero, sizeof zero);
    }
  }
  // What is free now: MALLCTL_ARENAS_ALL (4096) purges every arena.
  all &= mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0) == 0;
  return all;
}

}  // namespace fleetsweep
