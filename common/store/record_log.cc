#include "common/store/record_log.h"

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
    for (size_t next = pos + 1; next + kRecordHeaderSize <= image.size(); ++next) {
      uint32_t ignored = 0;
      if (CheckRecord(image, next, &ignored).empty()) {
        return Status::DataLoss(name + ": corrupt record at byte offset " + std::to_string(pos) +
                                " (" + why + "), valid records follow at byte offset " +
                                std::to_string(next) + "; refusing to drop them");
      }
    }
    scan.valid_end = pos;
    scan.torn_tail_bytes = image.size() - pos;
    scan.torn_reason = why;
    return scan;
  }
  scan.valid_end = pos;
  return scan;
}

}  // namespace fleetsweep
