#include "worker/executors/confine.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>

namespace fleetsweep {
namespace {

namespace fs = std::filesystem;

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

// realpath(3) of the longest existing prefix of the absolute, normalised `p`, with the rest
// appended lexically (the rest holds no ".." after normalisation unless it climbs above "/").
std::string ResolveExisting(const fs::path& p) {
  fs::path existing = p;
  fs::path rest;
  while (!existing.empty()) {
    char* real = realpath(existing.c_str(), nullptr);
    if (real != nullptr) {
      fs::path out(real);
      free(real);
      if (!rest.empty()) out /= rest;
      return out.lexically_normal().string();
    }
    if (existing == existing.root_path()) break;
    rest = rest.empty() ? existing.filename() : existing.filename() / rest;
    existing = existing.parent_path();
  }
  return p.string();
}

bool Inside(const std::string& root, const std::string& path) {
  if (path == root) return true;
  const std::string prefix = root.back() == '/' ? root : root + "/";
  return path.compare(0, prefix.size(), prefix) == 0;
}

// The default scratch root: made once per process, removed (recursively) by
// RemoveDefaultScratchRoot or when the process exits normally (static destruction), only by the
// process that made it (a forked child that calls exit() leaves it alone).
class DefaultRoot {
 public:
  ~DefaultRoot() { Remove(); }
  StatusOr<std::string> Get() {
    std::lock_guard<std::mutex> lock(mu_);
    if (path_.empty()) {
      const char* tmp = getenv("TMPDIR");
      std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/fleetsweep-scratch-XXXXXX";
      if (mkdtemp(tmpl.data()) == nullptr) {
        return Status::Internal(Errno("cannot make a scratch root " + tmpl));
      }
      path_ = tmpl;
      owner_ = getpid();
    }
    return path_;
  }
  void Remove() {
    std::lock_guard<std::mutex> lock(mu_);
    if (path_.empty() || owner_ != getpid()) return;
    std::error_code ec;
    fs::remove_all(path_, ec);
    path_.clear();
  }

 private:
  std::mutex mu_;
  std::string path_;
  pid_t owner_ = -1;
};

DefaultRoot& TheDefaultRoot() {
  static DefaultRoot root;
  return root;
}

}  // namespace

StatusOr<std::string> PrepareScratchRoot(const std::string& configured) {
  std::string dir = configured;
  if (dir.empty()) {
    FS_ASSIGN_OR_RETURN(dir, TheDefaultRoot().Get());
  }
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    fs::create_directories(dir, ec);
    if (ec) return Status::Internal("cannot create scratch root " + dir + ": " + ec.message());
    chmod(dir.c_str(), 0700);
  }
  char* real = realpath(dir.c_str(), nullptr);
  if (real == nullptr) return Status::Internal(Errno("scratch root " + dir));
  std::string out(real);
  free(real);
  return out;
}

void RemoveDefaultScratchRoot() { TheDefaultRoot().Remove(); }

StatusOr<std::string> ConfinePath(const std::string& root, const std::string& base,
                                  const std::string& path) {
  if (path.empty()) return Status::InvalidArgument("an empty path");
  if (path.find('\0') != std::string::npos) {
    return Status::InvalidArgument("a path with a NUL byte");
  }
  fs::path p(path);
  if (p.is_relative()) p = fs::path(base) / p;
  p = p.lexically_normal();
  const std::string resolved = ResolveExisting(p);
  if (!Inside(root, resolved)) {
    return Status::FailedPrecondition("'" + path + "' resolves to " + resolved +
                                      ", outside this worker's scratch root " + root +
                                      " (--scratch-root)");
  }
  return resolved;
}

StatusOr<std::string> MakeConfinedDir(const std::string& root, const std::string& dir) {
  FS_ASSIGN_OR_RETURN(std::string confined, ConfinePath(root, root, dir));
  std::error_code ec;
  fs::create_directories(confined, ec);
  if (ec) return Status::Internal("cannot create directory " + confined + ": " + ec.message());
  // Again, now that it exists: a component swapped for a symlink meanwhile is caught here.
  return ConfinePath(root, root, confined);
}

Status WriteConfinedFile(const std::string& root, const std::string& path,
                         const std::string& contents) {
  FS_ASSIGN_OR_RETURN(std::string confined, ConfinePath(root, root, path));
  const fs::path parent = fs::path(confined).parent_path();
  FS_ASSIGN_OR_RETURN(std::string dir, MakeConfinedDir(root, parent.string()));
  const std::string target = (fs::path(dir) / fs::path(confined).filename()).string();
  int fd = open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Status::Internal(Errno("cannot write " + target));
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Status st = Status::Internal(Errno("cannot write " + target));
      close(fd);
      return st;
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) return Status::Internal(Errno("cannot write " + target));
  return Status::Ok();
}

StatusOr<std::string> ReadConfinedFile(const std::string& root, const std::string& path,
                                       size_t max_bytes) {
  FS_ASSIGN_OR_RETURN(std::string confined, ConfinePath(root, root, path));
  int fd = open(confined.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Status::NotFound(Errno(confined));
    return Status::Internal(Errno("cannot read " + confined));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return Status::InvalidArgument(confined + " is not a regular file");
  }
  if (static_cast<size_t>(st.st_size) > max_bytes) {
    close(fd);
    return Status::InvalidArgument(confined + " is larger than " + std::to_string(max_bytes) +
                                   " bytes");
  }
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > max_bytes) break;
  }
  close(fd);
  if (out.size() > max_bytes) {
    return Status::InvalidArgument(confined + " is larger than " + std::to_string(max_bytes) +
                                   " bytes");
  }
  return out;
}

}  // namespace fleetsweep
