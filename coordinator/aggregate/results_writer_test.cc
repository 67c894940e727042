// results_writer: above ResultsOptions::full_limit configurations results.json is summarised (the
// top configurations plus those a verdict names, "configurations_truncated"), results.csv is not;
// an interrupted sweep says so.
#include "coordinator/aggregate/results_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/stats/rng.h"

namespace fleetsweep {
namespace {

// 12 configurations of one parameter A: A=1..3 equally fast (a statistical tie), A=4..12 each
// clearly slower; 5 executions of 10 samples each.
SweepResult TwelveConfigs(double best_three_spread) {
  auto spec = ParseSpecText(
      "sweep: t\nparameters:\n  A: {values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]}\n"
      "metrics:\n  - {name: time_ms, goal: minimize}\n",
      "<test>");
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  stats::Rng rng(7);
  std::vector<v1::ConfigRecord> records;
  std::vector<v1::Attempt> attempts;
  int seq = 0;
  for (int a = 1; a <= 12; ++a) {
    const std::string key = "k" + std::to_string(a);
    v1::ConfigRecord r;
    r.set_config_key(key);
    (*r.mutable_params())["A"] = std::to_string(a);
    r.set_state(v1::CONFIG_STATE_DONE);
    records.push_back(r);
    const double base = a <= 3 ? 10 * (1 + best_three_spread * (a - 1)) : 10 + 2 * a;
    for (int e = 0; e < 5; ++e) {
      v1::Attempt at;
      at.set_config_key(key);
      at.set_attempt_id(key + "-" + std::to_string(++seq));
      at.set_node("n0");
      at.set_ok(true);
      at.set_fingerprint("f" + std::to_string(a));
      at.set_started_unix_ms(seq);
      for (int i = 0; i < 10; ++i) {
        auto* s = at.add_samples();
        s->set_metric("time_ms");
        s->set_value(base * (1 + 0.01 * (rng.Uniform01() - 0.5)));
      }
      attempts.push_back(at);
    }
  }
  return Aggregate(*spec, records, attempts, 1);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ResultsDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("results_writer_test." + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  nlohmann::json Json() { return nlohmann::json::parse(ReadFile(dir_ / "results.json")); }
  int CsvRows() {
    std::istringstream csv(ReadFile(dir_ / "results.csv"));
    std::string line;
    int rows = -1;  // the header
    while (std::getline(csv, line)) ++rows;
    return rows;
  }
  std::filesystem::path dir_;
};

TEST_F(ResultsDir, AboveTheLimitListsTheTopAndCsvHasAll) {
  const SweepResult r = TwelveConfigs(0.0);
  ASSERT_EQ(r.configs.size(), 12u);
  ASSERT_LT(r.winner, 0);
  ASSERT_EQ(r.tied.size(), 3u);
  ResultsOptions options;
  options.full_limit = 5;
  options.top = 2;
  ASSERT_TRUE(WriteResults(dir_.string(), r, options).ok());
  const nlohmann::json j = Json();
  EXPECT_EQ(j["summary"]["configurations"], 12);
  ASSERT_TRUE(j.contains("configurations_truncated"));
  EXPECT_EQ(j["configurations_truncated"]["total"], 12);
  // Ranks 1 and 2; the tied set is listed in full only up to `top` of its members.
  EXPECT_EQ(j["configurations_truncated"]["listed"], 2);
  EXPECT_EQ(j["configurations_truncated"]["all_in"], "results.csv");
  ASSERT_EQ(j["configurations"].size(), 2u);
  std::set<std::string> listed, tied_keys;
  for (int i : r.tied) tied_keys.insert(r.configs[i].key);
  for (size_t k = 0; k < j["configurations"].size(); ++k) {
    const auto& c = j["configurations"][k];
    EXPECT_EQ(c["rank"], k + 1);
    EXPECT_EQ(r.configs[k].key, c["key"]);
    listed.insert(c["key"].get<std::string>());
  }
  EXPECT_EQ(tied_keys, (std::set<std::string>{"k1", "k2", "k3"}));
  // The tied array names the listed members only; tied_total and the CSV's column count all.
  ASSERT_EQ(j["tied"].size(), 2u);
  EXPECT_EQ(j["tied"][0]["key"], r.configs[0].key);  // rank order
  EXPECT_EQ(j["tied"][1]["key"], r.configs[1].key);
  EXPECT_EQ(j["tied_total"], 3);
  EXPECT_EQ(CsvRows(), 12);
  std::istringstream csv(ReadFile(dir_ / "results.csv"));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line.substr(line.rfind(',') + 1), "tied");
  std::set<std::string> csv_tied;
  while (std::getline(csv, line)) {
    if (line.substr(line.rfind(',') + 1) != "1") continue;
    const size_t a = line.find(',') + 1;
    csv_tied.insert(line.substr(a, line.find(',', a) - a));
  }
  EXPECT_EQ(csv_tied, tied_keys);
}

TEST_F(ResultsDir, AWinnerBeyondTheTopIsListed) {
  const SweepResult r = TwelveConfigs(0.2);  // A=1 clearly fastest
  ASSERT_EQ(r.winner, 0);
  ResultsOptions options;
  options.full_limit = 5;
  options.top = 0;
  ASSERT_TRUE(WriteResults(dir_.string(), r, options).ok());
  const nlohmann::json j = Json();
  ASSERT_GE(j["configurations"].size(), 1u);
  EXPECT_EQ(j["configurations"][0]["key"], "k1");
  EXPECT_EQ(j["winner"]["key"], "k1");
  EXPECT_EQ(j["configurations_truncated"]["listed"], j["configurations"].size());
  EXPECT_LT(j["configurations"].size(), 12u);
  EXPECT_EQ(CsvRows(), 12);
}

TEST_F(ResultsDir, AtOrBelowTheLimitNothingChanges) {
  const SweepResult r = TwelveConfigs(0.0);
  ResultsOptions options;
  options.full_limit = 12;
  options.top = 1;
  EXPECT_EQ(ResultsToJson(r, options), ResultsToJson(r, ResultsOptions{0, 1}));
  ASSERT_TRUE(WriteResults(dir_.string(), r, options).ok());
  const nlohmann::json j = Json();
  EXPECT_FALSE(j.contains("configurations_truncated"));
  EXPECT_EQ(j["configurations"].size(), 12u);
  EXPECT_EQ(CsvRows(), 12);
}

// An interrupted sweep (issue 16): results cover the configurations with a record; the summary
// says it was interrupted and how many of the space's configurations never ran.
TEST_F(ResultsDir, AnInterruptedSweepSaysSoAndCountsWhatNeverRan) {
  SweepResult r = TwelveConfigs(0.2);
  const nlohmann::json whole = ResultsToJson(r, ResultsOptions{});
  EXPECT_EQ(whole["interrupted"], false);
  EXPECT_FALSE(whole["summary"].contains("not_run"));
  EXPECT_EQ(SummaryTable(r, 3).find("INTERRUPTED"), std::string::npos);
  r.interrupted = true;
  r.space_configurations = 1000000;
  ASSERT_TRUE(WriteResults(dir_.string(), r, ResultsOptions{}).ok());
  const nlohmann::json j = Json();
  EXPECT_EQ(j["interrupted"], true);
  EXPECT_EQ(j["summary"]["configurations"], 12);
  EXPECT_EQ(j["summary"]["space_configurations"], 1000000);
  EXPECT_EQ(j["summary"]["not_run"], 1000000 - 12);
  EXPECT_EQ(CsvRows(), 12);
  const std::string table = SummaryTable(r, 3);
  EXPECT_NE(table.find("INTERRUPTED"), std::string::npos) << table;
  EXPECT_NE(table.find("12 of 1000000; 999988 never ran"), std::string::npos) << table;
}

// A tie says how close its members are: A=1..3 are 0.1% apart (a tie), A=4..12 clearly slower.
TEST_F(ResultsDir, ATieSaysHowFarApartItsMediansAre) {
  const SweepResult r = TwelveConfigs(0.001);
  ASSERT_LT(r.winner, 0);
  ASSERT_EQ(r.tied.size(), 3u);
  const std::string table = SummaryTable(r, 3);
  const size_t at = table.find("their medians span 10.0");
  ASSERT_NE(at, std::string::npos) << table;
  const size_t unit = table.find(" time_ms, ", at);
  ASSERT_NE(unit, std::string::npos) << table;
  const double apart = std::strtod(table.c_str() + unit + 10, nullptr);  // "0.1% apart"
  EXPECT_GT(apart, 0.0) << table;
  EXPECT_LT(apart, 0.5) << table;
  EXPECT_NE(table.find("% apart: too few or too noisy executions to separate them"),
            std::string::npos)
      << table;
}

}  // namespace
}  // namespace fleetsweep
