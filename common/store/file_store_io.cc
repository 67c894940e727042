#include "common/store/file_store_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/store/record_log.h"

namespace fleetsweep::file_store_io {

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

// [u32 sweep length][sweep][body]
std::string Payload(const std::string& sweep, const std::string& body) {
  std::string p;
  p.reserve(4 + sweep.size() + body.size());
  auto n = static_cast<uint32_t>(sweep.size());
  for (int i = 0; i < 4; ++i) p.push_back(static_cast<char>((n >> (8 * i)) & 0xFF));
  p += sweep;
  p += body;
  return p;
}

// Where the body of a record written at `record_offset` starts: after the frame header and the
// payload's [u32 sweep length][sweep].
uint64_t BodyOffset(uint64_t record_offset, const std::string& sweep) {
  return record_offset + kRecordHeaderSize + 4 + sweep.size();
}

bool SplitPayload(std::string_view p, std::string* sweep, std::string_view* body) {
  if (p.size() < 4) return false;
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i)
    n |= static_cast<uint32_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  if (n > p.size() - 4) return false;
  sweep->assign(p.data() + 4, n);
  *body = p.substr(4 + n);
  return true;
}

// Reads up to n bytes at `offset`; *got is how many (fewer only at the end of the file).
Status PreadAll(int fd, const std::string& path, char* out, size_t n, uint64_t offset,
                size_t* got) {
  size_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(fd, out + done, n - done, static_cast<off_t>(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Status::Internal(Errno("read " + path));
    if (r == 0) break;
    done += static_cast<size_t>(r);
  }
  *got = done;
  return Status::Ok();
}

void SyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

}  // namespace fleetsweep::file_store_io
