// Freed memory back to the system: what a long-running binary calls when it has just freed a
// lot and will not need it again soon (the coordinator's Finish, issue 16: the scheduler's state
// is freed while the final aggregate is built, and jemalloc's default keeps freed pages for ~10 s
// before handing them back: a completed 64,000-configuration sweep peaked at 222 MiB with the
// default and 169 MiB with freed pages returned at once, docs/performance.md).
//
// Works with whichever allocator the binary was linked with: jemalloc (fleetsweep::malloc) is
// reached through `mallctl`, referenced weakly so that a binary without jemalloc links too; with
// glibc's malloc, malloc_trim. Errors: none (an allocator that refuses is left as it was).
#pragma once

namespace fleetsweep {

// From now on, pages freed by any thread go back to the system at once instead of after the
// allocator's decay time (jemalloc: every arena's dirty and muzzy decay set to 0); what is free
// now goes back too. Returns whether jemalloc took the setting (false: glibc's malloc, which
// only had malloc_trim called).
bool ReturnFreedMemoryPromptly();

// Whether the binary's malloc is jemalloc.
bool MallocIsJemalloc();

}  // namespace fleetsweep
