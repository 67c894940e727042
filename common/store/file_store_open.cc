// FileStore's opening (file_store.h): the directory's lock, and the log replayed into the
// in-memory index.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "common/store/file_store.h"
#include "common/store/file_store_io.h"
#include "common/store/store_checks.h"

namespace fleetsweep {

using file_store_io::BodyOffset;
using file_store_io::Errno;
using file_store_io::PreadAll;
using file_store_io::SplitPayload;
using file_store_io::SyncDir;

StatusOr<std::unique_ptr<FileStore>> FileStore::Open(const std::string& dir,
                                                     FileStoreOptions options) {
  if (dir.empty()) return Status::InvalidArgument("file store: empty directory path");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return Status::Internal("file store: cannot create directory " + dir + ": " + ec.message());
  std::unique_ptr<FileStore> store(new FileStore(dir, options));
  FS_RETURN_IF_ERROR(store->Lock());
  FS_RETURN_IF_ERROR(store->Replay());
  return store;
}

FileStore::~FileStore() {
  if (log_fd_ >= 0) {
    if (unsynced_records_ > 0) ::fdatasync(log_fd_);
    ::close(log_fd_);
  }
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

Status FileStore::Lock() {
  std::string path = dir_ + "/LOCK";
  lock_fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) return Status::Internal(Errno("file store: open " + path));
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    char buf[32] = {0};
    ssize_t n = ::pread(lock_fd_, buf, sizeof(buf) - 1, 0);
    ::close(lock_fd_);
    lock_fd_ = -1;
    if (err != EWOULDBLOCK)
      return Status::Internal("file store: flock " + path + ": " + std::strerror(err));
    std::string holder = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    std::string who = holder.empty() ? "another opener" : "pid " + holder;
    if (!holder.empty() && holder == std::to_string(::getpid())) who += " (this process)";
    return Status::FailedPrecondition("file store " + dir_ + " is locked by " + who +
                                      "; only one process may open a store directory");
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(lock_fd_, 0) != 0 || ::pwrite(lock_fd_, pid.data(), pid.size(), 0) < 0) {
    return Status::Internal(Errno("file store: write " + path));
  }
  return Status::Ok();
}

Status FileStore::Replay() {
  std::string path = log_path();
  log_fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (log_fd_ < 0) return Status::Internal(Errno("file store: open " + path));
  struct stat st {};
  if (::fstat(log_fd_, &st) != 0) return Status::Internal(Errno("fstat " + path));
  last_sync_ = std::chrono::steady_clock::now();
  if (st.st_size == 0) {
    // A new log: write the magic durably, and the directory entry too.
    std::string magic(kLogMagic);
    if (::pwrite(log_fd_, magic.data(), magic.size(), 0) != static_cast<ssize_t>(magic.size()) ||
        ::fdatasync(log_fd_) != 0) {
      return Status::Internal(Errno("file store: write " + path));
    }
    SyncDir(dir_);
    size_ = magic.size();
    return Status::Ok();
  }
  // Streamed in windows: the log is never held whole (a resumed 319,440-execution sweep's log
  // is 260 MB; docs/performance.md).
  size_t kept = 0;
  auto read = [&](uint64_t offset, size_t n, std::string* out) {
    out->resize(n);
    size_t got = 0;
    FS_RETURN_IF_ERROR(PreadAll(log_fd_, path, out->data(), n, offset, &got));
    out->resize(got);
    return Status::Ok();
  };
  FS_ASSIGN_OR_RETURN(LogScan scan, ScanLogStream(static_cast<uint64_t>(st.st_size), read, path,
                                                  [&](const LogRecord& r) {
                                                    ++kept;
                                                    return ApplyRecord(r.type, r.payload, r.offset);
                                                  }));
  size_ = scan.valid_end;
  if (scan.torn_tail_bytes > 0) {
    recovery_note_ = "dropped a torn tail of " + std::to_string(scan.torn_tail_bytes) +
                     " bytes at byte offset " + std::to_string(scan.valid_end) + " (" +
                     scan.torn_reason + "); kept " + std::to_string(kept) + " records";
    std::cerr << "fleetsweep: warning: file store " << path << ": " << recovery_note_ << std::endl;
    if (size_ < kLogMagic.size()) {
      std::string magic(kLogMagic);
      if (::pwrite(log_fd_, magic.data(), magic.size(), 0) != static_cast<ssize_t>(magic.size())) {
        return Status::Internal(Errno("file store: write " + path));
      }
      size_ = magic.size();
    }
    if (::ftruncate(log_fd_, static_cast<off_t>(size_)) != 0 || ::fdatasync(log_fd_) != 0) {
      return Status::Internal(Errno("file store: truncate " + path));
    }
  }
  return Status::Ok();
}

Status FileStore::ApplyRecord(RecordType type, std::string_view payload, uint64_t offset) {
  std::string sweep;
  std::string_view body;
  auto bad = [&](const std::string& why) {
    return Status::DataLoss("file store " + log_path() + ": record at byte offset " +
                            std::to_string(offset) + ": " + why);
  };
  if (!SplitPayload(payload, &sweep, &body)) return bad("malformed payload");
  Sweep& s = sweeps_[sweep];
  const BodyRef ref{BodyOffset(offset, sweep), static_cast<uint32_t>(body.size())};
  switch (type) {
    case RecordType::kSpec:
      s.spec = std::string(body);
      break;
    case RecordType::kConfig: {
      v1::ConfigRecord c;
      if (!c.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
        return bad("undecodable ConfigRecord");
      }
      s.configs[c.config_key()] = ref;
      break;
    }
    case RecordType::kAttempt: {
      v1::Attempt a;
      if (!a.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
        return bad("undecodable Attempt");
      }
      if (!SamplesAreFinite(a)) break;  // never written by PutAttempt: skipped, not loaded
      const std::string key = AttemptKey(a);
      const uint64_t hash = HashAttemptKey(key);
      FS_ASSIGN_OR_RETURN(const bool stored, HasAttempt(s, hash, key));
      if (stored) break;  // first wins
      s.attempt_hashes.emplace(hash, static_cast<uint32_t>(s.attempts.size()));
      s.attempts.push_back(ref);
      break;
    }
    case RecordType::kEvent:
      s.events.emplace_back(body);
      break;
  }
  return Status::Ok();
}

}  // namespace fleetsweep
