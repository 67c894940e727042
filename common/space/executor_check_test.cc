#include "common/space/executor_check.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

namespace fleetsweep {
namespace {

std::vector<std::string> Check(const std::string& text, ExecutorCheckOptions options = {}) {
  StatusOr<SweepSpec> spec = ParseSpecText(text, "s.yaml");
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  if (!spec.ok()) return {"<spec did not parse>"};
  return CheckExecutorSection(*spec, options);
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "\n";
  return out;
}

bool Has(const std::vector<std::string>& problems, const std::string& needle) {
  for (const auto& p : problems) {
    if (p.find(needle) != std::string::npos) return true;
  }
  return false;
}

const char kParams[] = R"(parameters:
  BM: {values: [16, 32]}
  BN: {inert: true, values: [8], reason: "ignored by the kernel"}
)";

TEST(ExecutorCheck, AcceptsAUsableSection) {
  auto problems = Check(std::string(R"(sweep: ok
executor:
  type: exec
  command: ["/bin/sh", "-c", "echo {BM} {SLOT} {DEVICE} {WORKDIR} {ATTEMPT_ID}"]
  env: {X: "{BM}"}
  files: [{path: "c-{BM}.json", template: '{"BM": {BM}}'}]
  output: {file: r.json, format: vllm-bench}
)") + kParams);
  EXPECT_TRUE(problems.empty()) << Join(problems);
}

TEST(ExecutorCheck, ReportsEveryProblemWithTheSpecFilePosition) {
  auto problems = Check(std::string(R"(sweep: bad
executor:
  type: exec
  comand: ["/bin/true"]
  env: {A: "{BMM}", B: "{BN}"}
  timeout: 5
  outptu: stdout
)") + kParams);
  ASSERT_EQ(problems.size(), 5u) << Join(problems);
  // In file order, each with the line:column of the spec file (not of the executor section).
  EXPECT_NE(problems[0].find("s.yaml:2:1: executor: command: is required"), std::string::npos)
      << problems[0];
  EXPECT_NE(problems[1].find("s.yaml:4:3: executor: unknown key 'comand' (did you mean "
                             "'command'?)"),
            std::string::npos)
      << problems[1];
  EXPECT_NE(problems[2].find("s.yaml:5:12: executor.env.A: unknown placeholder {BMM} (did you "
                             "mean {BM}?)"),
            std::string::npos)
      << problems[2];
  EXPECT_NE(problems[3].find("s.yaml:5:24: executor.env.B: {BN} names an inert parameter"),
            std::string::npos)
      << problems[3];
  EXPECT_NE(problems[4].find("s.yaml:7:3: executor: unknown key 'outptu' (did you mean "
                             "'output'?)"),
            std::string::npos)
      << problems[4];
}

TEST(ExecutorCheck, ProgramsThatCannotBeFound) {
  auto problems = Check(std::string(R"(sweep: p
executor:
  command: ["fleetsweep-no-such-program", "{BM}"]
)") + kParams);
  ASSERT_EQ(problems.size(), 1u) << Join(problems);
  EXPECT_TRUE(Has(problems,
                  "s.yaml:3:13: executor.command[0]: program "
                  "'fleetsweep-no-such-program' not found in PATH"))
      << Join(problems);

  problems = Check(std::string(R"(sweep: p
executor:
  command: ["/nonexistent/bench"]
)") + kParams);
  EXPECT_TRUE(Has(problems, "program '/nonexistent/bench' does not exist")) << Join(problems);

  // {FLEETSWEEP_BIN} resolves to the binaries' directory; the section's env PATH is used.
  ExecutorCheckOptions o;
  o.bin_dir = "/nonexistent-bin";
  problems = Check(std::string(R"(sweep: p
executor:
  command: ["{FLEETSWEEP_BIN}/fleetsweep-matmul-bench"]
)") + kParams,
                   o);
  EXPECT_TRUE(Has(problems, "'/nonexistent-bin/fleetsweep-matmul-bench' does not exist"))
      << Join(problems);
  problems = Check(std::string(R"(sweep: p
executor:
  command: ["sh"]
  env: {PATH: "/nonexistent-dir"}
)") + kParams);
  EXPECT_TRUE(Has(problems, "'sh' not found in PATH (/nonexistent-dir)")) << Join(problems);

  // A program chosen by a parameter is checked per execution, not here; so is a found one.
  EXPECT_TRUE(Check(std::string(R"(sweep: p
executor:
  command: ["/opt/{BM}/bench"]
)") + kParams)
                  .empty());
  o.check_programs = false;
  EXPECT_TRUE(Check(std::string(R"(sweep: p
executor:
  command: ["/nonexistent/bench"]
)") + kParams,
                    o)
                  .empty());
}

TEST(ExecutorCheck, TorchSectionKeysAndProgram) {
  // The README's first example once had `kernels:` (a key the torch section does not have).
  auto problems = Check(std::string(R"(sweep: t
executor:
  type: torch
  kernels: [fused_moe]
  devcie: cuda
)") + kParams);
  ASSERT_EQ(problems.size(), 2u) << Join(problems);
  EXPECT_TRUE(Has(problems,
                  "s.yaml:4:3: executor (type torch): unknown key 'kernels' (did you "
                  "mean 'kernel'?)"))
      << Join(problems);
  EXPECT_TRUE(Has(problems, "s.yaml:5:3: executor (type torch): unknown key 'devcie'"))
      << Join(problems);

  problems = Check(std::string(R"(sweep: t
executor:
  type: torch
  kernel: moe
  dtype: float8
)") + kParams);
  ASSERT_EQ(problems.size(), 1u) << Join(problems);
  EXPECT_TRUE(Has(problems, "s.yaml:5:10: dtype 'float8' is not one of")) << Join(problems);

  ExecutorCheckOptions o;
  o.bin_dir = "/nonexistent-bin";
  problems = Check(std::string(R"(sweep: t
executor: {type: torch, kernel: moe}
)") + kParams,
                   o);
  EXPECT_TRUE(Has(problems, "runs /nonexistent-bin/fleetsweep-torch-bench, which is not there"))
      << Join(problems);
}

// prewarm names swept parameters and their levels; anything else is reported where it is written.
TEST(ExecutorCheck, TorchPrewarmNamesSweptParametersAndTheirValues) {
  EXPECT_TRUE(Check(std::string(R"(sweep: t
executor:
  type: torch
  kernel: moe
  prewarm: {BM: [16, 32]}
)") + kParams)
                  .empty());
  auto problems = Check(std::string(R"(sweep: t
executor:
  type: torch
  kernel: moe
  prewarm: {BM: [16, 64], BN: [8], BK: [1]}
)") + kParams);
  ASSERT_EQ(problems.size(), 3u) << Join(problems);
  EXPECT_TRUE(Has(problems, "s.yaml:5:22: executor: prewarm.BM: '64' is not one of"))
      << Join(problems);
  EXPECT_TRUE(Has(problems, "prewarm names 'BN', which is not a swept parameter"))
      << Join(problems);
  EXPECT_TRUE(Has(problems, "prewarm names 'BK', which is not a swept parameter"))
      << Join(problems);
  // The list form: every level of each named swept parameter.
  EXPECT_TRUE(Check(std::string(R"(sweep: t
executor:
  type: torch
  kernel: moe
  prewarm: [BM]
)") + kParams)
                  .empty());
  problems = Check(std::string(R"(sweep: t
executor:
  type: torch
  kernel: moe
  prewarm: [BM, BN]
)") + kParams);
  ASSERT_GE(problems.size(), 1u) << Join(problems);
  EXPECT_TRUE(Has(problems, "s.yaml:5:17: executor: prewarm names 'BN', which is not a swept"))
      << Join(problems);
}

TEST(ExecutorCheck, TypeSessionAndMissingSection) {
  EXPECT_TRUE(
      Has(Check(std::string("sweep: x\nexecutor: {type: exce, command: [/bin/true]}\n") + kParams),
          "s.yaml:2:18: executor.type: unknown type 'exce' (did you mean 'exec'?)"));
  auto problems = Check(std::string(R"(sweep: x
executor:
  command: [/bin/true]
  session: {mode: warm, max_executions: 0.5, restart_evry_s: 1}
)") + kParams);
  EXPECT_EQ(problems.size(), 3u) << Join(problems);
  EXPECT_TRUE(Has(problems, "executor.session.mode: expected persistent or one-shot"));
  EXPECT_TRUE(Has(problems, "executor.session.max_executions: expected a positive integer"));
  EXPECT_TRUE(Has(problems, "executor.session: unknown key 'restart_evry_s'"));
  EXPECT_TRUE(Has(Check(std::string("sweep: x\n") + kParams), "s.yaml:1:1: no executor section"));
}

}  // namespace
}  // namespace fleetsweep
