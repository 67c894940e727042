#include "common/util/process.h"

#include <signal.h>
#include <unistd.h>

#include "common/util/sigpipe_guard.h"

namespace fleetsweep {
namespace {

std::atomic<bool> g_stop{false};
void OnStopSignal(int) { g_stop.store(true); }

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

}  // namespace fleetsweep
