// Freed memory back to the system: for a long-running binary that is about to free a lot and
// build something as large (the coordinator's Finish, issue 16: the scheduler's state is freed
// while the final aggregate is built, and jemalloc's default keeps freed pages for ~10 s before
// handing them back: a completed 64,000-configuration sweep peaked at 222 MiB with the default
// and 138 MiB with freed pages returned at once, docs/performance.md).
//
// Works with whichever allocator the binary was linked with: jemalloc (fleetsweep::malloc) is
// reached through `mallctl`, referenced weakly so that a binary without jemalloc links too; with
// glibc's malloc, malloc_trim. Errors: none (an allocator that refuses is left as it was).
#pragma once

#include <sys/types.h>

namespace fleetsweep {

// While it lives, pages freed by any thread go back to the system at once instead of after the
// allocator's decay time (jemalloc: every arena's dirty and muzzy decay set to 0; what is free
// when it starts goes back too). Returning pages costs time (a completed 64,000-configuration
// Finish: ~0.2 s more for reading back), so it covers only the phase that makes the peak; the
// destructor restores the decay times jemalloc had. With glibc's malloc: malloc_trim at start.
class FreedMemoryReturnedPromptly {
 public:
  FreedMemoryReturnedPromptly();
  ~FreedMemoryReturnedPromptly();
  FreedMemoryReturnedPromptly(const FreedMemoryReturnedPromptly&) = delete;
  FreedMemoryReturnedPromptly& operator=(const FreedMemoryReturnedPromptly&) = delete;
  // Whether jemalloc took the setting (false: glibc's malloc, or jemalloc refused).
  bool active() const { return active_; }

 private:
  bool active_ = false;
  ssize_t dirty_ms_ = 0, muzzy_ms_ = 0;  // the defaults before, restored by the destructor
};

// Whether the binary's malloc is jemalloc.
bool MallocIsJemalloc();

}  // namespace fleetsweep
