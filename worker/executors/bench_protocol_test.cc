#include "worker/executors/bench_protocol.h"

#include <gtest/gtest.h>

#include <random>

#include "worker/executors/output_formats.h"

namespace fleetsweep {
namespace {

TEST(ParseProtocolLine, SampleWithValueAndValues) {
  auto r = ParseProtocolLine(R"({"type":"sample","metric":"time_ms","value":1.23})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->kind, ProtocolKind::kSample);
  EXPECT_EQ(r->metric, "time_ms");
  ASSERT_EQ(r->values.size(), 1u);
  EXPECT_DOUBLE_EQ(r->values[0], 1.23);

  r = ParseProtocolLine(R"(  {"type":"sample","metric":"gflops","values":[1,2.5,3]})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->values, (std::vector<double>{1, 2.5, 3}));
}

TEST(ParseProtocolLine, FleetsweepMarkerNamesTheKind) {
  auto r = ParseProtocolLine(R"({"fleetsweep":"fingerprint","value":"abc"})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kind, ProtocolKind::kFingerprint);
  EXPECT_EQ(r->text, "abc");
  // With the marker an unknown kind is a bad line (a typo must not vanish silently).
  EXPECT_FALSE(ParseProtocolLine(R"({"fleetsweep":"smaple","value":1})").ok());
}

TEST(ParseProtocolLine, CheckInfoError) {
  auto c = ParseProtocolLine(
      R"({"type":"check","passed":false,"max_rel_error":0.5,"tolerance":1e-3,"detail":"C[0]"})");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->kind, ProtocolKind::kCheck);
  EXPECT_FALSE(c->passed);
  EXPECT_DOUBLE_EQ(c->max_rel_error, 0.5);
  EXPECT_DOUBLE_EQ(c->tolerance, 1e-3);
  EXPECT_EQ(c->text, "C[0]");

  auto i = ParseProtocolLine(R"({"type":"info","key":"n","value":192})");
  ASSERT_TRUE(i.ok());
  EXPECT_EQ(i->key, "n");
  EXPECT_EQ(i->text, "192");

  auto e = ParseProtocolLine(R"({"type":"error","class":"not_implemented","detail":"V2"})");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->kind, ProtocolKind::kError);
  EXPECT_EQ(e->key, "not_implemented");
  EXPECT_EQ(e->text, "V2");
}

TEST(ParseProtocolLine, NonProtocolLinesAreIgnored) {
  for (const char* line : {"", "hello", "time: 1.2 ms", "[1,2]", "{not json", R"({"a":1})",
                           R"({"type":"http_request","path":"/"})", "{\"type\":"}) {
    auto r = ParseProtocolLine(line);
    ASSERT_TRUE(r.ok()) << line;
    EXPECT_EQ(r->kind, ProtocolKind::kNone) << line;
  }
}

TEST(ParseProtocolLine, MalformedProtocolLinesAreErrors) {
  for (const char* line : {
           R"({"type":"sample","metric":"t","value":"fast"})",
           R"({"type":"sample","metric":"t"})",
           R"({"type":"sample","value":1})",
           R"({"type":"sample","metric":"t","values":[]})",
           R"({"type":"sample","metric":"t","values":[1,"x"]})",
           R"({"type":"sample","metric":"t","value":1e999})",
           R"({"type":"sample","metric":"t","value":NaN})",
           R"({"type":"sample","metric":"t","value":1.5)",
           R"({"type":"fingerprint","value":""})",
           R"({"type":"check","max_rel_error":0})",
           R"({"type":"check","passed":true,"tolerance":"x"})",
           R"({"type":"info","value":1})",
           R"({"type":"error"})",
       }) {
    auto r = ParseProtocolLine(line);
    EXPECT_FALSE(r.ok()) << line;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    }
  }
}

TEST(ParseProtocolLine, SurvivesHostileInput) {
  std::string deep = "{\"type\":\"sample\",\"x\":" + std::string(100000, '[');
  EXPECT_TRUE(ParseProtocolLine(deep).ok());
  std::mt19937 rng(7);
  const std::string alphabet = "{}[]\":,0123456789.eE-+truefalsnul \\typesamplemetricvalue";
  for (int i = 0; i < 20000; ++i) {
    std::string s = "{\"type\":\"sample\"";
    int len = rng() % 60;
    for (int j = 0; j < len; ++j) s += alphabet[rng() % alphabet.size()];
    (void)ParseProtocolLine(s);  // must not crash or throw
  }
  std::string binary;
  for (int i = 0; i < 256; ++i) binary += static_cast<char>(i);
  (void)ParseProtocolLine("{\"type\":\"info\",\"key\":\"k\",\"value\":\"" + binary + "\"}");
}

TEST(ProtocolState, AccumulatesAndCountsBadLines) {
  ProtocolState s;
  s.Feed(R"({"type":"sample","metric":"time_ms","values":[1,2]})");
  s.Feed("plain text");
  s.Feed(R"({"type":"sample","metric":"time_ms","value":"x"})");
  s.Feed(R"({"type":"fingerprint","value":"aa"})");
  s.Feed(R"({"type":"fingerprint","value":"aa"})");
  s.Feed(R"({"type":"fingerprint","value":"bb"})");
  s.Feed(R"({"type":"check","passed":true,"max_rel_error":1e-6})");
  s.Feed(R"({"type":"check","passed":false,"max_rel_error":1e-2,"detail":"bad"})");
  s.Feed(R"({"type":"check","passed":true,"max_rel_error":1e-1})");
  s.Feed(R"({"type":"info","key":"torch","value":"1.13"})");
  ASSERT_EQ(s.samples().size(), 2u);
  EXPECT_EQ(s.samples()[1].value, 2);
  EXPECT_EQ(s.bad_lines(), 1u);
  EXPECT_NE(s.first_bad_line_error().find("value"), std::string::npos);
  EXPECT_EQ(s.fingerprint(), "aa+bb");
  EXPECT_TRUE(s.check_present());
  EXPECT_FALSE(s.check_passed());  // one failed check fails them all
  EXPECT_EQ(s.check_detail(), "bad");
  EXPECT_EQ(s.info().at("torch"), "1.13");
  EXPECT_FALSE(s.has_error());
}

TEST(ProtocolState, SampleCountIsCapped) {
  ProtocolState s;
  for (size_t i = 0; i < ProtocolState::kMaxSamples + 10; ++i) s.AddSample("m", 1.0);
  EXPECT_EQ(s.samples().size(), ProtocolState::kMaxSamples);
  EXPECT_EQ(s.samples_dropped(), 10u);
}

TEST(OutputFormats, VllmBenchMeasurementsBecomeSamplesTheRestInfo) {
  ProtocolState s;
  Status st = ParseOutputFile("vllm-bench", "r.json",
                              R"({"backend":"vllm","num_prompts":200,"duration":41.2,
                                  "completed":100,"output_throughput":512.5,
                                  "request_goodput":null,"mean_ttft_ms":20.1,
                                  "p99.9_itl_ms":80,"p99_e2el_ms":900,"ttfts":[0.1,0.2],
                                  "ok":true})",
                              &s);
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::map<std::string, double> got;
  for (const auto& x : s.samples()) got[x.metric] = x.value;
  EXPECT_EQ(got.size(), 4u);
  EXPECT_DOUBLE_EQ(got["output_throughput"], 512.5);
  EXPECT_DOUBLE_EQ(got["mean_ttft_ms"], 20.1);
  EXPECT_DOUBLE_EQ(got["p99.9_itl_ms"], 80);
  EXPECT_DOUBLE_EQ(got["p99_e2el_ms"], 900);
  EXPECT_EQ(got.count("num_prompts"), 0u);  // run description, not a measurement
  EXPECT_EQ(got.count("duration"), 0u);
  EXPECT_EQ(got.count("completed"), 0u);
  EXPECT_EQ(s.info().at("backend"), "vllm");
  EXPECT_EQ(s.info().at("num_prompts"), "200");
  EXPECT_EQ(s.info().at("completed"), "100");
  EXPECT_FALSE(ParseOutputFile("vllm-bench", "r.json", "not json", &s).ok());
}

}  // namespace
}  // namespace fleetsweep
