#include "common/space/space_command.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "common/space/value.h"

namespace fleetsweep {
namespace {

std::string Root() {
  std::string here = __FILE__;
  return here.substr(0, here.size() - std::string("/common/space/space_command_test.cc").size());
}

class SpaceCommandTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& text) {
    // Unique per test and process: ctest runs the tests of this file in parallel.
    path_ = ::testing::TempDir() + "space_command_test_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
            std::to_string(::getpid()) + ".yaml";
    std::ofstream(path_) << text;
    return path_;
  }
  void TearDown() override {
    if (!path_.empty()) std::remove(path_.c_str());
  }
  std::string path_;
};

const char kSpec[] = R"(sweep: demo
parameters:
  BM: {values: [16, 32, 64], group: kernel}
  BN: {values: [16, 32], group: kernel}
  use_v1: {fixed: true, reason: V2 raises NotImplementedError}
  BLOCK_SIZE_N: {inert: true, values: [32, 64], reason: ixformer ignores it}
constraints:
  - "BM % BN == 0"
  - "BM >= 32"
)";

TEST_F(SpaceCommandTest, TextReportShowsFatesCountsAndConfigurations) {
  std::ostringstream out, err;
  EXPECT_EQ(SpaceCommand(Write(kSpec), false, false, 2, out, err), kExitOk) << err.str();
  std::string text = out.str();
  EXPECT_NE(text.find("use_v1"), std::string::npos);
  EXPECT_NE(text.find("pinned"), std::string::npos);
  EXPECT_NE(text.find("ixformer ignores it"), std::string::npos);
  EXPECT_NE(text.find("  12  raw product (every declared level)"), std::string::npos) << text;
  EXPECT_NE(text.find("after constraint 1: BM % BN == 0"), std::string::npos);
  EXPECT_NE(text.find("first 2 of 4 configurations"), std::string::npos) << text;
  EXPECT_NE(text.find(ConfigHash({{"BM", 32}, {"BN", 16}, {"use_v1", true}}) +
                      "  BM=32 BN=16 use_v1=true"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("BM=64"), std::string::npos);  // only the first 2
}

TEST_F(SpaceCommandTest, CountOnly) {
  std::ostringstream out, err;
  EXPECT_EQ(SpaceCommand(Write(kSpec), true, false, 10, out, err), kExitOk);
  EXPECT_EQ(out.str(), "4\n");
  std::ostringstream jout;
  EXPECT_EQ(SpaceCommand(path_, true, true, 10, jout, err), kExitOk);
  EXPECT_EQ(nlohmann::json::parse(jout.str())["count"], 4);
}

TEST_F(SpaceCommandTest, JsonHasTheSameData) {
  std::ostringstream out, err;
  EXPECT_EQ(SpaceCommand(Write(kSpec), false, true, -1, out, err), kExitOk);
  nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["sweep"], "demo");
  ASSERT_EQ(j["parameters"].size(), 4u);
  EXPECT_EQ(j["parameters"][2]["fate"], "pinned");
  EXPECT_EQ(j["parameters"][2]["fixed"], true);
  EXPECT_EQ(j["parameters"][3]["fate"], "inert");
  EXPECT_EQ(j["parameters"][3]["levels"], nlohmann::json::array({32, 64}));
  EXPECT_EQ(j["counts"]["raw"], 12);
  EXPECT_EQ(j["counts"]["after_inert"], 6);
  EXPECT_EQ(j["counts"]["after_pinned"], 6);
  EXPECT_EQ(j["counts"]["constraints"][0]["remaining"], 5);
  EXPECT_EQ(j["counts"]["constraints"][1]["remaining"], 4);
  EXPECT_EQ(j["counts"]["final"], 4);
  ASSERT_EQ(j["configurations"].size(), 4u);  // -1: all
  EXPECT_EQ(j["configurations"][0]["params"]["BM"], 32);
  EXPECT_EQ(j["configurations"][0]["key"], "BM=32;BN=16;use_v1=true");
}

TEST_F(SpaceCommandTest, BadSpecExitsTwoWithLocatedMessage) {
  std::ostringstream out, err;
  std::string path = Root() + "/tests/data/specs/dup-param.yaml";
  EXPECT_EQ(SpaceCommand(path, false, false, 5, out, err), kExitBadSpec);
  EXPECT_NE(err.str().find(path + ":5:3: parameters: duplicate key 'BM'"), std::string::npos)
      << err.str();
  EXPECT_EQ(out.str(), "");
  std::ostringstream vout, verr;
  EXPECT_EQ(ValidateCommand(Root() + "/tests/data/specs/empty-space.yaml", vout, verr),
            kExitBadSpec);
  EXPECT_NE(verr.str().find("leaves no configuration"), std::string::npos);
  EXPECT_EQ(ValidateCommand("/nonexistent.yaml", vout, verr), kExitBadSpec);
}

TEST_F(SpaceCommandTest, ValidateExamples) {
  std::ostringstream out, err;
  EXPECT_EQ(ValidateCommand(Root() + "/examples/bi-v100-engine.yaml", out, err), kExitOk)
      << err.str();
  EXPECT_NE(out.str().find("sweep bi-v100-engine: 4 parameters (3 swept, 1 pinned, 0 inert), "
                           "2 constraints, 28 configurations"),
            std::string::npos)
      << out.str();
}

}  // namespace
}  // namespace fleetsweep
