// What the session tests share (session_test.cc: the session's life; session_gate_test.cc: the
// device's timing gate): the scripted fake benchmark's section (tests/data/bench/
// fake_session_bench.py), requests for it, and a reader of its timing log.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/support/source_dir.h"
#include "worker/executors/session.h"

namespace fleetsweep::session_testing {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using fleetsweep::testing::SourceDir;

// The fake benchmark's section. A generous timeout by default: on a loaded 2-core CI machine a
// Python start can take seconds; the timeout tests set their own short one.
inline std::string Section(const std::string& extra = "", const std::string& session_extra = "",
                           int timeout = 30) {
  return "type: exec\ncommand: [python3, \"" + SourceDir() +
         "/tests/data/bench/fake_session_bench.py\", \"{MODEL}\"]\ntimeout: " +
         std::to_string(timeout) + "\n" + extra + "session: {mode: persistent" + session_extra +
         "}\n";
}

inline ExecutionRequest Request(const std::string& act, const std::string& id,
                                const std::string& model = "m1") {
  ExecutionRequest r;
  r.params["ACT"] = Value::FromText(act);
  r.params["MODEL"] = Value::FromText(model);
  r.params["VARIANT"] = Value::FromText(act);
  r.attempt_id = id;
  r.timeout_seconds = 30;
  return r;
}

inline std::string Info(const v1::Attempt& a, const std::string& key) {
  auto it = a.info().find(key);
  return it == a.info().end() ? "" : it->second;
}

inline bool Alive(pid_t pid) { return kill(pid, 0) == 0; }

inline bool GoneWithin(pid_t pid, double seconds) {
  auto until = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < until) {
    if (!Alive(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !Alive(pid);
}

// Reads a FAKE_TIMING_LOG ("<pid> start|end <ns>" lines): how many lines it holds, and the most
// sections open at once.
struct LoggedSections {
  size_t lines = 0;
  int most_open = 0;
};
inline LoggedSections ReadTimingLog(const fs::path& log) {
  std::ifstream f(log);
  std::string pid, what;
  long long ns;
  std::vector<std::pair<long long, int>> events;
  while (f >> pid >> what >> ns) events.emplace_back(ns, what == "start" ? 1 : -1);
  std::sort(events.begin(), events.end());
  LoggedSections r;
  r.lines = events.size();
  int open = 0;
  for (const auto& [t, d] : events) {
    open += d;
    r.most_open = std::max(r.most_open, open);
  }
  return r;
}

class SessionTest : public ::testing::Test {
 protected:
  std::unique_ptr<Launcher> Make(const std::string& section,
                                 std::vector<std::string> restart = {}) {
    auto l = Launcher::Create(section, restart);
    EXPECT_TRUE(l.ok()) << l.status().ToString();
    return l.ok() ? std::move(l).value() : nullptr;
  }
};

}  // namespace fleetsweep::session_testing
