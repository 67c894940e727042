#include "common/exec/torch_section.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "common/exec/exec_spec.h"

namespace fleetsweep {
namespace {

std::vector<std::string> Command(const std::string& exec_yaml) {
  YAML::Node n = YAML::Load(exec_yaml);
  EXPECT_EQ(n["type"].as<std::string>(), "exec");
  return n["command"].as<std::vector<std::string>>();
}

// Value following `flag` in argv, or "<absent>".
std::string Flag(const std::vector<std::string>& argv, const std::string& flag) {
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == flag) return argv[i + 1];
  }
  return "<absent>";
}

TEST(TorchSection, TranslatesEveryKey) {
  auto r = TorchSectionToExecYaml(R"(
type: torch
kernel: fused_moe
device: cpu
dtype: bfloat16
platform: bi-v100
reps: 7
warmup: 1
threads: 1
shapes: {M: 64, K: 128}
gpu_shapes: {M: 1024, K: 4096}
timeout: 90
env: {OMP_NUM_THREADS: 1}
)");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto argv = Command(*r);
  ASSERT_FALSE(argv.empty());
  EXPECT_EQ(argv[0], "{FLEETSWEEP_BIN}/fleetsweep-torch-bench");
  EXPECT_EQ(Flag(argv, "--kernel"), "moe");  // alias resolved
  EXPECT_EQ(Flag(argv, "--device"), "cpu");
  EXPECT_EQ(Flag(argv, "--dtype"), "bfloat16");
  EXPECT_EQ(Flag(argv, "--platform"), "bi-v100");
  EXPECT_EQ(Flag(argv, "--reps"), "7");
  EXPECT_EQ(Flag(argv, "--warmup"), "1");
  EXPECT_EQ(Flag(argv, "--threads"), "1");
  EXPECT_EQ(Flag(argv, "--shapes"), "M=64,K=128");  // spec order kept
  EXPECT_EQ(Flag(argv, "--gpu-shapes"), "M=1024,K=4096");
  YAML::Node n = YAML::Load(*r);
  EXPECT_DOUBLE_EQ(n["timeout"].as<double>(), 90);
  EXPECT_EQ(n["env"]["OMP_NUM_THREADS"].as<std::string>(), "1");
}

TEST(TorchSection, DefaultsAndNoParamsOnTheCommandLine) {
  auto r = TorchSectionToExecYaml("type: torch\nkernel: paged_attention\n");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto argv = Command(*r);
  EXPECT_EQ(Flag(argv, "--device"), "auto");
  EXPECT_EQ(Flag(argv, "--dtype"), "float32");
  EXPECT_EQ(Flag(argv, "--platform"), "<absent>");
  EXPECT_EQ(Flag(argv, "--shapes"), "<absent>");
  for (const auto& a : argv) EXPECT_EQ(a.find("--param"), std::string::npos);
  EXPECT_FALSE(YAML::Load(*r)["timeout"]);
}

TEST(TorchSection, SessionReachesTheExecSection) {
  auto r = TorchSectionToExecYaml(
      "type: torch\nkernel: moe\nsession: {mode: persistent, max_executions: 50, "
      "restart_every_s: 600, ready_timeout_s: 60}\n");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  YAML::Node n = YAML::Load(*r);
  ASSERT_TRUE(n["session"]) << *r;
  EXPECT_EQ(n["session"]["mode"].as<std::string>(), "persistent");
  EXPECT_EQ(n["session"]["max_executions"].as<int>(), 50);
  EXPECT_EQ(n["session"]["restart_every_s"].as<double>(), 600);
  EXPECT_EQ(n["session"]["ready_timeout_s"].as<double>(), 60);
  // The worker's own parser reads it as a persistent section.
  auto spec = ParseExecSpec(*r);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_TRUE(spec->session.persistent);
  EXPECT_EQ(spec->session.max_executions, 50);
  // No session: one-shot, as before.
  auto plain = ParseExecSpec(*TorchSectionToExecYaml("type: torch\nkernel: moe\n"));
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->session.persistent);
}

// prewarm: one --prewarm NAME=V per value, in the spec's order.
TEST(TorchSection, PrewarmBecomesOneFlagPerValue) {
  auto r = TorchSectionToExecYaml(
      "type: torch\nkernel: moe\nprewarm: {BLOCK_SIZE_M: [16, 32], BLOCK_SIZE_N: [64]}\n");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::string> warm;
  auto argv = Command(*r);
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == "--prewarm") warm.push_back(argv[i + 1]);
  }
  EXPECT_EQ(warm,
            (std::vector<std::string>{"BLOCK_SIZE_M=16", "BLOCK_SIZE_M=32", "BLOCK_SIZE_N=64"}));
}

// prewarm: [NAME]: every level of the named swept parameters, given the spec's levels.
TEST(TorchSection, PrewarmListExpandsToTheSpecsLevels) {
  const ParamLevels levels = {{"BLOCK_SIZE_M", {"8", "16"}}, {"BLOCK_SIZE_N", {"64"}}};
  auto r = TorchSectionToExecYaml("type: torch\nkernel: moe\nprewarm: [BLOCK_SIZE_M]\n", levels);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::string> warm;
  auto argv = Command(*r);
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == "--prewarm") warm.push_back(argv[i + 1]);
  }
  EXPECT_EQ(warm, (std::vector<std::string>{"BLOCK_SIZE_M=8", "BLOCK_SIZE_M=16"}));
  auto unknown = TorchSectionToExecYaml("type: torch\nkernel: moe\nprewarm: [BM]\n", levels);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("prewarm names 'BM', which is not a swept parameter"),
            std::string::npos)
      << unknown.status().message();
  auto without = TorchSectionToExecYaml("type: torch\nkernel: moe\nprewarm: [BLOCK_SIZE_M]\n");
  ASSERT_FALSE(without.ok());
  EXPECT_NE(without.status().message().find("needs the spec's parameters"), std::string::npos)
      << without.status().message();
}

TEST(TorchSection, RejectsBadSections) {
  struct Case {
    const char* yaml;
    const char* needle;
  } cases[] = {
      {"type: torch\n", "kernel"},
      {"type: torch\nkernel: conv\n", "kernel 'conv'"},
      {"type: torch\nkernel: moe\nshapes: {M: x}\n", "shapes.M"},
      {"type: torch\nkernel: moe\nshapes: {M: 0}\n", "shapes.M"},
      {"type: torch\nkernel: moe\nbogus: 1\n", "unknown key 'bogus'"},
      {"type: torch\nkernel: moe\ndevice: tpu\n", "device 'tpu'"},
      {"type: torch\nkernel: moe\nreps: 0\n", "reps"},
      {"type: torch\nkernel: moe\ntimeout: -1\n", "timeout"},
      {"type: torch\nkernel: moe\nprewarm: 16\n", "prewarm must be a map"},
      {"type: torch\nkernel: moe\nprewarm: {B: 16}\n", "prewarm.B must be a non-empty list"},
      {"type: torch\nkernel: moe\nprewarm: {B: []}\n", "prewarm.B must be a non-empty list"},
      {"type: torch\nkernel: moe\nprewarm: {B: [\"1,2\"]}\n", "without commas"},
      {"[1, 2]", "expected a map"},
      {"type: torch\nkernel: [unclosed\n", "executor section"},
  };
  for (const auto& c : cases) {
    auto r = TorchSectionToExecYaml(c.yaml);
    ASSERT_FALSE(r.ok()) << c.yaml;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << c.yaml;
    EXPECT_NE(r.status().message().find(c.needle), std::string::npos)
        << c.yaml << " -> " << r.status().message();
  }
}

}  // namespace
}  // namespace fleetsweep
