#include "common/util/freed_memory.h"

#include <malloc.h>

#include <cstddef>
#include <string>

// jemalloc's control interface, present only when the binary links jemalloc (Debian's build
// exports it unprefixed).
extern "C" int mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen)
    __attribute__((weak));

namespace fleetsweep {
namespace {

// Sets the dirty and muzzy decay of new arenas and of every existing one.
bool SetDecay(ssize_t dirty_ms, ssize_t muzzy_ms) {
  unsigned arenas = 0;
  size_t len = sizeof arenas;
  if (mallctl("arenas.narenas", &arenas, &len, nullptr, 0) != 0) return false;
  bool ok = true;
  for (auto [setting, value] : {std::pair<const char*, ssize_t>{"dirty_decay_ms", dirty_ms},
                                std::pair<const char*, ssize_t>{"muzzy_decay_ms", muzzy_ms}}) {
    ok &= mallctl((std::string("arenas.") + setting).c_str(), nullptr, nullptr, &value,
                  sizeof value) == 0;
    // An arena index that is not initialised refuses: skipped.
    for (unsigned i = 0; i < arenas; ++i) {
      const std::string name = "arena." + std::to_string(i) + "." + setting;
      (void)mallctl(name.c_str(), nullptr, nullptr, &value, sizeof value);
    }
  }
  return ok;
}

}  // namespace

bool MallocIsJemalloc() {
  if (mallctl == nullptr) return false;
  const char* version = nullptr;
  size_t len = sizeof version;
  return mallctl("version", &version, &len, nullptr, 0) == 0 && version != nullptr;
}

FreedMemoryReturnedPromptly::FreedMemoryReturnedPromptly() {
  if (!MallocIsJemalloc()) {
    malloc_trim(0);
    return;
  }
  size_t len = sizeof dirty_ms_;
  if (mallctl("arenas.dirty_decay_ms", &dirty_ms_, &len, nullptr, 0) != 0) return;
  len = sizeof muzzy_ms_;
  if (mallctl("arenas.muzzy_decay_ms", &muzzy_ms_, &len, nullptr, 0) != 0) return;
  active_ = SetDecay(0, 0);
  // What is free now: MALLCTL_ARENAS_ALL (4096) purges every arena.
  (void)mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);
}

FreedMemoryReturnedPromptly::~FreedMemoryReturnedPromptly() {
  if (active_) SetDecay(dirty_ms_, muzzy_ms_);
}

}  // namespace fleetsweep
