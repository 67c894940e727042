#include "worker/executors/live_child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "common/util/sigpipe_guard.h"
#include "worker/executors/descendants.h"

namespace fleetsweep {
namespace {

using Clock = LiveChild::Clock;

void CloseFd(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

int MillisUntil(Clock::time_point t) {
  if (t == Clock::time_point::max()) return -1;
  auto now = Clock::now();
  if (t <= now) return 0;
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(t - now).count();
  return static_cast<int>(std::min<int64_t>((us + 999) / 1000, 1 << 30));
}

bool Exited(pid_t pid) {
  siginfo_t info;
  memset(&info, 0, sizeof(info));
  return waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

Clock::time_point After(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace

std::unique_ptr<LiveChild> LiveChild::Start(const ChildSpec& spec, std::string* launch_error) {
  Spawned sp = SpawnChild(spec, /*with_stdin_pipe=*/true);
  if (!sp.launch_error.empty()) {
    *launch_error = sp.launch_error;
    return nullptr;
  }
  // Writes must never block the slot forever: the stdin pipe is non-blocking, WriteLine polls.
  fcntl(sp.stdin_fd, F_SETFL, fcntl(sp.stdin_fd, F_GETFL) | O_NONBLOCK);
  return std::unique_ptr<LiveChild>(new LiveChild(std::move(sp)));
}

LiveChild::~LiveChild() { Terminate(2.0); }

bool LiveChild::exited() { return reaped_ || Exited(sp_.pid); }

bool LiveChild::WriteLine(const std::string& line, Clock::time_point deadline) {
  if (sp_.stdin_fd < 0) return false;
  std::string data = line + "\n";
  ScopedSigpipeGuard no_sigpipe;  // a dead child's pipe: EPIPE below, never a fatal signal
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = write(sp_.stdin_fd, data.data() + off, data.size() - off);
    if (n > 0) {
      off += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      struct pollfd p = {sp_.stdin_fd, POLLOUT, 0};
      int timeout = MillisUntil(deadline);
      if (timeout == 0 || poll(&p, 1, timeout) == 0) return false;
      if (p.revents & (POLLERR | POLLHUP)) {
        CloseFd(&sp_.stdin_fd);
        return false;
      }
      continue;
    }
    CloseFd(&sp_.stdin_fd);  // EPIPE: the child closed its stdin or died
    return false;
  }
  return true;
}

void LiveChild::ReadReady(int fd, OutputStream* stream) {
  char buf[64 * 1024];
  int* own = fd == sp_.stdout_fd ? &sp_.stdout_fd : &sp_.stderr_fd;
  ssize_t n = read(fd, buf, sizeof buf);
  if (n > 0) {
    if (stream) stream->Append(buf, static_cast<size_t>(n));
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    CloseFd(own);
  }
}

LiveChild::Wake LiveChild::Pump(OutputStream* out, OutputStream* err, const bool* stop,
                                Clock::time_point deadline, int cancel_fd) {
  while (true) {
    if (stop && *stop) return Wake::kStop;
    bool exited_now = reaped_ || (sp_.pidfd < 0 && Exited(sp_.pid));
    struct pollfd fds[4];
    int n = 0, out_i = -1, err_i = -1, pid_i = -1, cancel_i = -1;
    if (sp_.stdout_fd >= 0) fds[out_i = n++] = {sp_.stdout_fd, POLLIN, 0};
    if (sp_.stderr_fd >= 0) fds[err_i = n++] = {sp_.stderr_fd, POLLIN, 0};
    if (sp_.pidfd >= 0 && !reaped_) fds[pid_i = n++] = {sp_.pidfd, POLLIN, 0};
    if (cancel_fd >= 0) fds[cancel_i = n++] = {cancel_fd, POLLIN, 0};
    if (exited_now || (out_i < 0 && err_i < 0 && pid_i < 0)) {
      // Gone (or every pipe closed): collect what is left, then report the exit.
      WaitExit(After(0.5), out, err);
      return Wake::kExited;
    }
    int timeout = MillisUntil(deadline);
    if (sp_.pidfd < 0 && (timeout < 0 || timeout > 50)) timeout = 50;  // no pidfd: tick
    int ready = poll(fds, n, timeout);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0 && Clock::now() >= deadline) return Wake::kDeadline;
    if (cancel_i >= 0 && (fds[cancel_i].revents & POLLIN)) return Wake::kCancelled;
    // Output first: lines printed just before an exit belong to this execution.
    if (out_i >= 0 && fds[out_i].revents) ReadReady(fds[out_i].fd, out);
    if (err_i >= 0 && fds[err_i].revents) ReadReady(fds[err_i].fd, err);
    if (stop && *stop) return Wake::kStop;
    if (pid_i >= 0 && (fds[pid_i].revents & POLLIN)) {
      WaitExit(After(0.5), out, err);
      return Wake::kExited;
    }
  }
}

void LiveChild::Drain(OutputStream* out, OutputStream* err) {
  for (int round = 0; round < 64; ++round) {
    struct pollfd fds[2];
    int n = 0;
    if (sp_.stdout_fd >= 0) fds[n++] = {sp_.stdout_fd, POLLIN, 0};
    if (sp_.stderr_fd >= 0) fds[n++] = {sp_.stderr_fd, POLLIN, 0};
    if (n == 0 || poll(fds, n, 0) <= 0) return;
    for (int i = 0; i < n; ++i) {
      if (fds[i].revents) ReadReady(fds[i].fd, fds[i].fd == sp_.stdout_fd ? out : err);
    }
  }
}

bool LiveChild::WaitExit(Clock::time_point until, OutputStream* out, OutputStream* err) {
  while (true) {
    if (Exited(sp_.pid) && sp_.stdout_fd < 0 && sp_.stderr_fd < 0) return true;
    struct pollfd fds[3];
    int n = 0;
    if (sp_.stdout_fd >= 0) fds[n++] = {sp_.stdout_fd, POLLIN, 0};
    if (sp_.stderr_fd >= 0) fds[n++] = {sp_.stderr_fd, POLLIN, 0};
    bool pid_polled = sp_.pidfd >= 0 && !Exited(sp_.pid);
    if (pid_polled) fds[n++] = {sp_.pidfd, POLLIN, 0};
    int timeout = MillisUntil(until);
    if (sp_.pidfd < 0 && (timeout < 0 || timeout > 50)) timeout = 50;
    if (n == 0) {
      if (Exited(sp_.pid)) return true;
      if (timeout == 0) return false;
      usleep(static_cast<useconds_t>(std::min(timeout, 50)) * 1000);  // no pidfd: rare fallback
      continue;
    }
    int ready = poll(fds, n, timeout);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return Exited(sp_.pid) && Clock::now() < until;
    for (int i = 0; i < n; ++i) {
      if (fds[i].revents == 0 || fds[i].fd == sp_.pidfd) continue;
      ReadReady(fds[i].fd, fds[i].fd == sp_.stdout_fd ? out : err);
    }
    if (Exited(sp_.pid) && Clock::now() >= until) return true;
  }
}

ChildResult LiveChild::Terminate(double grace, OutputStream* out, OutputStream* err) {
  if (reaped_) return result_;
  CloseFd(&sp_.stdin_fd);
  bool gone = Exited(sp_.pid);
  if (!gone) {
    WaitExit(After(grace), out, err);
    gone = Exited(sp_.pid);
  }
  if (!gone) {
    killpg(sp_.pid, SIGTERM);
    WaitExit(After(grace), out, err);
  }
  killpg(sp_.pid, SIGKILL);  // the rest of the group (and the child if it ignored SIGTERM)
  if (out || err) Drain(out, err);
  CloseFd(&sp_.stdout_fd);
  CloseFd(&sp_.stderr_fd);
  CloseFd(&sp_.pidfd);
  int status = 0;
  while (waitpid(sp_.pid, &status, 0) < 0 && errno == EINTR) {
  }
  ForgetOwned(sp_.pid);
  reaped_ = true;
  if (WIFEXITED(status)) {
    result_.exited = true;
    result_.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result_.term_signal = WTERMSIG(status);
  }
  return result_;
}

}  // namespace fleetsweep
