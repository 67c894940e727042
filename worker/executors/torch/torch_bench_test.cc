// Runs the real fleetsweep-torch-bench ($FLEETSWEEP_BIN) on tiny CPU shapes and checks the
// protocol lines: every kernel's reference check passes, consumed parameters change the executed
// operator fingerprint, a parameter the surface ignores does not, and V2 on bi-v100 fails with
// not_implemented (exit 3). The same binary as a persistent session: torch_bench_session_test.cc.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "worker/executors/torch/torch_bench_run.h"

namespace torch_bench_test {
namespace {

TEST(TorchBench, MoePassesItsCheck) {
  ExpectGoodRun(RunBench(std::string(kMoe) + " --param BLOCK_SIZE_M=8"));
  ExpectGoodRun(RunBench(std::string(kMoe) +
                         " --dtype bfloat16 --param BLOCK_SIZE_M=4 --param BLOCK_SIZE_N=16 "
                         "--param BLOCK_SIZE_K=8 --param GROUP_SIZE_M=2"));
}

TEST(TorchBench, PagedAttentionPassesItsCheck) {
  ExpectGoodRun(RunBench(std::string(kPaged) + " --param block_size=8"));
  ExpectGoodRun(RunBench(std::string(kPaged) +
                         " --param block_size=8 --param use_v1=false --param partition_size=32"));
}

TEST(TorchBench, PrefixPrefillPassesItsCheck) {
  ExpectGoodRun(RunBench(std::string(kPrefill) + " --param BLOCK_M=4 --param BLOCK_N=8"));
  ExpectGoodRun(
      RunBench(std::string(kPrefill) + " --dtype bfloat16 --param BLOCK_M=16 --param BLOCK_N=4"));
}

TEST(TorchBench, MoeTilesChangeTheFingerprint) {
  const std::string moe8 = Fp(std::string(kMoe) + " --param BLOCK_SIZE_M=8");
  EXPECT_NE(moe8, Fp(std::string(kMoe) + " --param BLOCK_SIZE_M=16"));
  // The generic surface honours BLOCK_SIZE_N (bi-v100 does not: BlockSizeNIsInertOnBiV100).
  EXPECT_NE(moe8, Fp(std::string(kMoe) + " --param BLOCK_SIZE_M=8 --param BLOCK_SIZE_N=32"));
}

TEST(TorchBench, PagedAttentionParamsChangeTheFingerprint) {
  EXPECT_NE(Fp(std::string(kPaged) + " --param block_size=8"),
            Fp(std::string(kPaged) + " --param block_size=16"));
  const std::string v2_32 =
      Fp(std::string(kPaged) + " --param use_v1=false --param partition_size=32");
  EXPECT_NE(v2_32, Fp(std::string(kPaged) + " --param use_v1=false --param partition_size=64"));
  EXPECT_NE(v2_32, Fp(std::string(kPaged) + " --param use_v1=true --param partition_size=32"));
}

TEST(TorchBench, PrefillTilesChangeTheFingerprint) {
  const std::string pp = Fp(std::string(kPrefill) + " --param BLOCK_M=4 --param BLOCK_N=8");
  EXPECT_NE(pp, Fp(std::string(kPrefill) + " --param BLOCK_M=8 --param BLOCK_N=8"));
  EXPECT_NE(pp, Fp(std::string(kPrefill) + " --param BLOCK_M=4 --param BLOCK_N=16"));
  // Same configuration twice: same fingerprint (the trace is deterministic).
  EXPECT_EQ(pp, Fp(std::string(kPrefill) + " --param BLOCK_M=4 --param BLOCK_N=8"));
}

TEST(TorchBench, ParametersArriveThroughTheEnvironment) {
  // The exec executor exports FLEETSWEEP_PARAM_<UPPER_NAME>; lookup is case-insensitive.
  BenchRun flag = RunBench(std::string(kPaged) + " --param block_size=8");
  BenchRun env = RunBench(kPaged, "FLEETSWEEP_PARAM_BLOCK_SIZE=8");
  ASSERT_EQ(env.exit_code, 0) << env.raw;
  EXPECT_EQ(flag.Fingerprint(), env.Fingerprint());
  EXPECT_EQ(env.Info("consumed_params"), "BLOCK_SIZE=8");
}

TEST(TorchBench, BlockSizeNIsInertOnBiV100) {
  const std::string base = std::string(kMoe) + " --platform bi-v100 --param BLOCK_SIZE_M=8";
  BenchRun a = RunBench(base + " --param BLOCK_SIZE_N=32");
  BenchRun b = RunBench(base + " --param BLOCK_SIZE_N=64");
  BenchRun c = RunBench(base);
  ASSERT_EQ(a.exit_code, 0) << a.raw;
  EXPECT_EQ(a.Fingerprint(), b.Fingerprint());
  EXPECT_EQ(a.Fingerprint(), c.Fingerprint());
  EXPECT_EQ(a.Info("ignored_params"), "BLOCK_SIZE_N");
  EXPECT_EQ(a.Info("consumed_params"), "BLOCK_SIZE_M=8");
  // BLOCK_SIZE_M still reaches the kernel there.
  EXPECT_NE(
      a.Fingerprint(),
      RunBench(std::string(kMoe) + " --platform bi-v100 --param BLOCK_SIZE_M=16").Fingerprint());
}

TEST(TorchBench, PagedAttentionV2IsNotImplementedOnBiV100) {
  BenchRun r = RunBench(std::string(kPaged) + " --platform bi-v100 --param use_v1=false");
  EXPECT_EQ(r.exit_code, 3) << r.raw;
  ASSERT_EQ(r.lines.size(), 1u) << r.raw;
  EXPECT_EQ(r.lines[0]["type"], "error");
  EXPECT_EQ(r.lines[0]["class"], "not_implemented");
  EXPECT_EQ(r.lines[0]["detail"], "paged_attention_v2 is not implemented on BI-V100");
  EXPECT_EQ(r.Samples(), 0);
  // V1 still runs there, and the same V2 request runs on the cuda surface (on this CPU).
  EXPECT_EQ(RunBench(std::string(kPaged) + " --platform bi-v100 --param use_v1=true").exit_code, 0);
  EXPECT_EQ(RunBench(std::string(kPaged) +
                     " --platform cuda --param use_v1=false --param partition_size=32")
                .exit_code,
            0);
}

TEST(TorchBench, BadInputsAreInvalidArgument) {
  BenchRun typo = RunBench("--kernel moe --shapes M=16,Q=3");
  EXPECT_EQ(typo.exit_code, 2);
  ASSERT_NE(typo.First("error"), nullptr) << typo.raw;
  EXPECT_EQ((*typo.First("error"))["class"], "invalid_argument");
  BenchRun part = RunBench(std::string(kPaged) +
                           " --param use_v1=false --param block_size=16 --param partition_size=24");
  EXPECT_EQ(part.exit_code, 2) << part.raw;
  EXPECT_EQ(RunBench("--kernel moe --platform no-such-platform").exit_code, 2);
}

TEST(TorchBench, HelpIsUsageOnStdoutWithDefaultsAndExitZero) {
  const char* bin = std::getenv("FLEETSWEEP_BIN");
  ASSERT_NE(bin, nullptr);
  const std::string cmd = std::string(bin) + "/fleetsweep-torch-bench --help 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  while (fgets(buf, sizeof(buf), p)) out += buf;
  const int status = pclose(p);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << out;
  EXPECT_NE(out.find("Usage"), std::string::npos) << out;  // usage, not a JSON error line
  EXPECT_EQ(out.find("\"type\""), std::string::npos) << out;
  EXPECT_NE(out.find("--reps"), std::string::npos);
  EXPECT_NE(out.find("=20"), std::string::npos) << out;  // defaults are shown
}

}  // namespace
}  // namespace torch_bench_test
