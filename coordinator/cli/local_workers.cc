#include "coordinator/cli/local_workers.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "spdlog/spdlog.h"

namespace fleetsweep {

Status LocalWorkers::StartAll(const std::string& endpoint) {
  endpoint_ = endpoint;
  pids_.assign(options_.count, -1);
  for (int i = 0; i < options_.count; ++i) FS_RETURN_IF_ERROR(Start(i));
  return Status::Ok();
}

Status LocalWorkers::Start(int i) {
  std::vector<std::string> args = {
      options_.worker_binary,
      "--coordinator",
      endpoint_,
      "--slots",
      std::to_string(options_.slots_per_worker),
      "--insecure",
      "--exit-when-finished",
      "--give-up-after",
      "60",
      "--node",
      "local-" + std::to_string(i),
      "--devices",
      options_.devices.empty() ? std::to_string(i) : options_.devices[i % options_.devices.size()]};
  for (const auto& a : options_.extra_args) args.push_back(a);
  std::string log = options_.log_dir + "/worker-" + std::to_string(i) + ".log";
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return Status::Internal(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // Die with the parent (SIGTERM: the worker's normal shutdown, which cancels its executions):
    // a SIGKILLed `fleetsweep run` leaves no worker behind. A parent that died before prctl is
    // caught by the getppid check.
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) _exit(0);
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    std::fprintf(stderr, "cannot exec %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  pids_[i] = pid;
  return Status::Ok();
}

void LocalWorkers::Supervise(bool restart) {
  for (int i = 0; i < static_cast<int>(pids_.size()); ++i) {
    if (pids_[i] <= 0) continue;
    int st = 0;
    pid_t r = waitpid(pids_[i], &st, WNOHANG);
    if (r != pids_[i]) continue;
    pids_[i] = -1;
    bool clean = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (!restart) continue;
    std::string how = WIFSIGNALED(st) ? "killed by signal " + std::to_string(WTERMSIG(st))
                                      : "exited with code " + std::to_string(WEXITSTATUS(st));
    if (restarts_ >= options_.max_restarts) {
      spdlog::error("local worker {} {}; restart limit reached (see {}/worker-{}.log)", i, how,
                    options_.log_dir, i);
      continue;
    }
    if (!clean) {
      spdlog::warn("local worker {} {}; restarting it (its leases go back to the queue)", i, how);
    }
    ++restarts_;
    Status s = Start(i);
    if (!s.ok()) spdlog::error("cannot restart worker {}: {}", i, s.message());
  }
}

void LocalWorkers::TermAll() {
  for (auto p : pids_) {
    if (p > 0) kill(p, SIGTERM);
  }
}

void LocalWorkers::StopAll(double grace) {
  auto alive = [&] {
    int n = 0;
    for (auto& p : pids_) {
      if (p <= 0) continue;
      int st;
      if (waitpid(p, &st, WNOHANG) == p)
        p = -1;
      else
        ++n;
    }
    return n;
  };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace);
  while (alive() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (auto p : pids_) {
    if (p > 0) kill(p, SIGTERM);
  }
  deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (alive() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (auto& p : pids_) {
    if (p > 0) {
      kill(p, SIGKILL);
      waitpid(p, nullptr, 0);
      p = -1;
    }
  }
}

}  // namespace fleetsweep
