#include "common/store/record_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

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

// ScanLogStream == ScanLog on random logs: clean, torn at a random byte, a byte flipped anywhere,
// garbage appended, a record longer than the window; windows from 1 byte to the default. Records,
// valid_end, the torn tail, its reason and every error message must be the same.
struct Streamed {
  Status status;
  std::vector<std::tuple<uint64_t, int, std::string>> records;
  LogScan scan;
};

Streamed Stream(const std::string& image, size_t window, int* reads) {
  Streamed out;
  auto read = [&](uint64_t offset, size_t n, std::string* buf) {
    ++*reads;
    *buf = offset >= image.size() ? "" : image.substr(static_cast<size_t>(offset), n);
    return Status::Ok();
  };
  auto scan = ScanLogStream(
      image.size(), read, "t",
      [&](const LogRecord& r) {
        out.records.emplace_back(r.offset, static_cast<int>(r.type), std::string(r.payload));
        return Status::Ok();
      },
      window);
  out.status = scan.status();
  if (scan.ok()) out.scan = *scan;
  return out;
}

TEST(RecordLogTest, TheStreamedScanEqualsTheWholeImageScan) {
  uint32_t x = 7;
  auto next = [&](uint32_t n) {
    x = x * 1664525u + 1013904223u;
    return (x >> 8) % n;
  };
  int torn = 0, corrupt = 0, clean = 0;
  for (int trial = 0; trial < 600; ++trial) {
    std::string image(kLogMagic);
    const int records = static_cast<int>(next(12));
    for (int i = 0; i < records; ++i) {
      std::string payload(next(5) == 0 ? 300 + next(3000) : next(60), 'a');
      for (char& c : payload) c = static_cast<char>(next(256));
      AppendRecord(&image, static_cast<RecordType>(1 + next(kMaxRecordType)), payload);
    }
    switch (next(4)) {
      case 0:
        break;
      case 1:
        image.resize(next(static_cast<uint32_t>(image.size()) + 1));
        break;
      case 2:
        if (image.size() > kLogMagic.size()) {
          const size_t at = kLogMagic.size() + next(static_cast<uint32_t>(image.size() - 8));
          image[at] = static_cast<char>(image[at] ^ (1 + next(255)));
        }
        break;
      default:
        for (uint32_t i = 0, n = 1 + next(20); i < n; ++i)
          image.push_back(static_cast<char>(next(256)));
    }
    auto whole = ScanLog(image, "t");
    for (size_t window : {size_t{1}, size_t{5}, size_t{64}, size_t{1000}, size_t{4} << 20}) {
      int reads = 0;
      Streamed s = Stream(image, window, &reads);
      const std::string at = "trial " + std::to_string(trial) + " window " + std::to_string(window);
      ASSERT_EQ(s.status.ToString(), whole.status().ToString()) << at;
      if (!whole.ok()) continue;
      ASSERT_EQ(s.records.size(), whole->records.size()) << at;
      for (size_t i = 0; i < s.records.size(); ++i) {
        EXPECT_EQ(std::get<0>(s.records[i]), whole->records[i].offset) << at;
        EXPECT_EQ(std::get<1>(s.records[i]), static_cast<int>(whole->records[i].type)) << at;
        EXPECT_EQ(std::get<2>(s.records[i]), whole->records[i].payload) << at;
      }
      EXPECT_EQ(s.scan.valid_end, whole->valid_end) << at;
      EXPECT_EQ(s.scan.torn_tail_bytes, whole->torn_tail_bytes) << at;
      EXPECT_EQ(s.scan.torn_reason, whole->torn_reason) << at;
      EXPECT_TRUE(s.scan.records.empty()) << at;
      if (window == 1 && whole->records.size() > 1) {
        EXPECT_GT(reads, 2) << at << ": not streamed";
      }
    }
    if (!whole.ok()) {
      ++corrupt;
    } else if (whole->torn_tail_bytes > 0) {
      ++torn;
    } else {
      ++clean;
    }
  }
  // Every case was exercised.
  EXPECT_GT(clean, 100);
  EXPECT_GT(torn, 100);
  EXPECT_GT(corrupt, 30);
}

// A clean log is read in windows: never more than a window (or one record) at a time, and the
// visitor's error stops the scan.
TEST(RecordLogTest, TheStreamedScanReadsWindowsAndStopsOnAVisitorError) {
  std::string image = Image({std::string(100, 'a'), std::string(5000, 'b'), "c", "d"});
  size_t largest = 0;
  auto read = [&](uint64_t offset, size_t n, std::string* buf) {
    largest = std::max(largest, n);
    *buf = image.substr(static_cast<size_t>(offset), n);
    return Status::Ok();
  };
  int seen = 0;
  auto scan = ScanLogStream(
      image.size(), read, "t",
      [&](const LogRecord&) {
        ++seen;
        return Status::Ok();
      },
      256);
  ASSERT_TRUE(scan.ok()) << scan.status().ToString();
  EXPECT_EQ(seen, 4);
  EXPECT_EQ(scan->valid_end, image.size());
  EXPECT_LE(largest, kRecordHeaderSize + 5000) << "read one record, not the log";
  seen = 0;
  auto stopped = ScanLogStream(
      image.size(), read, "t",
      [&](const LogRecord&) { return ++seen == 2 ? Status::Internal("stop here") : Status::Ok(); },
      256);
  EXPECT_EQ(stopped.status().ToString(), Status::Internal("stop here").ToString());
  EXPECT_EQ(seen, 2);
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
