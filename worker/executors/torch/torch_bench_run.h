// The one-shot runs of the real fleetsweep-torch-bench ($FLEETSWEEP_BIN) that torch_bench_test.cc
// and torch_bench_session_test.cc share: tiny CPU shapes per kernel, RunBench (the protocol lines
// of one run; a missing FLEETSWEEP_BIN or a failed popen is a test failure, not a crash),
// ExpectGoodRun and Fp (a run's fingerprint). Test-only; header-only.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace torch_bench_test {

struct BenchRun {
  int exit_code = -1;
  std::vector<nlohmann::json> lines;
  std::string raw;

  const nlohmann::json* First(const std::string& type) const {
    for (const auto& l : lines) {
      if (l.value("type", "") == type) return &l;
    }
    return nullptr;
  }
  std::string Fingerprint() const {
    const auto* f = First("fingerprint");
    return f ? (*f)["value"].get<std::string>() : "<none>";
  }
  std::string Info(const std::string& key) const {
    for (const auto& l : lines) {
      if (l.value("type", "") == "info" && l.value("key", "") == key) return l["value"];
    }
    return "<none>";
  }
  int Samples() const {
    int n = 0;
    for (const auto& l : lines) n += l.value("type", "") == "sample";
    return n;
  }
};

inline constexpr char kMoe[] = "--kernel moe --shapes M=16,K=32,N=64,E=4,topk=2";
inline constexpr char kPaged[] =
    "--kernel paged_attention --shapes "
    "num_seqs=2,num_heads=4,num_kv_heads=2,head_size=16,context_len=70";
inline constexpr char kPrefill[] =
    "--kernel prefix_prefill --shapes "
    "batch=1,num_heads=2,num_kv_heads=1,head_size=16,prefix_len=20,query_len=18";

// `env` is a prefix of NAME=VALUE assignments for the child.
inline BenchRun RunBench(const std::string& args, const std::string& env = "") {
  const char* bin = std::getenv("FLEETSWEEP_BIN");
  BenchRun r;
  if (bin == nullptr) {
    ADD_FAILURE() << "FLEETSWEEP_BIN is not set";
    return r;
  }
  const std::string cmd = env + " " + std::string(bin) +
                          "/fleetsweep-torch-bench --device cpu --threads 1 --reps 2 --warmup 0 " +
                          args + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) {
    ADD_FAILURE() << "popen failed: " << cmd;
    return r;
  }
  char buf[8192];
  while (fgets(buf, sizeof(buf), p)) {
    r.raw += buf;
    std::string line(buf);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(j.is_discarded()) << "not a JSON line: " << line;
    if (!j.is_discarded()) r.lines.push_back(j);
  }
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

inline void ExpectGoodRun(const BenchRun& r) {
  ASSERT_EQ(r.exit_code, 0) << r.raw;
  const auto* check = r.First("check");
  ASSERT_NE(check, nullptr) << r.raw;
  EXPECT_TRUE((*check)["passed"].get<bool>()) << r.raw;
  EXPECT_LE((*check)["max_rel_error"].get<double>(), (*check)["tolerance"].get<double>());
  EXPECT_EQ(r.Fingerprint().size(), 16u) << r.raw;
  EXPECT_EQ(r.Samples(), 2) << r.raw;
  EXPECT_NE(r.Info("torch_version"), "<none>");
}

inline std::string Fp(const std::string& args) {
  BenchRun r = RunBench(args);
  EXPECT_EQ(r.exit_code, 0) << r.raw;
  return r.Fingerprint();
}

}  // namespace torch_bench_test
