#include "common/store/record_log.h"

#include <algorithm>
#include <cstring>

#include "common/store/crc32.h"

namespace fleetsweep {
namespace {

void PutU32(std::string* out, uint32_t v) {
  char b[4] = {static_cast<char>(v & 0xFF), static_cast<char>((v >> 8) & 0xFF),
               static_cast<char>((v >> 16) & 0xFF), static_cast<char>((v >> 24) & 0xFF)};
  out->append(b, 4);
}

uint32_t GetU32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint32_t>(u[0]) | (static_cast<uint32_t>(u[1]) << 8) |
         (static_cast<uint32_t>(u[2]) << 16) | (static_cast<uint32_t>(u[3]) << 24);
}

// Checks the record at `pos`. Returns an empty string when valid (and sets *payload_len),
// otherwise why it is not.
std::string CheckRecord(std::string_view image, size_t pos, uint32_t* payload_len) {
  size_t left = image.size() - pos;
  if (left < kRecordHeaderSize) return "incomplete header (" + std::to_string(left) + " bytes)";
  const char* h = image.data() + pos;
  uint32_t len = GetU32(h);
  uint32_t crc = GetU32(h + 4);
  auto type = static_cast<uint8_t>(h[8]);
  if (len > kMaxRecordPayload) return "absurd length " + std::to_string(len);
  if (type == 0 || type > kMaxRecordType) return "unknown record type " + std::to_string(type);
  if (len > left - kRecordHeaderSize) {
    return "length " + std::to_string(len) + " runs past the end of the file";
  }
  if (Crc32(h + 8, 1 + static_cast<size_t>(len)) != crc) return "CRC mismatch";
  *payload_len = len;
  return "";
}

// The tail of a scan from `pos`, the first bad record, to the end (`rest` holds it whole): a torn
// tail, or kDataLoss when a valid record starts somewhere after `pos` (ScanLog's rule).
StatusOr<LogScan> BadRecordTail(std::string_view rest, uint64_t pos, const std::string& name) {
  uint32_t ignored = 0;
  const std::string why = CheckRecord(rest, 0, &ignored);
  for (size_t next = 1; next + kRecordHeaderSize <= rest.size(); ++next) {
    if (CheckRecord(rest, next, &ignored).empty()) {
      return Status::DataLoss(name + ": corrupt record at byte offset " + std::to_string(pos) +
                              " (" + why + "), valid records follow at byte offset " +
                              std::to_string(pos + next) + "; refusing to drop them");
    }
  }
  LogScan scan;
  scan.valid_end = pos;
  scan.torn_tail_bytes = rest.size();
  scan.torn_reason = why;
  return scan;
}

}  // namespace

void AppendRecord(std::string* out, RecordType type, std::string_view payload) {
  auto t = static_cast<char>(type);
  uint32_t crc = Crc32(&t, 1);
  crc = Crc32(payload.data(), payload.size(), crc);
  PutU32(out, static_cast<uint32_t>(payload.size()));
  PutU32(out, crc);
  out->push_back(t);
  out->append(payload.data(), payload.size());
}

StatusOr<LogScan> ScanLog(std::string_view image, const std::string& name) {
  LogScan scan;
  if (image.size() < kLogMagic.size()) {
    if (kLogMagic.substr(0, image.size()) != image) {
      return Status::DataLoss(name + ": not a fleetsweep store log (bad magic)");
    }
    scan.valid_end = 0;
    scan.torn_tail_bytes = image.size();
    scan.torn_reason = "incomplete file header";
    return scan;
  }
  if (image.substr(0, kLogMagic.size()) != kLogMagic) {
    return Status::DataLoss(name + ": not a fleetsweep store log (bad magic)");
  }
  size_t pos = kLogMagic.size();
  while (pos < image.size()) {
    uint32_t len = 0;
    std::string why = CheckRecord(image, pos, &len);
    if (why.empty()) {
      LogRecord r;
      r.offset = pos;
      r.type = static_cast<RecordType>(image[pos + 8]);
      r.payload = image.substr(pos + kRecordHeaderSize, len);
      scan.records.push_back(r);
      pos += kRecordHeaderSize + len;
      continue;
    }
    // A bad record: torn tail unless a valid record starts somewhere after it.
    auto tail = BadRecordTail(image.substr(pos), pos, name);
    if (!tail.ok()) return tail.status();
    tail->records = std::move(scan.records);
    return tail;
  }
  scan.valid_end = pos;
  return scan;
}

StatusOr<LogScan> ScanLogStream(uint64_t size, const LogReadAt& read, const std::string& name,
                                const std::function<Status(const LogRecord&)>& visit,
                                size_t window) {
  std::string buf;  // the log's bytes [start, start + buf.size())
  if (size < kLogMagic.size()) {
    FS_RETURN_IF_ERROR(read(0, static_cast<size_t>(size), &buf));
    return ScanLog(buf, name);
  }
  FS_RETURN_IF_ERROR(read(0, kLogMagic.size(), &buf));
  if (buf != kLogMagic) return Status::DataLoss(name + ": not a fleetsweep store log (bad magic)");
  uint64_t pos = kLogMagic.size();
  uint64_t start = pos;
  buf.clear();
  std::string chunk;
  // At least `need` bytes from pos buffered, or all that is left of the log; the bytes before
  // pos are dropped only when more are read.
  auto fill = [&](size_t need) -> Status {
    const uint64_t end = start + buf.size();
    if (end - pos >= need || end >= size) return Status::Ok();
    buf.erase(0, static_cast<size_t>(pos - start));
    start = pos;
    const size_t want =
        static_cast<size_t>(std::min<uint64_t>(std::max(need - buf.size(), window), size - end));
    chunk.clear();
    FS_RETURN_IF_ERROR(read(end, want, &chunk));
    if (chunk.size() < want) size = end + chunk.size();  // the log ends sooner than it said
    buf += chunk;
    return Status::Ok();
  };
  while (pos < size) {
    FS_RETURN_IF_ERROR(fill(kRecordHeaderSize));
    if (start + buf.size() - pos >= kRecordHeaderSize) {
      const uint32_t len = GetU32(buf.data() + (pos - start));
      if (len <= kMaxRecordPayload) FS_RETURN_IF_ERROR(fill(kRecordHeaderSize + len));
    }
    const std::string_view view = std::string_view(buf).substr(static_cast<size_t>(pos - start));
    uint32_t len = 0;
    if (CheckRecord(view, 0, &len).empty()) {
      LogRecord r;
      r.offset = pos;
      r.type = static_cast<RecordType>(view[8]);
      r.payload = view.substr(kRecordHeaderSize, len);
      FS_RETURN_IF_ERROR(visit(r));
      pos += kRecordHeaderSize + len;
      continue;
    }
    std::string rest;
    FS_RETURN_IF_ERROR(read(pos, static_cast<size_t>(size - pos), &rest));
    return BadRecordTail(rest, pos, name);
  }
  LogScan scan;
  scan.valid_end = pos;
  return scan;
}

}  // namespace fleetsweep
