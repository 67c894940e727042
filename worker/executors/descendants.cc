#include "worker/executors/descendants.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace fleetsweep {
namespace {

constexpr int kMaxRounds = 16;  // depth of escaped trees handled per call
constexpr char kTagVar[] = "FLEETSWEEP_SPAWN=";

std::mutex& SpawnMutex() {
  static std::mutex mu;
  return mu;
}

std::atomic<uint64_t> g_owned_ended{0};

std::map<pid_t, std::string>& Owned() {  // pid -> tag; guarded by SpawnMutex
  static std::map<pid_t, std::string> owned;
  return owned;
}

// The whole of a small /proc file, read with read(2): a process can vanish between readdir and
// the read (ESRCH), which std::filebuf reports by throwing. "" when unreadable; *opened (when
// given) says whether the file could be opened at all.
std::string ReadProcFile(const std::string& path, bool* opened = nullptr) {
  std::string out;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (opened) *opened = fd >= 0;
  if (fd < 0) return out;
  char buf[4096];
  while (out.size() < (1u << 20)) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

struct ChildProc {
  pid_t pid;
  bool zombie;
};

// The child's state from /proc/PID/stat, when its parent is still this process.
bool ReadChild(pid_t self, long pid, ChildProc* out) {
  const std::string stat = ReadProcFile("/proc/" + std::to_string(pid) + "/stat");
  size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 4 >= stat.size()) return false;
  char state = stat[close + 2];
  long ppid = std::strtol(stat.c_str() + close + 4, nullptr, 10);
  if (ppid != self) return false;
  *out = {static_cast<pid_t>(pid), state == 'Z' || state == 'X'};
  return true;
}

// The numeric entries of a /proc directory.
std::vector<long> NumericEntries(const char* dir) {
  std::vector<long> out;
  DIR* d = opendir(dir);
  if (d == nullptr) return out;
  while (struct dirent* e = readdir(d)) {
    char* end = nullptr;
    long n = std::strtol(e->d_name, &end, 10);
    if (n > 0 && *end == '\0') out.push_back(n);
  }
  closedir(d);
  return out;
}

// Children listed by /proc/self/task/TID/children of every thread (a re-parented orphan is the
// child of one of them): O(children), not O(processes on the machine). false when the kernel
// lacks that file (CONFIG_PROC_CHILDREN).
bool ChildrenFromTasks(std::vector<long>* pids) {
  bool any_file = false;
  for (long tid : NumericEntries("/proc/self/task")) {
    const std::string path = "/proc/self/task/" + std::to_string(tid) + "/children";
    bool opened = false;
    const std::string list = ReadProcFile(path, &opened);
    if (!opened) continue;  // the thread ended, or no such file
    any_file = true;
    char* p = const_cast<char*>(list.c_str());
    while (*p != '\0') {
      char* end = nullptr;
      long pid = std::strtol(p, &end, 10);
      if (end == p) break;
      if (pid > 0) pids->push_back(pid);
      p = end;
    }
  }
  return any_file;
}

// This process's direct children: from the tasks' children files, else (no such files) from a
// scan of every /proc/PID/stat (ppid and state).
std::vector<ChildProc> DirectChildren() {
  std::vector<ChildProc> out;
  const pid_t self = getpid();
  std::vector<long> pids;
  if (!ChildrenFromTasks(&pids)) pids = NumericEntries("/proc");
  for (long pid : pids) {
    ChildProc c;
    if (ReadChild(self, pid, &c)) out.push_back(c);
  }
  return out;
}

// The FLEETSWEEP_SPAWN tag in the process's environment ("" when none or unreadable).
std::string TagOf(pid_t pid) {
  const std::string environ = ReadProcFile("/proc/" + std::to_string(pid) + "/environ");
  size_t pos = 0;
  while (pos < environ.size()) {
    size_t end = environ.find('\0', pos);
    if (end == std::string::npos) end = environ.size();
    if (environ.compare(pos, sizeof(kTagVar) - 1, kTagVar) == 0) {
      return environ.substr(pos + sizeof(kTagVar) - 1, end - pos - (sizeof(kTagVar) - 1));
    }
    pos = end + 1;
  }
  return "";
}

bool TagIsLive(const std::string& tag) {
  if (tag.empty()) return false;
  for (const auto& [pid, t] : Owned()) {
    if (t == tag) return true;
  }
  return false;
}

void Reap(pid_t pid, int flags) {
  while (waitpid(pid, nullptr, flags) < 0 && errno == EINTR) {
  }
}

}  // namespace

bool BecomeSubreaper() { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0; }

std::string NewSpawnTag() {
  static std::atomic<uint64_t> next{1};
  return std::to_string(getpid()) + "-" + std::to_string(next.fetch_add(1));
}

void LockSpawns() { SpawnMutex().lock(); }
void UnlockSpawns() { SpawnMutex().unlock(); }

void RegisterOwned(pid_t pid, const std::string& tag) { Owned()[pid] = tag; }

void ForgetOwned(pid_t pid) {
  std::lock_guard<std::mutex> lock(SpawnMutex());
  if (Owned().erase(pid) > 0) g_owned_ended.fetch_add(1);
}

uint64_t OwnedChildrenEnded() { return g_owned_ended.load(); }

int ReapEscaped() {
  int killed = 0;
  for (int round = 0; round < kMaxRounds; ++round) {
    std::lock_guard<std::mutex> lock(SpawnMutex());  // no spawn between the scan and the reaps
    int acted = 0;
    for (const ChildProc& c : DirectChildren()) {
      if (Owned().count(c.pid)) continue;
      if (!c.zombie && TagIsLive(TagOf(c.pid))) continue;
      if (!c.zombie) {
        kill(c.pid, SIGKILL);
        ++killed;
      }
      Reap(c.pid, 0);  // a zombie, or SIGKILLed: returns at once
      ++acted;
    }
    if (acted == 0) break;
  }
  return killed;
}

}  // namespace fleetsweep
