#include "worker/executors/child_process.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "worker/executors/descendants.h"

namespace fleetsweep {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kDrainAfterExitSeconds = 0.5;  // output still in flight after the child exits
constexpr double kReadAfterGroupKillSeconds = 1.0;

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

void CloseFd(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

Clock::duration Seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// Milliseconds from now until t, rounded up; -1 (wait forever) for time_point::max().
int MillisUntil(Clock::time_point t, Clock::time_point now) {
  if (t == Clock::time_point::max()) return -1;
  if (t <= now) return 0;
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(t - now).count();
  return static_cast<int>(std::min<int64_t>((us + 999) / 1000, 1 << 30));
}

int PidFdOpen(pid_t pid) {
#ifdef SYS_pidfd_open
  long fd = syscall(SYS_pidfd_open, pid, 0);
  if (fd >= 0) {
    fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
    return static_cast<int>(fd);
  }
#endif
  (void)pid;
  return -1;
}

bool ChildExited(pid_t pid) {
  siginfo_t info;
  memset(&info, 0, sizeof(info));
  return waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

bool FdReadable(int fd) {
  if (fd < 0) return false;
  struct pollfd p = {fd, POLLIN, 0};
  return poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

// Async-signal-safe error report from the child: errno and a stage byte.
[[noreturn]] void ChildFail(int fd, char stage) {
  int e = errno;
  char buf[1 + sizeof(int)];
  buf[0] = stage;
  memcpy(buf + 1, &e, sizeof(int));
  ssize_t ignored = write(fd, buf, sizeof(buf));
  (void)ignored;
  _exit(127);
}

void CloseFrom(int lo, int hi_inclusive, long max_fd) {
  if (lo > hi_inclusive) return;
#ifdef SYS_close_range
  if (syscall(SYS_close_range, static_cast<unsigned>(lo), static_cast<unsigned>(hi_inclusive), 0) ==
      0) {
    return;
  }
#endif
  long hi = hi_inclusive < max_fd ? hi_inclusive : max_fd;
  for (long fd = lo; fd <= hi; ++fd) close(static_cast<int>(fd));
}

// Runs in the forked child: only async-signal-safe calls.
[[noreturn]] void ChildMain(const ChildSpec& spec, char* const* argv, char* const* envp, int in_r,
                            int out_w, int err_w, int report_w, long max_fd) {
  setpgid(0, 0);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl;
  memset(&dfl, 0, sizeof(dfl));
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s) {
    if (s != SIGKILL && s != SIGSTOP) sigaction(s, &dfl, nullptr);
  }
  if (dup2(in_r, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0) ChildFail(report_w, 'd');
  if (chdir(spec.workdir.c_str()) != 0) ChildFail(report_w, 'c');
  CloseFrom(3, report_w - 1, max_fd);
  CloseFrom(report_w + 1, 0x7fffffff, max_fd);
  execve(spec.path.c_str(), argv, envp);
  ChildFail(report_w, 'e');
}

}  // namespace

StatusOr<std::string> ResolveExecutable(const std::string& argv0, const std::string& path_env,
                                        const std::string& workdir) {
  namespace fs = std::filesystem;
  if (argv0.find('/') != std::string::npos) {
    fs::path p(argv0);
    if (p.is_relative()) p = fs::path(workdir) / p;
    return p.lexically_normal().string();
  }
  std::stringstream dirs(path_env);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) dir = ".";
    fs::path p = fs::path(dir) / argv0;
    if (p.is_relative()) p = fs::path(workdir) / p;
    struct stat st;
    if (stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0) {
      return p.lexically_normal().string();
    }
  }
  return Status::NotFound("'" + argv0 + "' not found in PATH (" + path_env + ")");
}

namespace {

// /sys/fs/cgroup/<this process's cgroup>/memory.events, resolved once per process (an execution
// reads the counter before and after it runs); "" when cgroup v2 is not mounted there.
const std::string& MemoryEventsPath() {
  static const std::string path = [] {
    std::ifstream cg("/proc/self/cgroup");
    std::string line, rel;
    while (std::getline(cg, line)) {
      if (line.rfind("0::", 0) == 0) rel = line.substr(3);
    }
    if (rel.empty()) return std::string();
    std::string p = "/sys/fs/cgroup" + rel + "/memory.events";
    return access(p.c_str(), R_OK) == 0 ? p : std::string();
  }();
  return path;
}

}  // namespace

int64_t CgroupOomKills() {
  const std::string& path = MemoryEventsPath();
  if (path.empty()) return -1;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[1024];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  std::istringstream events(buf);
  std::string key;
  int64_t value = 0;
  while (events >> key >> value) {
    if (key == "oom_kill") return value;
  }
  return -1;
}

Spawned SpawnChild(const ChildSpec& spec, bool with_stdin_pipe) {
  Spawned s;
  std::vector<char*> argv, envp;
  for (const std::string& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::string tag = NewSpawnTag();
  const std::string tag_var = "FLEETSWEEP_SPAWN=" + tag;  // descendants carry it (descendants.h)
  for (const std::string& e : spec.env) {
    if (e.rfind("FLEETSWEEP_SPAWN=", 0) != 0) envp.push_back(const_cast<char*>(e.c_str()));
  }
  envp.push_back(const_cast<char*>(tag_var.c_str()));
  envp.push_back(nullptr);
  long max_fd = sysconf(_SC_OPEN_MAX);
  if (max_fd < 0 || max_fd > 65536) max_fd = 65536;

  int in_p[2] = {-1, -1}, out_p[2] = {-1, -1}, err_p[2] = {-1, -1}, rep_p[2] = {-1, -1};
  bool ok = true;
  if (with_stdin_pipe) {
    ok = pipe2(in_p, O_CLOEXEC) == 0;
  } else {
    in_p[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
    ok = in_p[0] >= 0;
  }
  if (!ok || pipe2(out_p, O_CLOEXEC) != 0 || pipe2(err_p, O_CLOEXEC) != 0 ||
      pipe2(rep_p, O_CLOEXEC) != 0) {
    s.launch_error = std::string("pipe: ") + strerror(errno);
    for (int* fd :
         {&in_p[0], &in_p[1], &out_p[0], &out_p[1], &err_p[0], &err_p[1], &rep_p[0], &rep_p[1]})
      CloseFd(fd);
    return s;
  }
  LockSpawns();  // until registered: ReapEscaped must not take this child for an escaped one
  pid_t pid = fork();
  if (pid == 0)
    ChildMain(spec, argv.data(), envp.data(), in_p[0], out_p[1], err_p[1], rep_p[1], max_fd);
  int fork_errno = errno;
  if (pid > 0) RegisterOwned(pid, tag);
  UnlockSpawns();
  for (int* fd : {&in_p[0], &out_p[1], &err_p[1], &rep_p[1]}) CloseFd(fd);
  if (pid < 0) {
    s.launch_error = std::string("fork: ") + strerror(fork_errno);
    for (int* fd : {&in_p[1], &out_p[0], &err_p[0], &rep_p[0]}) CloseFd(fd);
    return s;
  }
  setpgid(pid, pid);  // also in the child: whichever runs first wins the race

  // Wait for exec: EOF means execve succeeded (the report pipe is close-on-exec).
  char report[1 + sizeof(int)];
  ssize_t got;
  do {
    got = read(rep_p[0], report, sizeof(report));
  } while (got < 0 && errno == EINTR);
  CloseFd(&rep_p[0]);
  if (got == static_cast<ssize_t>(sizeof(report))) {
    int e;
    memcpy(&e, report + 1, sizeof(int));
    const char* stage = report[0] == 'c' ? "chdir " : report[0] == 'd' ? "dup2 " : "execve ";
    std::string what = report[0] == 'c' ? spec.workdir : report[0] == 'd' ? "" : spec.path;
    s.launch_error = stage + what + ": " + strerror(e);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    ForgetOwned(pid);
    for (int* fd : {&in_p[1], &out_p[0], &err_p[0]}) CloseFd(fd);
    return s;
  }
  s.pid = pid;
  s.pidfd = PidFdOpen(pid);
  s.stdin_fd = in_p[1];
  s.stdout_fd = out_p[0];
  s.stderr_fd = err_p[0];
  return s;
}

ChildResult RunChild(const ChildSpec& spec, OutputStream* out, OutputStream* err) {
  ChildResult result;
  auto start = Clock::now();
  Spawned sp = SpawnChild(spec, /*with_stdin_pipe=*/false);
  if (!sp.launch_error.empty()) {
    result.launch_error = sp.launch_error;
    result.duration_seconds = SecondsSince(start);
    return result;
  }
  const pid_t pid = sp.pid;
  struct pollfd fds[4];
  int out_fd = sp.stdout_fd, err_fd = sp.stderr_fd;
  OutputStream* streams[2] = {out, err};
  std::vector<char> buf(256 * 1024);
  bool exited = false, killing = false, sent_kill = false, group_killed = false;
  Clock::time_point exit_time, kill_deadline, group_kill_time;
  const bool have_deadline = spec.timeout_seconds > 0;
  const Clock::time_point deadline =
      start + std::chrono::duration_cast<Clock::duration>(
                  std::chrono::duration<double>(have_deadline ? spec.timeout_seconds : 0));
  while (true) {
    if (!exited && ChildExited(pid)) {
      exited = true;
      exit_time = Clock::now();
    }
    Clock::time_point now = Clock::now();
    if (!exited && !killing) {
      bool late = have_deadline && now >= deadline;
      bool cancel = (spec.cancel && spec.cancel->load()) || FdReadable(spec.cancel_fd);
      if (late || cancel) {
        result.timed_out = late;
        result.cancelled = !late;
        killpg(pid, SIGTERM);
        killing = true;
        kill_deadline = now + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(spec.grace_seconds));
      }
    }
    if (killing && !exited && !sent_kill && now >= kill_deadline) {
      killpg(pid, SIGKILL);
      sent_kill = true;
    }
    bool closed = out_fd < 0 && err_fd < 0;
    if (exited) {
      if (!group_killed && (closed || std::chrono::duration<double>(now - exit_time).count() >=
                                          kDrainAfterExitSeconds)) {
        killpg(pid, SIGKILL);  // leftovers of the group; the zombie still holds the pgid
        group_killed = true;
        group_kill_time = now;
      }
      if (closed) break;
      if (group_killed && std::chrono::duration<double>(now - group_kill_time).count() >=
                              kReadAfterGroupKillSeconds) {
        break;  // a process that left the group still holds the pipes: stop reading
      }
    }
    // Wait for output, the exit (pidfd), a cancel, or the next timer: no fixed-interval polling
    // unless the kernel lacks pidfd_open or the caller gave only the atomic cancel flag.
    Clock::time_point wake = Clock::time_point::max();
    if (have_deadline && !killing) wake = std::min(wake, deadline);
    if (killing && !sent_kill) wake = std::min(wake, kill_deadline);
    if (exited) {
      wake = std::min(wake, group_killed ? group_kill_time + Seconds(kReadAfterGroupKillSeconds)
                                         : exit_time + Seconds(kDrainAfterExitSeconds));
    }
    int timeout_ms = MillisUntil(wake, now);
    bool need_tick = (sp.pidfd < 0 && !exited) || (spec.cancel && spec.cancel_fd < 0 && !killing);
    if (need_tick && (timeout_ms < 0 || timeout_ms > 50)) timeout_ms = 50;
    int nfds = 0;
    int* fd_of[4] = {nullptr, nullptr, nullptr, nullptr};
    for (int i = 0; i < 2; ++i) {
      int* fd = i == 0 ? &out_fd : &err_fd;
      if (*fd < 0) continue;
      fds[nfds] = {*fd, POLLIN, 0};
      fd_of[nfds++] = fd;
    }
    if (sp.pidfd >= 0 && !exited) fds[nfds++] = {sp.pidfd, POLLIN, 0};
    if (spec.cancel_fd >= 0 && !killing) fds[nfds++] = {spec.cancel_fd, POLLIN, 0};
    int ready = poll(fds, nfds, timeout_ms);
    if (ready <= 0) continue;
    for (int i = 0; i < nfds; ++i) {
      if (fds[i].revents == 0 || fd_of[i] == nullptr) continue;
      ssize_t n = read(fds[i].fd, buf.data(), buf.size());
      if (n > 0) {
        streams[fd_of[i] == &out_fd ? 0 : 1]->Append(buf.data(), static_cast<size_t>(n));
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        CloseFd(fd_of[i]);
      }
    }
  }
  CloseFd(&out_fd);
  CloseFd(&err_fd);
  CloseFd(&sp.pidfd);
  out->Finish();
  err->Finish();
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ForgetOwned(pid);
  if (WIFEXITED(status)) {
    result.exited = true;
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.term_signal = WTERMSIG(status);
  }
  result.duration_seconds = SecondsSince(start);
  return result;
}

}  // namespace fleetsweep
