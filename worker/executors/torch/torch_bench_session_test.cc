// TorchBenchSession: the real fleetsweep-torch-bench ($FLEETSWEEP_BIN) as a persistent session
// (FLEETSWEEP_SESSION=persistent, requests on stdin; serve.h): one process serves many executions
// with their own fingerprints, caches inputs per parameter value, survives failed executions and
// garbage requests, and agrees with the one-shot runs (torch_bench_run.h).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "worker/executors/torch/torch_bench_run.h"

namespace torch_bench_test {
namespace {

// One answered request of a session: the lines from the request to its `prepared` or `end`.
struct Answer {
  std::string control;  // "prepared" or "end"
  nlohmann::json attempt_id;
  std::vector<nlohmann::json> lines;  // protocol lines (no control lines)
};

struct SessionRun {
  int exit_code = -1;
  bool ready = false;
  std::vector<nlohmann::json> before_ready;
  std::vector<Answer> answers;  // in order
  std::string raw;
};

// Runs the bench with FLEETSWEEP_SESSION=persistent; `requests` (one per line) are its whole stdin.
SessionRun RunSession(const std::string& args, const std::vector<std::string>& requests,
                      const std::string& env = "") {
  SessionRun r;
  const char* bin = std::getenv("FLEETSWEEP_BIN");
  if (bin == nullptr) {
    ADD_FAILURE() << "FLEETSWEEP_BIN is not set";
    return r;
  }
  char path[] = "/tmp/torch-session-requests-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) {
    ADD_FAILURE() << "mkstemp failed";
    return r;
  }
  close(fd);
  {
    std::ofstream f(path);
    for (const auto& q : requests) f << q << "\n";
  }
  const std::string cmd = "FLEETSWEEP_SESSION=persistent " + env + " " + std::string(bin) +
                          "/fleetsweep-torch-bench --device cpu --threads 1 --reps 2 --warmup 0 " +
                          args + " < " + path + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) {
    ADD_FAILURE() << "popen failed: " << cmd;
    unlink(path);
    return r;
  }
  std::string line;
  std::vector<nlohmann::json> pending;
  char buf[8192];
  while (fgets(buf, sizeof(buf), p)) {
    r.raw += buf;
    line += buf;
    if (line.empty() || line.back() != '\n') continue;
    line.pop_back();
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    EXPECT_TRUE(j.is_object()) << "not a JSON object line: " << line;
    line.clear();
    if (!j.is_object()) continue;
    if (!j.contains("fleetsweep")) {
      pending.push_back(j);
      continue;
    }
    const std::string kind = j["fleetsweep"];
    if (kind == "ready") {
      EXPECT_FALSE(r.ready) << "two ready lines";
      r.ready = true;
      r.before_ready = std::move(pending);
    } else {
      r.answers.push_back(
          Answer{kind, j.value("attempt_id", nlohmann::json()), std::move(pending)});
    }
    pending.clear();
  }
  if (!r.ready) r.before_ready = pending;
  int status = pclose(p);
  unlink(path);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::string Prepare(const std::string& id, const nlohmann::json& params) {
  return nlohmann::json{{"fleetsweep", "prepare"}, {"attempt_id", id}, {"params", params}}.dump();
}
std::string RunReq(const std::string& id) {
  return nlohmann::json{{"fleetsweep", "run"}, {"attempt_id", id}}.dump();
}

const nlohmann::json* FirstOf(const std::vector<nlohmann::json>& lines, const std::string& type) {
  for (const auto& l : lines) {
    if (l.value("type", "") == type) return &l;
  }
  return nullptr;
}
std::string InfoOf(const std::vector<nlohmann::json>& lines, const std::string& key) {
  for (const auto& l : lines) {
    if (l.value("type", "") == "info" && l.value("key", "") == key) return l["value"];
  }
  return "<none>";
}
int SamplesOf(const std::vector<nlohmann::json>& lines) {
  int n = 0;
  for (const auto& l : lines) n += l.value("type", "") == "sample";
  return n;
}

// An execution that went through: prepared (silent), then at run its lines and end.
// Returns its fingerprint.
std::string ExpectExecuted(const SessionRun& r, size_t at, const std::string& id) {
  if (at + 1 >= r.answers.size()) {
    ADD_FAILURE() << "no answers for " << id << "\n" << r.raw;
    return "<none>";
  }
  const Answer& prep = r.answers[at];
  const Answer& end = r.answers[at + 1];
  EXPECT_EQ(prep.control, "prepared") << id << "\n" << r.raw;
  EXPECT_EQ(prep.attempt_id, id);
  EXPECT_TRUE(prep.lines.empty()) << "prepare is answered by prepared alone";
  EXPECT_EQ(end.control, "end") << id;
  EXPECT_EQ(end.attempt_id, id);
  EXPECT_EQ(FirstOf(end.lines, "error"), nullptr) << r.raw;
  const auto* check = FirstOf(end.lines, "check");
  EXPECT_NE(check, nullptr) << id << "\n" << r.raw;
  if (check) {
    EXPECT_TRUE((*check)["passed"].get<bool>()) << r.raw;
  }
  EXPECT_EQ(SamplesOf(end.lines), 2) << id;
  const auto* fp = FirstOf(end.lines, "fingerprint");
  EXPECT_NE(fp, nullptr) << id;
  return fp ? (*fp)["value"].get<std::string>() : "<none>";
}

// A failed request: error line of `cls`, then end (no prepared).
void ExpectFailed(const SessionRun& r, size_t at, const nlohmann::json& id,
                  const std::string& cls) {
  ASSERT_LT(at, r.answers.size()) << r.raw;
  const Answer& a = r.answers[at];
  EXPECT_EQ(a.control, "end") << r.raw;
  EXPECT_EQ(a.attempt_id, id) << r.raw;
  const auto* err = FirstOf(a.lines, "error");
  ASSERT_NE(err, nullptr) << r.raw;
  EXPECT_EQ((*err)["class"], cls) << r.raw;
  EXPECT_EQ(SamplesOf(a.lines), 0);
}

TEST(TorchBenchSession, OneProcessServesManyExecutionsWithTheirOwnFingerprints) {
  SessionRun r = RunSession(
      kMoe, {Prepare("a1", {{"BLOCK_SIZE_M", "8"}}), RunReq("a1"),
             Prepare("a2", {{"BLOCK_SIZE_M", "16"}}), RunReq("a2"),
             Prepare("a3", {{"BLOCK_SIZE_M", "8"}}), RunReq("a3"),
             Prepare("a4", {{"BLOCK_SIZE_M", "4"}, {"BLOCK_SIZE_N", "16"}}), RunReq("a4")});
  EXPECT_EQ(r.exit_code, 0) << r.raw;  // end of stdin ends the session
  ASSERT_TRUE(r.ready) << r.raw;
  EXPECT_NE(InfoOf(r.before_ready, "torch_version"), "<none>");  // session info before ready
  EXPECT_EQ(InfoOf(r.before_ready, "kernel"), "fused_moe");
  EXPECT_EQ(InfoOf(r.before_ready, "shapes"), "E=4,K=32,M=16,N=64,topk=2");
  ASSERT_EQ(r.answers.size(), 8u) << r.raw;
  const std::string f8 = ExpectExecuted(r, 0, "a1");
  const std::string f16 = ExpectExecuted(r, 2, "a2");
  const std::string f8again = ExpectExecuted(r, 4, "a3");
  const std::string f4n16 = ExpectExecuted(r, 6, "a4");
  EXPECT_NE(f8, f16);  // the fingerprint is each execution's own
  EXPECT_EQ(f8, f8again);
  EXPECT_NE(f4n16, f8);
  // The same configuration has the same fingerprint as in one-shot (same seeds, same trace).
  EXPECT_EQ(f8, Fp(std::string(kMoe) + " --param BLOCK_SIZE_M=8"));
  EXPECT_EQ(f4n16, Fp(std::string(kMoe) + " --param BLOCK_SIZE_M=4 --param BLOCK_SIZE_N=16"));
  // Inputs and reference are built once per session (MoE's inputs do not depend on the tiles).
  EXPECT_EQ(InfoOf(r.answers[1].lines, "input_cache"), "miss");
  EXPECT_EQ(InfoOf(r.answers[3].lines, "input_cache"), "hit");
  EXPECT_EQ(InfoOf(r.answers[7].lines, "input_cache"), "hit");
  EXPECT_EQ(InfoOf(r.answers[3].lines, "consumed_params"), "BLOCK_SIZE_M=16");
  EXPECT_EQ(InfoOf(r.answers[7].lines, "consumed_params"), "BLOCK_SIZE_M=4,BLOCK_SIZE_N=16");
  // Each prepare says where its time went, phase by phase, in order.
  for (size_t at : {1u, 3u}) {
    const std::string phases = InfoOf(r.answers[at].lines, "prepare_phases_ms");
    EXPECT_TRUE(std::regex_match(phases, std::regex("plan=[0-9.]+;inputs=[0-9.]+;check_run=[0-9.]+;"
                                                    "compare=[0-9.]+;fingerprint=[0-9.]+")))
        << phases;
  }
}

// --prewarm: the session prepares the listed values before ready (a bad one named, not fatal; on
// the CPU it asks for no device), and every execution keeps its own lines and the fingerprint it
// has without prewarm.
TEST(TorchBenchSession, PrewarmRunsBeforeReadyAndChangesNoExecution) {
  SessionRun r = RunSession(std::string(kMoe) +
                                " --prewarm BLOCK_SIZE_M=8 --prewarm BLOCK_SIZE_M=16 "
                                "--prewarm BLOCK_SIZE_M=0",
                            {Prepare("a1", {{"BLOCK_SIZE_M", "16"}}), RunReq("a1"),
                             Prepare("a2", {{"BLOCK_SIZE_M", "8"}}), RunReq("a2")});
  EXPECT_EQ(r.exit_code, 0) << r.raw;
  ASSERT_EQ(r.answers.size(), 4u) << r.raw;
  const std::string f16 = ExpectExecuted(r, 0, "a1");
  const std::string f8 = ExpectExecuted(r, 2, "a2");
  EXPECT_TRUE(r.ready);
  const std::string note = InfoOf(r.before_ready, "prewarm");
  EXPECT_TRUE(std::regex_search(note, std::regex("^3 sets in [0-9.]+ ms, failed: BLOCK_SIZE_M=0 "
                                                 "\\(exit 2\\)$")))
      << note;
  EXPECT_EQ(InfoOf(r.answers[1].lines, "prewarm"), "<none>");  // the start's, not an execution's
  EXPECT_EQ(r.raw.find(R"({"fleetsweep":"device"})"), std::string::npos) << "no device on a CPU";
  // The warm-up's own lines are dropped: one check, one fingerprint, its own parameters.
  int checks = 0;
  for (const auto& l : r.answers[1].lines) checks += l.value("type", "") == "check";
  EXPECT_EQ(checks, 1) << r.raw;
  EXPECT_EQ(InfoOf(r.answers[1].lines, "consumed_params"), "BLOCK_SIZE_M=16");
  // The inputs were built by the warm-up, so the first execution finds them cached.
  EXPECT_EQ(InfoOf(r.answers[1].lines, "input_cache"), "hit");
  EXPECT_EQ(f16, Fp(std::string(kMoe) + " --param BLOCK_SIZE_M=16"));
  EXPECT_EQ(f8, Fp(std::string(kMoe) + " --param BLOCK_SIZE_M=8"));
}

TEST(TorchBenchSession, InputsDependingOnAParameterAreCachedPerValue) {
  // Paged attention's cache layout depends on block_size: one input set per value.
  SessionRun r = RunSession(
      kPaged,
      {Prepare("b8", {{"block_size", "8"}}), RunReq("b8"), Prepare("b16", {{"block_size", "16"}}),
       RunReq("b16"),
       Prepare("b8v2", {{"block_size", "8"}, {"use_v1", "false"}, {"partition_size", "32"}}),
       RunReq("b8v2")});
  EXPECT_EQ(r.exit_code, 0) << r.raw;
  ASSERT_EQ(r.answers.size(), 6u) << r.raw;
  const std::string f8 = ExpectExecuted(r, 0, "b8");
  const std::string f16 = ExpectExecuted(r, 2, "b16");
  const std::string v2 = ExpectExecuted(r, 4, "b8v2");
  EXPECT_NE(f8, f16);
  EXPECT_NE(f8, v2);
  EXPECT_EQ(InfoOf(r.answers[1].lines, "input_cache"), "miss");
  EXPECT_EQ(InfoOf(r.answers[3].lines, "input_cache"), "miss");
  EXPECT_EQ(InfoOf(r.answers[5].lines, "input_cache"), "hit");
  EXPECT_EQ(InfoOf(r.answers[5].lines, "path"), "paged_attention_v2");
  EXPECT_EQ(f16, Fp(std::string(kPaged) + " --param block_size=16"));
  EXPECT_EQ(v2, Fp(std::string(kPaged) +
                   " --param block_size=8 --param use_v1=false --param partition_size=32"));
}

TEST(TorchBenchSession, AFailedExecutionEndsAndTheNextOneRuns) {
  SessionRun r = RunSession(
      std::string(kPaged) + " --platform bi-v100",
      {Prepare("bad", {{"block_size", "x"}}), RunReq("bad"),  // never prepared: bad_request
       Prepare("v2", {{"use_v1", "false"}}),                  // not on bi-v100
       Prepare("zero", {{"block_size", "0"}}), Prepare("ok", {{"block_size", "8"}}), RunReq("ok")});
  EXPECT_EQ(r.exit_code, 0) << r.raw;
  ASSERT_EQ(r.answers.size(), 6u) << r.raw;
  ExpectFailed(r, 0, "bad", "invalid_argument");
  EXPECT_NE((*FirstOf(r.answers[0].lines, "error"))["detail"].get<std::string>().find(
                "block_size='x' is not an integer"),
            std::string::npos);
  ExpectFailed(r, 1, "bad", "bad_request");
  ExpectFailed(r, 2, "v2", "not_implemented");
  EXPECT_EQ((*FirstOf(r.answers[2].lines, "error"))["detail"],
            "paged_attention_v2 is not implemented on BI-V100");
  ExpectFailed(r, 3, "zero", "invalid_argument");
  ExpectExecuted(r, 4, "ok");
  EXPECT_EQ(InfoOf(r.answers[5].lines, "consumed_params"), "block_size=8");
}

TEST(TorchBenchSession, AKernelExceptionFailsOneExecutionOnly) {
  // A BLOCK_SIZE_M this large makes the align step allocate terabytes: the allocation throws.
  SessionRun r = RunSession(kMoe, {Prepare("huge", {{"BLOCK_SIZE_M", "100000000000"}}),
                                   Prepare("a2", {{"BLOCK_SIZE_M", "8"}}), RunReq("a2")});
  EXPECT_EQ(r.exit_code, 0) << r.raw;
  ASSERT_EQ(r.answers.size(), 3u) << r.raw;
  const auto* err = FirstOf(r.answers[0].lines, "error");
  ASSERT_NE(err, nullptr) << r.raw;
  EXPECT_TRUE((*err)["class"] == "runtime_error" || (*err)["class"] == "out_of_memory") << *err;
  EXPECT_EQ(r.answers[0].control, "end");
  ExpectExecuted(r, 1, "a2");
}

TEST(TorchBenchSession, GarbageRequestsAreAnsweredAndNeverFatal) {
  SessionRun r = RunSession(
      kPrefill,
      {"this is not json", "[1, 2]", R"({"attempt_id": "n1"})",
       R"({"fleetsweep": "compile", "attempt_id": 7})", R"({"fleetsweep": "prepare"})",
       R"({"fleetsweep": "prepare", "attempt_id": "p1", "params": [1]})",
       R"({"fleetsweep": "prepare", "attempt_id": "p2", "params": {"BLOCK_M": {"x": 1}}})",
       RunReq("nothing-prepared"), std::string(2 << 20, 'x'), "", "   ",
       // numbers are tolerated as parameter values
       R"({"fleetsweep": "prepare", "attempt_id": "ok", "params": {"BLOCK_M": 4, "BLOCK_N": "8"}})",
       RunReq("ok")});
  EXPECT_EQ(r.exit_code, 0) << r.raw;
  ASSERT_EQ(r.answers.size(), 11u) << r.raw;
  ExpectFailed(r, 0, nlohmann::json(), "bad_request");  // no attempt id: end without one
  ExpectFailed(r, 1, nlohmann::json(), "bad_request");
  ExpectFailed(r, 2, "n1", "bad_request");
  ExpectFailed(r, 3, 7, "bad_request");  // the id is echoed as it came
  ExpectFailed(r, 4, nlohmann::json(), "bad_request");
  ExpectFailed(r, 5, "p1", "bad_request");
  ExpectFailed(r, 6, "p2", "bad_request");
  ExpectFailed(r, 7, "nothing-prepared", "bad_request");
  ExpectFailed(r, 8, nlohmann::json(), "bad_request");  // a 2 MiB line
  EXPECT_NE((*FirstOf(r.answers[8].lines, "error"))["detail"].get<std::string>().find("longer"),
            std::string::npos);
  const std::string fp = ExpectExecuted(r, 9, "ok");
  EXPECT_EQ(fp, Fp(std::string(kPrefill) + " --param BLOCK_M=4 --param BLOCK_N=8"));
}

TEST(TorchBenchSession, EmptyStdinIsReadyThenExitZero) {
  SessionRun r = RunSession(kMoe, {});
  EXPECT_EQ(r.exit_code, 0) << r.raw;
  EXPECT_TRUE(r.ready);
  EXPECT_TRUE(r.answers.empty());
}

TEST(TorchBenchSession, ProcessErrorsComeBeforeReady) {
  // Shapes and flags are per process: a bad one ends the process before ready (exit 2), which
  // the worker reports as a launch failure with this error line in the tail.
  SessionRun typo = RunSession("--kernel moe --shapes M=16,Q=3", {Prepare("a1", {}), RunReq("a1")});
  EXPECT_EQ(typo.exit_code, 2) << typo.raw;
  EXPECT_FALSE(typo.ready);
  ASSERT_NE(FirstOf(typo.before_ready, "error"), nullptr) << typo.raw;
  EXPECT_EQ((*FirstOf(typo.before_ready, "error"))["class"], "invalid_argument");
  SessionRun topk = RunSession("--kernel moe --shapes E=2,topk=3", {});
  EXPECT_EQ(topk.exit_code, 2) << topk.raw;
  EXPECT_FALSE(topk.ready);
  // A --prewarm set that is not NAME=VALUE[,NAME=VALUE] is a bad flag, named.
  for (const char* bad : {"BLOCK_SIZE_M", "BLOCK_SIZE_M=8,", "=8", "BLOCK_SIZE_M="}) {
    SessionRun warm = RunSession(std::string(kMoe) + " --prewarm '" + bad + "'", {});
    EXPECT_EQ(warm.exit_code, 2) << bad << "\n" << warm.raw;
    EXPECT_FALSE(warm.ready) << bad;
    EXPECT_NE(warm.raw.find("--prewarm '" + std::string(bad) + "'"), std::string::npos) << warm.raw;
  }
}

TEST(TorchBenchSession, RequestParamsOverrideTheEnvironment) {
  // The worker exports FLEETSWEEP_PARAM_<UPPER> for session-key parameters; a request naming the
  // same parameter in another case replaces it for that execution.
  SessionRun r = RunSession(
      kPaged, {Prepare("a", {{"block_size", "16"}}), RunReq("a"), Prepare("b", {}), RunReq("b")},
      "FLEETSWEEP_PARAM_BLOCK_SIZE=8");
  EXPECT_EQ(r.exit_code, 0) << r.raw;
  ASSERT_EQ(r.answers.size(), 4u) << r.raw;
  const std::string a = ExpectExecuted(r, 0, "a");
  const std::string b = ExpectExecuted(r, 2, "b");
  EXPECT_EQ(InfoOf(r.answers[1].lines, "consumed_params"), "block_size=16");
  EXPECT_EQ(InfoOf(r.answers[1].lines, "ignored_params"), "");
  EXPECT_EQ(InfoOf(r.answers[3].lines, "consumed_params"), "BLOCK_SIZE=8");  // the process's
  EXPECT_NE(a, b);
}

TEST(TorchBenchSession, FloorsServeToo) {
  SessionRun r = RunSession("--kernel floors --shapes copy_mib=1,matmul_n=16",
                            {Prepare("f1", {}), RunReq("f1"), Prepare("f2", {}), RunReq("f2")});
  EXPECT_EQ(r.exit_code, 0) << r.raw;
  ASSERT_EQ(r.answers.size(), 4u) << r.raw;
  for (size_t i : {1u, 3u}) {
    EXPECT_EQ(r.answers[i].control, "end");
    EXPECT_EQ(FirstOf(r.answers[i].lines, "error"), nullptr) << r.raw;
    EXPECT_EQ(SamplesOf(r.answers[i].lines), 4) << r.raw;  // copy and matmul, 2 reps each
  }
}

}  // namespace
}  // namespace torch_bench_test
