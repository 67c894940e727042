#include "common/util/process.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "common/util/sigpipe_guard.h"

namespace fleetsweep {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_second_code{-1};  // -1: a second signal only sets the flag again
std::atomic<const char*> g_second_message{nullptr};

// Async-signal-safe: atomics, strlen, write and _exit only.
void OnStopSignal(int) {
  const int code = g_second_code.load();
  if (code >= 0 && g_stop.load()) {
    const char* m = g_second_message.load();
    if (m != nullptr) static_cast<void>(!write(STDERR_FILENO, m, strlen(m)));
    _exit(code);
  }
  g_stop.store(true);
}

}  // namespace

std::string SelfDir() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string p(buf, static_cast<size_t>(n));
  return p.substr(0, p.find_last_of('/'));
}

const std::atomic<bool>& StopOnSignals() {
  signal(SIGINT, OnStopSignal);
  signal(SIGTERM, OnStopSignal);
  signal(SIGPIPE, SIG_IGN);
  SigpipeIgnored();
  return g_stop;
}

void ExitOnSecondStopSignal(int code, const char* message) {
  g_second_message.store(message);
  g_second_code.store(code);
}

}  // namespace fleetsweep
