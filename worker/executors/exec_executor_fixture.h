// The ExecExecutor tests' fixture and helpers (exec_executor_test.cc,
// exec_executor_process_test.cc, exec_executor_security_test.cc): real child processes running
// tests/data/bench/fake_bench.sh in a fresh scratch directory that TearDown removes. Test-only;
// header-only.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/source_dir.h"
#include "worker/executors/exec_executor.h"

namespace fleetsweep {
namespace exec_test {

namespace fs = std::filesystem;

using fleetsweep::testing::SourceDir;

inline std::string Script() { return SourceDir() + "/tests/data/bench/fake_bench.sh"; }

inline std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) out.push_back(line);
  return out;
}

// True once `pid` no longer exists or is a zombie (dead, waiting for its new parent to reap it).
inline bool ProcessGone(pid_t pid) {
  for (int i = 0; i < 50; ++i) {
    if (kill(pid, 0) != 0 && errno == ESRCH) return true;
    std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
    size_t paren = stat.rfind(')');
    if (paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z') {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

inline long MaxRssKb() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

class ExecExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "exec_test-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    tmp_ = tmpl;
    request_.attempt_id = "cfg1-7";
    request_.slot = 2;
    request_.device = "3";
    request_.worker_bin_dir = "/opt/fleetsweep/bin";
    request_.timeout_seconds = 30;
    request_.scratch_root = tmp_;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(tmp_, ec);
  }
  // Runs fake_bench.sh MODE ARGS... through /bin/sh.
  v1::Attempt RunMode(const std::vector<std::string>& args, double grace = 0.5) {
    spec_.command = {"/bin/sh", Script()};
    spec_.command.insert(spec_.command.end(), args.begin(), args.end());
    ExecExecutor exec(spec_, grace);
    return exec.Run(request_);
  }
  std::string tmp_;
  ExecSpec spec_;
  ExecutionRequest request_;
};

}  // namespace exec_test
}  // namespace fleetsweep
