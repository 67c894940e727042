// ExecExecutor's confinement (issue 15): the child's environment holds no secrets, spec env names
// that load code and paths outside the scratch root are refused, the allow list runs nothing it
// refuses, a missing or unexecutable program is a launch failure.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "worker/executors/exec_executor.h"
#include "worker/executors/exec_executor_fixture.h"

namespace fleetsweep {
namespace exec_test {
namespace {

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

}  // namespace
}  // namespace exec_test
}  // namespace fleetsweep
