// FreedMemoryReturnedPromptly: while it lives freed pages go back to the system at once, with
// whichever allocator the binary has (this test links fleetsweep::malloc like the long-running
// binaries); afterwards jemalloc keeps them for its decay time again.
#include "common/util/freed_memory.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <memory>
#include <vector>

namespace fleetsweep {
namespace {

long RssKib() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident * 4;  // 4 KiB pages
}

// Allocates ~100 MiB in 512-byte blocks (touched), frees them all.
void AllocateAndFree() {
  std::vector<std::unique_ptr<char[]>> blocks;
  blocks.reserve(200000);
  for (int i = 0; i < 200000; ++i) {
    blocks.emplace_back(new char[512]);
    std::memset(blocks.back().get(), i & 0xFF, 512);
  }
}

TEST(FreedMemory, FreedPagesGoBackAtOnceWhileTheScopeLivesAndAreKeptAfter) {
  EXPECT_EQ(MallocIsJemalloc(), FLEETSWEEP_EXPECT_JEMALLOC != 0)
      << "the weak mallctl must resolve exactly when the binary links jemalloc";
  const long base = RssKib();
  AllocateAndFree();
  const long kept = RssKib() - base;
  if (MallocIsJemalloc()) {
    EXPECT_GT(kept, 60 * 1024) << "jemalloc keeps freed pages for its decay time by default";
  }
  {
    FreedMemoryReturnedPromptly prompt;
    EXPECT_EQ(prompt.active(), MallocIsJemalloc());
    EXPECT_LT(RssKib() - base, 30 * 1024) << "kept before the scope: " << kept << " KiB";
    AllocateAndFree();
    EXPECT_LT(RssKib() - base, 30 * 1024) << "freed inside the scope: back at once";
  }
  if (MallocIsJemalloc()) {
    AllocateAndFree();
    EXPECT_GT(RssKib() - base, 60 * 1024) << "after the scope the default decay is back";
  }
}

}  // namespace
}  // namespace fleetsweep
