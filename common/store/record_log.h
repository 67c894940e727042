// The file store's on-disk framing: an 8-byte magic, then records
//
//   [u32 length][u32 crc32][u8 type][payload: `length` bytes]     (integers little-endian)
//
// where crc32 = Crc32(type byte + payload). Encoding appends to a buffer (one write() per batch);
// ScanLog() walks a whole file image and separates three cases:
//   * every record valid: records returned, valid_end == size.
//   * a TORN TAIL: the first bad record (short header, length past the end, CRC mismatch, unknown
//     type, absurd length) has NO valid record anywhere after it. That is what a crash in the
//     middle of an append leaves. Records before it are returned, valid_end is its offset and
//     torn_tail_bytes > 0; the caller truncates the file there. Not an error.
//   * MID-FILE CORRUPTION: a bad record followed (somewhere later) by a valid one. kDataLoss naming
//     the byte offset of the bad record and of the next valid one. Nothing is truncated.
// The forward search for "a valid record later" accepts a candidate only if its header is sane and
// its CRC matches, so stray bytes are mistaken for a record with probability about 2^-32.
//
// Thread-safety: pure functions; safe from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace fleetsweep {

inline constexpr std::string_view kLogMagic = "FSLOG\x01\r\n";  // 8 bytes
inline constexpr size_t kRecordHeaderSize = 9;
inline constexpr uint32_t kMaxRecordPayload = 256u << 20;  // 256 MiB

// Record types of the file store (payload layouts are in file_store.cc).
enum class RecordType : uint8_t { kSpec = 1, kConfig = 2, kAttempt = 3, kEvent = 4 };
inline constexpr uint8_t kMaxRecordType = 4;

// Appends one framed record to `out`.
void AppendRecord(std::string* out, RecordType type, std::string_view payload);

struct LogRecord {
  uint64_t offset = 0;  // of the record header in the file
  RecordType type = RecordType::kSpec;
  std::string_view payload;  // points into the scanned image
};

struct LogScan {
  std::vector<LogRecord> records;
  uint64_t valid_end = 0;        // file offset after the last valid record
  uint64_t torn_tail_bytes = 0;  // bytes after valid_end (0: clean)
  std::string torn_reason;       // why the first tail record is bad, for the warning
};

// Scans a whole log image (starting with kLogMagic; an image shorter than the magic that is a
// prefix of it counts as empty with a torn tail). Errors: kDataLoss for a wrong magic or mid-file
// corruption (message names the offsets). `name` is used in messages.
StatusOr<LogScan> ScanLog(std::string_view image, const std::string& name);

// Reads up to `n` bytes of the log at `offset` into *out (fewer only at its end).
using LogReadAt = std::function<Status(uint64_t offset, size_t n, std::string* out)>;

// ScanLog over a log of `size` bytes that `read` gives, without holding it: read `window` bytes
// at a time (more when one record is longer), each valid record handed to `visit` in order (its
// payload points into a buffer valid only during the call). The same cases, valid_end,
// torn_tail_bytes, torn_reason and errors as ScanLog over the whole image; the returned LogScan
// has no records. Only from the first bad record on is the rest of the log read whole, to tell a
// torn tail from mid-file corruption (a torn tail is short; corruption is the rare path). Errors:
// ScanLog's, a read error, and the first error `visit` returns (the scan stops there).
StatusOr<LogScan> ScanLogStream(uint64_t size, const LogReadAt& read, const std::string& name,
                                const std::function<Status(const LogRecord&)>& visit,
                                size_t window = size_t{4} << 20);

}  // namespace fleetsweep
