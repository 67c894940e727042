#include "common/exec/exec_spec.h"

#include <gtest/gtest.h>

#include "worker/executors/executor.h"

namespace fleetsweep {
namespace {

TEST(Substitute, PlaceholdersEscapesAndLiteralBraces) {
  std::map<std::string, std::string> vars = {{"BM", "64"}, {"order", "ikj"}};
  EXPECT_EQ(*Substitute("--bm={BM}", vars), "--bm=64");
  EXPECT_EQ(*Substitute("{{BM}", vars), "{BM}");
  EXPECT_EQ(*Substitute(R"({"BLOCK_SIZE_M": {BM}})", vars), R"({"BLOCK_SIZE_M": 64})");
  EXPECT_EQ(*Substitute("{order}{BM}}", vars), "ikj64}");
  EXPECT_EQ(*Substitute("{ BM }", vars), "{ BM }");
  StatusOr<std::string> bad = Substitute("--x={NOPE}", vars);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("{NOPE}"), std::string::npos);
}

TEST(ParamEnvName, UpperCasesAndReplaces) {
  EXPECT_EQ(ParamEnvName("BLOCK_SIZE_M"), "FLEETSWEEP_PARAM_BLOCK_SIZE_M");
  EXPECT_EQ(ParamEnvName("max-num.seqs"), "FLEETSWEEP_PARAM_MAX_NUM_SEQS");
}

TEST(ParseExecSpec, FullSection) {
  auto spec = ParseExecSpec(R"(
type: exec
command: ["{FLEETSWEEP_BIN}/fleetsweep-matmul-bench", "--bm", "{BM}"]
workdir: /tmp/x
timeout: 30
env: {OMP_NUM_THREADS: "1"}
files:
  - path: config.json
    template: '{"BLOCK_SIZE_M": {BM}}'
output: {file: result.json, format: vllm-bench}
)");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->command.size(), 3u);
  EXPECT_EQ(spec->workdir, "/tmp/x");
  EXPECT_DOUBLE_EQ(spec->timeout_seconds, 30);
  EXPECT_EQ(spec->env.at("OMP_NUM_THREADS"), "1");
  ASSERT_EQ(spec->files.size(), 1u);
  EXPECT_EQ(spec->files[0].contents, R"({"BLOCK_SIZE_M": {BM}})");
  EXPECT_EQ(spec->output.file, "result.json");
  EXPECT_EQ(spec->output.format, "vllm-bench");
}

TEST(ParseExecSpec, RejectsBadSections) {
  for (const char* yaml : {"command: echo hi",           // a string: would need a shell
                           "command: []", "timeout: 3",  // no command
                           "command: [a]\ntimeout: -1", "command: [a]\nbogus: 1",
                           "command: [a]\nfiles: [{path: /etc/x, template: y}]",
                           "command: [a]\noutput: {file: r, format: csv}", "command: [a",
                           "type: torch\ncommand: [a]"}) {
    auto spec = ParseExecSpec(yaml);
    EXPECT_FALSE(spec.ok()) << yaml;
    if (!spec.ok()) {
      EXPECT_EQ(spec.status().code(), StatusCode::kInvalidArgument);
    }
  }
}

TEST(MakeExecutor, ExecDefaultTorchAndUnknown) {
  EXPECT_TRUE(MakeExecutor("command: [/bin/true]").ok());
  EXPECT_TRUE(MakeExecutor("type: exec\ncommand: [/bin/true]").ok());
  EXPECT_FALSE(MakeExecutor("type: quantum\ncommand: [/bin/true]").ok());
  EXPECT_FALSE(MakeExecutor("type: exec").ok());
  EXPECT_FALSE(MakeExecutor(": : :").ok());
}

}  // namespace
}  // namespace fleetsweep
