// ExecExecutor against real child processes (tests/data/bench/fake_bench.sh): a run's attempt,
// placeholders and environment, templated files, failure classes, the result file, concurrency.
// Process lifecycle: exec_executor_process_test.cc; confinement: exec_executor_security_test.cc.
#include "worker/executors/exec_executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>

#include "worker/executors/exec_executor_fixture.h"

namespace fleetsweep {
namespace exec_test {
namespace {

TEST_F(ExecExecutorTest, SuccessfulRunFillsTheAttempt) {
  v1::Attempt a = RunMode({"ok"});
  ASSERT_TRUE(a.ok()) << a.failure_detail() << "\n" << a.stderr_tail();
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_UNSPECIFIED);
  ASSERT_EQ(a.samples_size(), 2);
  EXPECT_EQ(a.samples(0).metric(), "time_ms");
  EXPECT_DOUBLE_EQ(a.samples(1).value(), 1.5);
  EXPECT_EQ(a.fingerprint(), "abc123");
  EXPECT_TRUE(a.check().present());
  EXPECT_TRUE(a.check().passed());
  EXPECT_EQ(a.info().at("shell"), "sh");
  EXPECT_EQ(a.info().at("exec.path"), "/bin/sh");
  EXPECT_NE(a.stdout_tail().find("warming up"), std::string::npos);
  EXPECT_EQ(a.exit_code(), 0);
  EXPECT_EQ(a.term_signal(), 0);
  EXPECT_GT(a.started_unix_ms(), 1600000000000);
  EXPECT_GT(a.duration_seconds(), 0);
}

TEST_F(ExecExecutorTest, PlaceholdersArriveVerbatimAsSingleArgvElements) {
  std::string out = tmp_ + "/args.txt";
  std::string mark = tmp_ + "/INJECTED";
  request_.params = {{"BM", Value(64)},
                     {"EVIL", Value("; rm -rf / #")},
                     {"SUB", Value("$(touch " + mark + ")")},
                     {"QUOTED", Value("a b 'c' \"d\" `e` *")}};
  spec_.workdir = "wd";
  v1::Attempt a = RunMode({"args", out, "--bm={BM}", "{EVIL}", "{SUB}", "{QUOTED}", "{{BM}",
                           "{SLOT}", "{DEVICE}", "{ATTEMPT_ID}", "{WORKDIR}", "{FLEETSWEEP_BIN}"});
  ASSERT_TRUE(a.ok()) << a.failure_detail();
  std::vector<std::string> want = {"--bm=64",
                                   "; rm -rf / #",
                                   "$(touch " + mark + ")",
                                   "a b 'c' \"d\" `e` *",
                                   "{BM}",
                                   "2",
                                   "3",
                                   "cfg1-7",
                                   fs::canonical(tmp_).string() + "/wd",
                                   "/opt/fleetsweep/bin"};
  EXPECT_EQ(Lines(ReadFile(out)), want);
  EXPECT_FALSE(fs::exists(mark)) << "a shell evaluated $(...)";
  EXPECT_TRUE(fs::exists(tmp_ + "/wd")) << "a configured workdir is kept";
}

TEST_F(ExecExecutorTest, UnknownPlaceholderIsALaunchFailureNamingIt) {
  std::string mark = tmp_ + "/ran";
  v1::Attempt a = RunMode({"marker", mark, "{NO_SUCH_PARAM}"});
  EXPECT_FALSE(a.ok());
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_LAUNCH);
  EXPECT_NE(a.failure_detail().find("{NO_SUCH_PARAM}"), std::string::npos) << a.failure_detail();
  EXPECT_FALSE(fs::exists(mark));
}

TEST_F(ExecExecutorTest, EnvironmentExportsParamsAndWorkerVariables) {
  std::string out = tmp_ + "/env.txt";
  request_.params = {{"BLOCK_SIZE_M", Value(16)}, {"use-v1", Value(true)}};
  request_.extra_env = {{"FLEETSWEEP_PLATFORM_SURFACE", "bi-v100"}};
  spec_.env = {{"OMP_NUM_THREADS", "{BLOCK_SIZE_M}"}};
  v1::Attempt a = RunMode({"env", out});
  ASSERT_TRUE(a.ok()) << a.failure_detail();
  std::map<std::string, std::string> env;
  for (const std::string& l : Lines(ReadFile(out))) {
    size_t eq = l.find('=');
    if (eq != std::string::npos) env[l.substr(0, eq)] = l.substr(eq + 1);
  }
  EXPECT_EQ(env["FLEETSWEEP_PARAM_BLOCK_SIZE_M"], "16");
  EXPECT_EQ(env["FLEETSWEEP_PARAM_USE_V1"], "true");
  EXPECT_EQ(env["FLEETSWEEP_ATTEMPT_ID"], "cfg1-7");
  EXPECT_EQ(env["FLEETSWEEP_SLOT"], "2");
  EXPECT_EQ(env["CUDA_VISIBLE_DEVICES"], "3");
  EXPECT_EQ(env["OMP_NUM_THREADS"], "16");
  EXPECT_EQ(env["FLEETSWEEP_PLATFORM_SURFACE"], "bi-v100");
  EXPECT_TRUE(env.count("PATH")) << "allow-listed worker variables are inherited";
  // The default workdir was a fresh directory inside the scratch root, removed after the run.
  ASSERT_FALSE(env["FLEETSWEEP_WORKDIR"].empty());
  EXPECT_NE(env["FLEETSWEEP_WORKDIR"], tmp_);
  EXPECT_EQ(env["FLEETSWEEP_WORKDIR"].rfind(fs::canonical(tmp_).string() + "/", 0), 0u);
  EXPECT_FALSE(fs::exists(env["FLEETSWEEP_WORKDIR"]));
}

TEST_F(ExecExecutorTest, TemplatedFilesAreWrittenBeforeTheRun) {
  request_.params = {{"BM", Value(64)}, {"ORDER", Value("ikj")}};
  spec_.workdir = tmp_;
  spec_.files = {{"sub/config.json", R"({"BLOCK_SIZE_M": {BM}, "order": "{ORDER}"})"}};
  v1::Attempt a = RunMode({"cat", "sub/config.json"});
  ASSERT_TRUE(a.ok()) << a.failure_detail();
  EXPECT_EQ(ReadFile(tmp_ + "/seen"), R"({"BLOCK_SIZE_M": 64, "order": "ikj"})");
}

TEST_F(ExecExecutorTest, CrashExitCodeAndTextFailures) {
  v1::Attempt a = RunMode({"segv"});
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_SIGNAL);
  EXPECT_EQ(a.term_signal(), SIGSEGV);
  EXPECT_EQ(a.exit_code(), -1);
  EXPECT_NE(a.failure_detail().find("SIGSEGV"), std::string::npos) << a.failure_detail();

  a = RunMode({"exit3"});
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_EXIT_CODE);
  EXPECT_EQ(a.exit_code(), 3);
  EXPECT_EQ(a.samples_size(), 0) << "a failed attempt carries no samples";
  EXPECT_EQ(a.info().at("exec.samples_discarded"), "1");
  EXPECT_NE(a.stderr_tail().find("something went wrong"), std::string::npos);

  a = RunMode({"notimpl"});
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_NOT_IMPLEMENTED) << a.failure_detail();
  a = RunMode({"protoerr"});
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_NOT_IMPLEMENTED);
  EXPECT_NE(a.failure_detail().find("paged attention V2"), std::string::npos);
  a = RunMode({"oom"});
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_OUT_OF_MEMORY) << a.failure_detail();
  a = RunMode({"wrong"});
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_WRONG_RESULT);
  EXPECT_EQ(a.exit_code(), 0);
  EXPECT_FALSE(a.check().passed());
  a = RunMode({"garbage"});
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_BAD_OUTPUT);
  EXPECT_EQ(a.info().at("exec.bad_protocol_lines"), "1");
}

TEST_F(ExecExecutorTest, ResultFileIsParsedAfterExit) {
  spec_.output.file = "result.jsonl";
  v1::Attempt a = RunMode({"resultfile"});
  ASSERT_TRUE(a.ok()) << a.failure_detail();
  ASSERT_EQ(a.samples_size(), 1);
  EXPECT_DOUBLE_EQ(a.samples(0).value(), 2.5);
  EXPECT_EQ(a.fingerprint(), "fromfile");

  spec_.output.file = "missing.jsonl";
  a = RunMode({"resultfile"});
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_BAD_OUTPUT);
  EXPECT_NE(a.failure_detail().find("missing.jsonl"), std::string::npos) << a.failure_detail();
}

TEST_F(ExecExecutorTest, ConcurrentRunsDoNotInterfere) {
  spec_.command = {"/bin/sh", Script(), "ok"};
  ExecExecutor exec(spec_);
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      for (int j = 0; j < 5; ++j) ok += exec.Run(request_).ok() ? 1 : 0;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(ok.load(), 20);
}

TEST_F(ExecExecutorTest, DocumentedPythonBenchmarkWorks) {
  if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3";
  request_.params = {{"N", Value(20000)}, {"UNROLL", Value(3)}};
  spec_.command = {"python3", SourceDir() + "/tests/data/bench/example_bench.py"};
  v1::Attempt a = ExecExecutor(spec_).Run(request_);
  ASSERT_TRUE(a.ok()) << a.failure_detail() << "\n" << a.stderr_tail();
  EXPECT_EQ(a.samples_size(), 5);
  EXPECT_TRUE(a.check().passed());
  EXPECT_EQ(a.fingerprint().size(), 16u);
  EXPECT_TRUE(a.info().count("python"));
}

TEST_F(ExecExecutorTest, CreateFromYaml) {
  auto exec =
      ExecExecutor::Create("type: exec\ncommand: [/bin/sh, " + Script() + ", ok]\ntimeout: 5\n");
  ASSERT_TRUE(exec.ok()) << exec.status().ToString();
  EXPECT_TRUE((*exec)->Run(request_).ok());
}

}  // namespace
}  // namespace exec_test
}  // namespace fleetsweep
