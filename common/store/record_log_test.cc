#include "common/store/record_log.h"

#include <gtest/gtest.h>

#include "common/store/crc32.h"

namespace fleetsweep {
namespace {

TEST(Crc32Test, KnownVectors) {
  EXPECT_EQ(Crc32("", 0), 0u);
  EXPECT_EQ(Crc32("123456789", 9), 0xCBF43926u);
  // Incremental == one shot.
  EXPECT_EQ(Crc32("6789", 4, Crc32("12345", 5)), 0xCBF43926u);
}

// The on-disk format's CRC, bit by bit from its definition: every store written before the CRC
// came from zlib must still read back.
uint32_t BitwiseCrc32(const std::string& s) {
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char byte : s) {
    c ^= byte;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  }
  return ~c;
}

TEST(Crc32Test, MatchesTheDefinitionOnLongInputs) {
  std::string s;
  uint32_t x = 12345;
  for (int i = 0; i < 100000; ++i) {
    x = x * 1664525u + 1013904223u;
    s.push_back(static_cast<char>(x >> 24));
  }
  for (size_t n : {size_t{1}, size_t{7}, size_t{64}, size_t{4095}, s.size()}) {
    const std::string part = s.substr(0, n);
    EXPECT_EQ(Crc32(part.data(), part.size()), BitwiseCrc32(part)) << n;
  }
  EXPECT_EQ(Crc32(s.data() + 1000, s.size() - 1000, Crc32(s.data(), 1000)), BitwiseCrc32(s));
}

std::string Image(const std::vector<std::string>& payloads) {
  std::string image(kLogMagic);
  for (const auto& p : payloads) AppendRecord(&image, RecordType::kEvent, p);
  return image;
}

TEST(RecordLogTest, RoundTrip) {
  std::string image = Image({"a", "", std::string("b\0c", 3), std::string(70000, 'x')});
  auto scan = ScanLog(image, "t");
  ASSERT_TRUE(scan.ok()) << scan.status().ToString();
  ASSERT_EQ(scan->records.size(), 4u);
  EXPECT_EQ(scan->records[0].payload, "a");
  EXPECT_EQ(scan->records[1].payload, "");
  EXPECT_EQ(scan->records[2].payload, std::string("b\0c", 3));
  EXPECT_EQ(scan->records[3].payload.size(), 70000u);
  EXPECT_EQ(scan->records[0].offset, kLogMagic.size());
  EXPECT_EQ(scan->records[1].offset, kLogMagic.size() + kRecordHeaderSize + 1);
  EXPECT_EQ(scan->valid_end, image.size());
  EXPECT_EQ(scan->torn_tail_bytes, 0u);
}

TEST(RecordLogTest, EveryTruncationOfTheLastRecordIsATornTail) {
  std::string base = Image({"first", "second"});
  std::string last;
  AppendRecord(&last, RecordType::kEvent, "third record");
  for (size_t cut = 1; cut < last.size(); ++cut) {
    auto scan = ScanLog(base + last.substr(0, cut), "t");
    ASSERT_TRUE(scan.ok()) << cut << ": " << scan.status().ToString();
    EXPECT_EQ(scan->records.size(), 2u);
    EXPECT_EQ(scan->valid_end, base.size());
    EXPECT_EQ(scan->torn_tail_bytes, cut);
  }
}

TEST(RecordLogTest, EveryByteFlipInAnEarlierRecordIsDataLoss) {
  std::string image = Image({"first", "second", "third"});
  const size_t second = kLogMagic.size() + kRecordHeaderSize + 5;
  for (size_t i = second; i < second + kRecordHeaderSize + 6; ++i) {
    std::string bad = image;
    bad[i] ^= 0x10;
    auto scan = ScanLog(bad, "t");
    ASSERT_FALSE(scan.ok()) << "flip at " << i;
    EXPECT_EQ(scan.status().code(), StatusCode::kDataLoss);
    EXPECT_NE(scan.status().message().find("byte offset " + std::to_string(second)),
              std::string::npos)
        << scan.status().message();
  }
}

TEST(RecordLogTest, MagicChecks) {
  EXPECT_TRUE(ScanLog("", "t").ok());
  auto partial = ScanLog(kLogMagic.substr(0, 4), "t");
  ASSERT_TRUE(partial.ok());
  EXPECT_EQ(partial->torn_tail_bytes, 4u);
  EXPECT_EQ(ScanLog("NOTALOGFILE", "t").status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(ScanLog("XY", "t").status().code(), StatusCode::kDataLoss);
}

}  // namespace
}  // namespace fleetsweep
