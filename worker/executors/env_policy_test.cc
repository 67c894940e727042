#include "worker/executors/env_policy.h"

#include <gtest/gtest.h>

namespace fleetsweep {
namespace {

TEST(EnvPolicy, InheritsOnlyListedVariablesAndNoSecrets) {
  const char* vars[] = {"PATH=/usr/bin",
                        "HOME=/home/w",
                        "CUDA_HOME=/usr/local/cuda",
                        "FLEETSWEEP_REDIS_PASSWORD=hunter2",
                        "FLEETSWEEP_NODE=n1",
                        "AWS_SECRET_ACCESS_KEY=abc",
                        "HF_TOKEN=tok",
                        "RANDOM_THING=1",
                        "NOEQUALS",
                        nullptr};
  std::map<std::string, std::string> env = InheritedEnv(const_cast<char**>(vars), EnvPolicy{});
  EXPECT_EQ(env, (std::map<std::string, std::string>{
                     {"PATH", "/usr/bin"}, {"HOME", "/home/w"}, {"CUDA_HOME", "/usr/local/cuda"}}));
  EnvPolicy more;
  more.pass_env = {"RANDOM_*", "HF_TOKEN", "FLEETSWEEP_REDIS_PASSWORD", "AWS_*"};
  env = InheritedEnv(const_cast<char**>(vars), more);
  EXPECT_EQ(env.count("RANDOM_THING"), 1u);
  EXPECT_EQ(env.count("HF_TOKEN"), 1u) << "named exactly: passed";
  EXPECT_EQ(env.count("AWS_SECRET_ACCESS_KEY"), 0u) << "a pattern never passes a secret";
  EXPECT_EQ(env.count("FLEETSWEEP_REDIS_PASSWORD"), 0u) << "FLEETSWEEP_* never";
}

TEST(EnvPolicy, SpecNamesThatLoadCodeAreRefusedUnlessAllowed) {
  EnvPolicy none;
  for (const char* name :
       {"LD_PRELOAD", "LD_LIBRARY_PATH", "PYTHONPATH", "PYTHONSTARTUP", "PATH", "HOME",
        "TRITON_CACHE_DIR", "BASH_ENV", "NODE_OPTIONS", "FLEETSWEEP_SLOT"}) {
    Status s = CheckSpecEnvName(name, none);
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << name;
    EXPECT_NE(s.message().find(name), std::string::npos) << s.message();
  }
  for (const char* name : {"OMP_NUM_THREADS", "MODEL", "PORT", "VLLM_ATTENTION_BACKEND"}) {
    EXPECT_TRUE(CheckSpecEnvName(name, none).ok()) << name;
  }
  EnvPolicy allow;
  allow.allow_spec_env = {"PYTHONPATH", "FLEETSWEEP_*"};
  EXPECT_TRUE(CheckSpecEnvName("PYTHONPATH", allow).ok());
  EXPECT_FALSE(CheckSpecEnvName("PYTHONSTARTUP", allow).ok());
  EXPECT_FALSE(CheckSpecEnvName("FLEETSWEEP_SLOT", allow).ok());
}

}  // namespace
}  // namespace fleetsweep
