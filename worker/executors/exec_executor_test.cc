// ExecExecutor against real child processes (tests/data/bench/fake_bench.sh).
#include "worker/executors/exec_executor.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace fleetsweep {
namespace {

namespace fs = std::filesystem;

std::string SourceDir() {
  const char* src = getenv("FLEETSWEEP_SRC");
  if (src && *src) return src;
#ifdef FLEETSWEEP_SOURCE_DIR
  return FLEETSWEEP_SOURCE_DIR;
#else
  return ".";
#endif
}

std::string Script() { return SourceDir() + "/tests/data/bench/fake_bench.sh"; }

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) out.push_back(line);
  return out;
}

// True once `pid` no longer exists or is a zombie (dead, waiting for its new parent to reap it).
bool ProcessGone(pid_t pid) {
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

long MaxRssKb() {
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

// Issue 15, item 5: the child starts from an explicit environment without the worker's secrets.
TEST_F(ExecExecutorTest, ChildEnvironmentHoldsNoSecrets) {
  setenv("FLEETSWEEP_REDIS_PASSWORD", "hunter2-redis", 1);
  setenv("MY_SERVICE_TOKEN", "hunter2-token", 1);
  setenv("UNLISTED_WORKER_VARIABLE", "x", 1);
  setenv("OMP_PROC_BIND", "close", 1);
  std::string out = tmp_ + "/env.txt";
  v1::Attempt a = RunMode({"env", out});
  ASSERT_TRUE(a.ok()) << a.failure_detail();
  std::string env = ReadFile(out);
  EXPECT_EQ(env.find("hunter2"), std::string::npos) << env;
  EXPECT_EQ(env.find("UNLISTED_WORKER_VARIABLE"), std::string::npos);
  EXPECT_NE(env.find("OMP_PROC_BIND=close"), std::string::npos) << "OMP_* is passed by default";
  // --pass-env adds variables; a secret-looking one only when named exactly.
  request_.env_policy.pass_env = {"UNLISTED_*", "MY_SERVICE_TOKEN"};
  a = RunMode({"env", out});
  ASSERT_TRUE(a.ok()) << a.failure_detail();
  env = ReadFile(out);
  EXPECT_NE(env.find("UNLISTED_WORKER_VARIABLE=x"), std::string::npos);
  EXPECT_NE(env.find("MY_SERVICE_TOKEN=hunter2-token"), std::string::npos);
  EXPECT_EQ(env.find("hunter2-redis"), std::string::npos) << "FLEETSWEEP_* is never passed";
  unsetenv("FLEETSWEEP_REDIS_PASSWORD");
  unsetenv("MY_SERVICE_TOKEN");
  unsetenv("UNLISTED_WORKER_VARIABLE");
  unsetenv("OMP_PROC_BIND");
}

// Issue 15, item 3: a spec may not set variables that make an allowed program load other code.
TEST_F(ExecExecutorTest, SpecEnvNamesThatLoadCodeAreRefused) {
  std::string mark = tmp_ + "/ran";
  for (const char* name : {"PYTHONPATH", "LD_PRELOAD", "PATH", "HOME", "TRITON_CACHE_DIR",
                           "FLEETSWEEP_SLOT", "BASH_ENV"}) {
    spec_.env = {{name, "{WORKDIR}"}};
    v1::Attempt a = RunMode({"marker", mark});
    EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_REFUSED) << name;
    EXPECT_NE(a.failure_detail().find(name), std::string::npos) << a.failure_detail();
    EXPECT_FALSE(fs::exists(mark)) << name;
  }
  // A worker may allow a name explicitly (never FLEETSWEEP_*).
  spec_.env = {{"PYTHONPATH", "{WORKDIR}"}};
  request_.env_policy.allow_spec_env = {"PYTHON*"};
  v1::Attempt a = RunMode({"marker", mark});
  EXPECT_TRUE(a.ok()) << a.failure_detail();
}

// Issue 15, item 3: workdir, files and the result file stay inside the scratch root.
TEST_F(ExecExecutorTest, PathsOutsideTheScratchRootAreRefused) {
  const std::string root = tmp_ + "/root";
  const std::string outside = tmp_ + "/outside";
  fs::create_directories(root);
  fs::create_directories(outside);
  request_.scratch_root = root;
  request_.params = {{"UP", Value("..")}};
  std::string mark = tmp_ + "/ran";
  auto refused = [&](const char* what) {
    v1::Attempt a = RunMode({"marker", mark});
    EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_REFUSED) << what << ": " << a.failure_detail();
    EXPECT_NE(a.failure_detail().find("scratch root"), std::string::npos) << a.failure_detail();
    EXPECT_FALSE(fs::exists(mark)) << what;
  };
  spec_.workdir = outside + "/ssh";
  refused("absolute workdir outside");
  EXPECT_FALSE(fs::exists(outside + "/ssh")) << "nothing is created outside the root";
  spec_.workdir = "w/{UP}/{UP}/outside/x";
  refused("templated ../");
  EXPECT_FALSE(fs::exists(outside + "/x"));
  fs::create_directory_symlink(outside, root + "/link");
  spec_.workdir = "link/sub";
  refused("workdir through a symlink");
  EXPECT_FALSE(fs::exists(outside + "/sub"));
  // files: through a symlink left in a (kept) workdir.
  spec_.workdir = "kept";
  fs::create_directories(root + "/kept");
  fs::create_directory_symlink(outside, root + "/kept/dotssh");
  spec_.files = {{"dotssh/authorized_keys", "ssh-ed25519 AAAA attacker"}};
  refused("files through a symlink");
  EXPECT_FALSE(fs::exists(outside + "/authorized_keys"));
  // The final component a symlink: O_NOFOLLOW.
  std::ofstream(outside + "/victim") << "precious";
  fs::create_symlink(outside + "/victim", root + "/kept/config.json");
  spec_.files = {{"config.json", "overwritten"}};
  v1::Attempt a = RunMode({"marker", mark});
  EXPECT_FALSE(a.ok());
  EXPECT_EQ(ReadFile(outside + "/victim"), "precious");
  spec_.files.clear();
  // The result file: absolute outside, or a symlink to outside, is never read.
  std::ofstream(outside + "/secret.jsonl")
      << "{\"type\":\"sample\",\"metric\":\"t\",\"value\":1}\n";
  spec_.workdir = "";
  spec_.output.file = outside + "/secret.jsonl";
  a = RunMode({"quiet"});
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_BAD_OUTPUT) << a.failure_detail();
  EXPECT_NE(a.info().at("exec.output_file_error").find("scratch root"), std::string::npos);
  for (const auto& smp : a.samples()) EXPECT_NE(smp.metric(), "t");
  spec_.workdir = "kept";
  fs::create_symlink(outside + "/secret.jsonl", root + "/kept/result.jsonl");
  spec_.output.file = "result.jsonl";
  a = RunMode({"quiet"});
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_BAD_OUTPUT) << a.failure_detail();
  EXPECT_EQ(a.samples_size(), 0);
  // Inside the root everything still works.
  spec_.workdir = "fine/{UP}/fine2";
  spec_.output.file = "";
  a = RunMode({"marker", mark});
  EXPECT_TRUE(a.ok()) << a.failure_detail();
  EXPECT_TRUE(fs::exists(root + "/fine2"));
}

TEST_F(ExecExecutorTest, TemplatedFilesAreWrittenBeforeTheRun) {
  request_.params = {{"BM", Value(64)}, {"ORDER", Value("ikj")}};
  spec_.workdir = tmp_;
  spec_.files = {{"sub/config.json", R"({"BLOCK_SIZE_M": {BM}, "order": "{ORDER}"})"}};
  v1::Attempt a = RunMode({"cat", "sub/config.json"});
  ASSERT_TRUE(a.ok()) << a.failure_detail();
  EXPECT_EQ(ReadFile(tmp_ + "/seen"), R"({"BLOCK_SIZE_M": 64, "order": "ikj"})");
}

TEST_F(ExecExecutorTest, TimeoutKillsTheWholeProcessGroup) {
  std::string pidfile = tmp_ + "/grandchild.pid";
  spec_.timeout_seconds = 1;
  auto t0 = std::chrono::steady_clock::now();
  v1::Attempt a = RunMode({"grandchild", pidfile}, /*grace=*/0.5);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_TIMEOUT) << a.failure_detail();
  EXPECT_LT(took, 1 + 0.5 + 3) << "killed within timeout + grace (+ slack)";
  pid_t grandchild = std::stoi(ReadFile(pidfile));
  ASSERT_GT(grandchild, 1);
  EXPECT_TRUE(ProcessGone(grandchild)) << "background grandchild " << grandchild << " survived";
}

TEST_F(ExecExecutorTest, LeftoverBackgroundProcessesAreKilledAfterExit) {
  std::string pidfile = tmp_ + "/leftover.pid";
  auto t0 = std::chrono::steady_clock::now();
  v1::Attempt a = RunMode({"leftover", pidfile});
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(a.ok()) << a.failure_detail();
  EXPECT_LT(took, 10) << "a grandchild holding stdout must not stall the run";
  EXPECT_TRUE(ProcessGone(std::stoi(ReadFile(pidfile))));
}

TEST_F(ExecExecutorTest, CancelKillsTheChild) {
  std::atomic<bool> cancel{false};
  request_.cancel = &cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
  });
  v1::Attempt a = RunMode({"hang"});
  canceller.join();
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_SIGNAL);
  EXPECT_EQ(a.info().at("exec.cancelled"), "true");
  EXPECT_LT(a.duration_seconds(), 10);
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

TEST_F(ExecExecutorTest, HugeOutputKeepsMemoryBounded) {
  long before = MaxRssKb();
  v1::Attempt a = RunMode({"flood_line"});
  ASSERT_TRUE(a.ok()) << a.failure_detail();
  EXPECT_EQ(a.samples_size(), 1);
  EXPECT_EQ(a.info().at("exec.stdout_bytes"), std::to_string(200000000 + 1 + 49));
  EXPECT_EQ(a.info().at("exec.long_lines_cut"), "1");
  EXPECT_LE(a.stdout_tail().size(), ExecExecutor::kTailBytes);

  a = RunMode({"flood_lines"});
  ASSERT_TRUE(a.ok()) << a.failure_detail();
  EXPECT_LE(a.stderr_tail().size(), ExecExecutor::kTailBytes);
  EXPECT_NE(a.stderr_tail().find("line of error"), std::string::npos);
  long grown_mb = (MaxRssKb() - before) / 1024;
  EXPECT_LT(grown_mb, 64) << "~270 MB of output must not be buffered";
}

TEST_F(ExecExecutorTest, MissingOrUnexecutableProgramIsALaunchFailure) {
  spec_.command = {"/nonexistent/dir/bench", "--x"};
  v1::Attempt a = ExecExecutor(spec_).Run(request_);
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_LAUNCH);
  EXPECT_NE(a.failure_detail().find("No such file"), std::string::npos) << a.failure_detail();

  spec_.command = {"fleetsweep-surely-no-such-program"};
  a = ExecExecutor(spec_).Run(request_);
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_LAUNCH);
  EXPECT_NE(a.failure_detail().find("not found in PATH"), std::string::npos);

  std::string plain = tmp_ + "/not-executable";
  std::ofstream(plain) << "#!/bin/sh\necho hi\n";
  chmod(plain.c_str(), 0644);
  spec_.command = {plain};
  a = ExecExecutor(spec_).Run(request_);
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_LAUNCH);
  EXPECT_NE(a.failure_detail().find("Permission denied"), std::string::npos);
}

TEST_F(ExecExecutorTest, AllowListRefusesAndRunsNothing) {
  std::string mark = tmp_ + "/ran";
  request_.allow_exec = {"/opt/benchmarks/*"};
  v1::Attempt a = RunMode({"marker", mark});
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_REFUSED);
  EXPECT_NE(a.failure_detail().find("/bin/sh"), std::string::npos) << a.failure_detail();
  EXPECT_NE(a.failure_detail().find("/opt/benchmarks/*"), std::string::npos);
  EXPECT_FALSE(fs::exists(mark)) << "a refused program must not run";

  // The realpath matches too (/bin/sh -> /usr/bin/dash on Debian).
  char* real = realpath("/bin/sh", nullptr);
  ASSERT_NE(real, nullptr);
  request_.allow_exec = {"/opt/benchmarks/*", std::string(real)};
  free(real);
  a = RunMode({"marker", mark});
  EXPECT_TRUE(a.ok()) << a.failure_detail();
  EXPECT_TRUE(fs::exists(mark));
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
}  // namespace fleetsweep
