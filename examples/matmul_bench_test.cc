// fleetsweep-matmul-bench run through the exec executor: parameters reach the loop nest.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <set>

#include "worker/executors/exec_executor.h"

namespace fleetsweep {
namespace {

std::string BinDir() {
  const char* bin = std::getenv("FLEETSWEEP_BIN");
  if (bin && *bin) return bin;
  return FLEETSWEEP_BIN_DIR;
}

v1::Attempt RunBench(const Config& params, const std::vector<std::string>& extra = {},
                     bool use_flags = true) {
  ExecSpec spec;
  spec.command = {"{FLEETSWEEP_BIN}/fleetsweep-matmul-bench", "--n", "{N}", "--reps", "2"};
  if (use_flags) {
    for (const char* p : {"BM", "BN", "BK"}) {
      spec.command.push_back(std::string("--") + static_cast<char>(std::tolower(p[0])) +
                             static_cast<char>(std::tolower(p[1])));
      spec.command.push_back(std::string("{") + p + "}");
    }
    spec.command.push_back("--order");
    spec.command.push_back("{LOOP_ORDER}");
  }
  spec.command.insert(spec.command.end(), extra.begin(), extra.end());
  spec.timeout_seconds = 30;
  ExecutionRequest req;
  req.params = params;
  req.worker_bin_dir = BinDir();
  req.attempt_id = "t";
  return ExecExecutor(spec).Run(req);
}

Config Params(int bm, int bn, int bk, const std::string& order, int n = 64) {
  return {{"BM", Value(bm)},
          {"BN", Value(bn)},
          {"BK", Value(bk)},
          {"LOOP_ORDER", Value(order)},
          {"N", Value(n)}};
}

TEST(MatmulBench, ReportsSamplesAPassingCheckAndAFingerprint) {
  v1::Attempt a = RunBench(Params(16, 32, 8, "ikj", 96));
  ASSERT_TRUE(a.ok()) << a.failure_detail() << "\n" << a.stderr_tail();
  int time_samples = 0;
  for (const v1::Sample& s : a.samples()) {
    if (s.metric() == "time_ms") {
      ++time_samples;
      EXPECT_GT(s.value(), 0);
    }
  }
  EXPECT_EQ(time_samples, 2);
  EXPECT_TRUE(a.check().present());
  EXPECT_TRUE(a.check().passed());
  EXPECT_LE(a.check().max_rel_error(), a.check().tolerance());
  EXPECT_EQ(a.fingerprint().size(), 16u);
  EXPECT_EQ(a.info().at("ran"), "matmul-bench-v1;order=ikj;bm=16;bn=32;bk=8;n=96");
}

TEST(MatmulBench, EveryOrderAndBlockingIsCorrectAndDistinct) {
  std::set<std::string> fingerprints;
  int runs = 0;
  for (const char* order : {"ijk", "ikj", "jik", "jki", "kij", "kji"}) {
    for (int bm : {8, 24}) {
      // Blocks that do not divide N exercise the edge tiles.
      v1::Attempt a = RunBench(Params(bm, 20, 12, order, 50));
      ASSERT_TRUE(a.ok()) << order << " bm=" << bm << ": " << a.failure_detail();
      EXPECT_TRUE(a.check().passed());
      fingerprints.insert(a.fingerprint());
      ++runs;
    }
  }
  EXPECT_EQ(fingerprints.size(), static_cast<size_t>(runs));
}

TEST(MatmulBench, IgnoredParameterLeavesTheFingerprintUnchanged) {
  v1::Attempt bk8 = RunBench(Params(16, 16, 8, "ijk"));
  v1::Attempt bk32 = RunBench(Params(16, 16, 32, "ijk"));
  ASSERT_TRUE(bk8.ok() && bk32.ok());
  EXPECT_NE(bk8.fingerprint(), bk32.fingerprint()) << "BK reaches the loop nest";

  v1::Attempt i8 = RunBench(Params(16, 16, 8, "ijk"), {"--ignore-bk"});
  v1::Attempt i32 = RunBench(Params(16, 16, 32, "ijk"), {"--ignore-bk"});
  ASSERT_TRUE(i8.ok() && i32.ok()) << i8.failure_detail();
  EXPECT_TRUE(i8.check().passed());
  EXPECT_EQ(i8.fingerprint(), i32.fingerprint()) << "BK never reached the loop nest";

  // Blocks larger than N clamp to N: the same loop nest really ran.
  v1::Attempt big = RunBench(Params(64, 16, 8, "ijk", 64));
  v1::Attempt bigger = RunBench(Params(256, 16, 8, "ijk", 64));
  EXPECT_EQ(big.fingerprint(), bigger.fingerprint());
}

TEST(MatmulBench, ParametersFromEnvironmentWhenFlagsAreAbsent) {
  v1::Attempt flags = RunBench(Params(8, 16, 4, "kji"));
  v1::Attempt env = RunBench(Params(8, 16, 4, "kji"), {}, /*use_flags=*/false);
  ASSERT_TRUE(flags.ok() && env.ok()) << env.failure_detail();
  EXPECT_EQ(flags.fingerprint(), env.fingerprint());
}

TEST(MatmulBench, BadArgumentsFailWithExitCode) {
  v1::Attempt a = RunBench(Params(16, 16, 16, "zyx"));
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_EXIT_CODE);
  EXPECT_EQ(a.exit_code(), 2);
  EXPECT_NE(a.stderr_tail().find("unknown loop order"), std::string::npos);
}

}  // namespace
}  // namespace fleetsweep
