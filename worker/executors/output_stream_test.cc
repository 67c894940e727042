#include "worker/executors/output_stream.h"

#include <gtest/gtest.h>

#include <vector>

namespace fleetsweep {
namespace {

TEST(OutputStream, SplitsLinesAcrossChunksAndKeepsTail) {
  std::vector<std::string> lines;
  OutputStream s(8, 100, [&](std::string_view l) { lines.emplace_back(l); });
  s.Append("ab", 2);
  s.Append("c\nde\n", 5);
  s.Append("fgh", 3);
  s.Finish();
  EXPECT_EQ(lines, (std::vector<std::string>{"abc", "de", "fgh"}));
  EXPECT_EQ(s.Tail(), "c\nde\nfgh");
  EXPECT_EQ(s.total_bytes(), 10u);
}

TEST(OutputStream, CutsLongLinesOnceAndResumesAfterNewline) {
  std::vector<std::string> lines;
  OutputStream s(16, 4, [&](std::string_view l) { lines.emplace_back(l); });
  std::string big(1000, 'x');
  s.Append(big.data(), big.size());
  s.Append(big.data(), big.size());
  s.Append("\nok\n", 4);
  s.Finish();
  EXPECT_EQ(lines, (std::vector<std::string>{"xxxx", "ok"}));
  EXPECT_EQ(s.long_lines(), 1u);
  EXPECT_EQ(s.Tail().size(), 16u);
}

}  // namespace
}  // namespace fleetsweep
