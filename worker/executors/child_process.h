// RunChild: runs one program without a shell, in its own process group, with a deadline.
//
// The child gets stdin from /dev/null, stdout and stderr on pipes read concurrently with poll()
// (a child that fills one pipe never deadlocks), its own process group (setpgid), default signal
// dispositions and an empty signal mask, and no file descriptor of the parent except 0-2. An exec
// failure (ENOENT, EACCES, ENOEXEC, chdir failure) travels back over a close-on-exec pipe and is
// returned as launch_error. At the deadline, or when *cancel becomes true, the whole group gets
// SIGTERM, then SIGKILL after `grace_seconds`. When the child exits, anything left in its group
// (background grandchildren) gets SIGKILL before the child is reaped, so no process and no
// zombie outlives RunChild. A process that leaves the group (setsid) is found by ReapEscaped
// (descendants.h): every child is registered as owned and carries FLEETSWEEP_SPAWN=<tag> in its
// environment. Never throws.
//
// Thread-safety: RunChild may run concurrently in several threads (all descriptors it creates
// are close-on-exec, so concurrent children do not inherit each other's pipes).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "worker/executors/output_stream.h"

namespace fleetsweep {

struct ChildSpec {
  std::string path;               // absolute (or workdir-relative with a '/') executable
  std::vector<std::string> argv;  // argv[0] as given by the user
  std::vector<std::string> env;   // "NAME=value", the complete environment
  std::string workdir;            // the child's working directory
  double timeout_seconds = 600;   // <= 0: no deadline
  double grace_seconds = 2;       // SIGTERM -> SIGKILL
  const std::atomic<bool>* cancel = nullptr;
  int cancel_fd = -1;  // optional: becomes readable on cancel (wakes the wait at once)
};

struct ChildResult {
  std::string launch_error;  // non-empty: never ran
  bool timed_out = false;
  bool cancelled = false;
  bool exited = false;
  int exit_code = -1;   // -1 unless exited normally
  int term_signal = 0;  // the signal that ended it, 0 if none
  double duration_seconds = 0;
};

// Runs the child; its output goes to `out` and `err` as it streams.
ChildResult RunChild(const ChildSpec& spec, OutputStream* out, OutputStream* err);

// A started child: its pid, a pidfd (readable once it exits; -1 on kernels without pidfd_open),
// and the parent's ends of its pipes (close-on-exec). The caller owns every descriptor and must
// reap the pid, then call ForgetOwned(pid) (descendants.h).
struct Spawned {
  int pid = -1;
  int pidfd = -1;
  int stdin_fd = -1;  // write end of the child's stdin (only with_stdin_pipe; else -1)
  int stdout_fd = -1;
  int stderr_fd = -1;
  std::string launch_error;  // non-empty: nothing is running and every fd is -1
};

// Forks and execs spec (no shell, own process group, default signals, no inherited fds). Stdin
// is /dev/null, or a pipe when with_stdin_pipe. An exec failure is returned as launch_error
// (the child is already reaped then). spec.timeout_seconds and cancel are not used here.
Spawned SpawnChild(const ChildSpec& spec, bool with_stdin_pipe);

// Resolves argv0 like execvp: a name with '/' is taken as is (made absolute against workdir when
// relative, lexically normalised, existence left to exec); a bare name is searched in `path_env`
// (":"-separated) for an executable regular file. kNotFound when the search finds nothing.
StatusOr<std::string> ResolveExecutable(const std::string& argv0, const std::string& path_env,
                                        const std::string& workdir);

// The oom_kill counter of this process's cgroup (v2 memory.events), or -1 when unreadable. The
// file's path is resolved on the first call and kept (a worker does not change cgroups); a read
// costs one open/read/close, none where the file did not exist at the first call.
int64_t CgroupOomKills();

}  // namespace fleetsweep
