#include "common/space/spec.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "common/space/expr.h"

namespace fleetsweep {
namespace {

std::string SrcRoot() {
  const char* src = std::getenv("FLEETSWEEP_SRC");
  if (src && *src) return src;
  std::string here = __FILE__;  // .../common/space/spec_test.cc
  return here.substr(0, here.size() - std::string("/common/space/spec_test.cc").size());
}

const char kFull[] = R"(sweep: cpu-demo
executor:
  type: exec
  command: ["{FLEETSWEEP_BIN}/fleetsweep-matmul-bench", "--bm", "{BM}"]
  timeout: 30
parameters:
  BM: {values: [16, 32, 64], group: kernel}
  BN: {range: {from: 16, to: 128, step: 16}}
  BK: {range: {from: 16, to: 256, pow2: true}}
  use_v1: {fixed: true, reason: "V2 raises NotImplementedError on BI-V100"}
  BLOCK_SIZE_N: {inert: true, reason: "ixformer ignores it", values: [32, 64]}
constraints:
  - "BM % BN == 0"
  - "BK >= BM or use_v1"
repetitions: {min: 3, max: 10, target_rel_ci: 0.05, max_failures: 3, deterministic_failures: 2}
metrics:
  - {name: time_ms, goal: minimize, unit: ms}
  - {name: p99_e2el_ms, goal: minimize, max: 2000}
reference: {BM: 32, BN: 16, BK: 64}
search: {strategy: grid, budget: 0, seed: 1, stop_inert_early: false}
)";

TEST(SpecTest, ParsesTheFullFormat) {
  auto spec = ParseSpecText(kFull, "demo.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->name, "cpu-demo");
  EXPECT_EQ(spec->source, "demo.yaml");
  EXPECT_EQ(spec->executor_type, "exec");
  EXPECT_NE(spec->executor_yaml.find("fleetsweep-matmul-bench"), std::string::npos);
  EXPECT_DOUBLE_EQ(spec->timeout_seconds, 30);
  ASSERT_EQ(spec->params.size(), 5u);
  const ParamSpec& bm = spec->params[0];
  EXPECT_EQ(bm.name, "BM");
  EXPECT_EQ(bm.group, "kernel");
  EXPECT_EQ(bm.fate, ParamFate::kSwept);
  EXPECT_EQ(bm.values, (std::vector<Value>{16, 32, 64}));
  EXPECT_EQ(bm.line, 7);
  EXPECT_EQ(spec->params[1].values, (std::vector<Value>{16, 32, 48, 64, 80, 96, 112, 128}));
  EXPECT_EQ(spec->params[2].values, (std::vector<Value>{16, 32, 64, 128, 256}));
  const ParamSpec& v1 = spec->params[3];
  EXPECT_EQ(v1.fate, ParamFate::kPinned);
  EXPECT_EQ(v1.values, (std::vector<Value>{true}));
  EXPECT_EQ(v1.reason, "V2 raises NotImplementedError on BI-V100");
  const ParamSpec& inert = spec->params[4];
  EXPECT_EQ(inert.fate, ParamFate::kInert);
  EXPECT_EQ(inert.values, (std::vector<Value>{32, 64}));
  EXPECT_EQ(*inert.DefaultValue(), Value(32));
  ASSERT_EQ(spec->constraints.size(), 2u);
  EXPECT_EQ(spec->constraints[0].text, "BM % BN == 0");
  EXPECT_EQ(spec->constraints[0].line, 13);
  EXPECT_EQ(spec->constraints[0].column, 6);  // inside the quotes
  ASSERT_TRUE(spec->constraints[0].expr);
  EXPECT_EQ(spec->repetitions.min, 3);
  EXPECT_EQ(spec->repetitions.max, 10);
  EXPECT_DOUBLE_EQ(spec->repetitions.target_rel_ci, 0.05);
  ASSERT_EQ(spec->metrics.size(), 2u);
  EXPECT_EQ(spec->primary_metric().name, "time_ms");
  EXPECT_EQ(spec->primary_metric().unit, "ms");
  EXPECT_EQ(spec->metrics[1].max_value, 2000.0);
  EXPECT_FALSE(spec->metrics[1].min_value.has_value());
  ASSERT_TRUE(spec->reference.has_value());
  EXPECT_EQ(*spec->reference, (Config{{"BM", 32}, {"BN", 16}, {"BK", 64}, {"use_v1", true}}));
  EXPECT_EQ(spec->search.strategy, "grid");
  EXPECT_EQ(spec->search.seed, 1u);
}

TEST(SpecTest, ValueTypesShorthandAndDefaults) {
  auto spec = ParseSpecText(R"(sweep: t
parameters:
  dtype: [fp16, "bf16", '64']
  scale: {range: {from: 0.1, to: 0.5, step: 0.1}}
  flag: {values: [true, false]}
  kv: {fixed: fp8, values: [auto, fp8], reason: only fp8 fits}
  ignored: {inert: true, reason: unused, fixed: 3}
)",
                            "t.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->params[0].values,
            (std::vector<Value>{Value("fp16"), Value("bf16"), Value(std::string("64"))}));
  EXPECT_EQ(spec->params[0].values[2].type(), Value::Type::kString);  // quoted stays a string
  EXPECT_EQ(spec->params[1].values, (std::vector<Value>{0.1, 0.2, 0.3, 0.4, 0.5}));
  EXPECT_EQ(spec->params[2].values, (std::vector<Value>{true, false}));
  EXPECT_EQ(spec->params[3].values, (std::vector<Value>{Value("fp8")}));
  EXPECT_EQ(spec->params[3].declared_levels.size(), 2u);
  EXPECT_TRUE(spec->params[4].values.empty());
  EXPECT_EQ(*spec->params[4].DefaultValue(), Value(3));
  EXPECT_EQ(spec->executor_type, "");
  EXPECT_EQ(spec->primary_metric().name, "time_ms");  // default metric
  EXPECT_FALSE(spec->reference.has_value());
}

// Each bad input gives ONE "FILE:LINE:COLUMN: ..." message saying what was expected.
struct BadCase {
  const char* name;
  const char* text;
  const char* where;    // "LINE:COLUMN"
  const char* message;  // substring expected after the location
};

const BadCase kBadCases[] = {
    {"malformed_yaml", "sweep: x\nparameters:\n  BM: {values: [16, 32}\n", "3:", "malformed YAML"},
    {"not_a_map", "- a\n- b\n", "1:1", "the top level: expected a map"},
    {"empty", "", "1:1", "the spec is empty"},
    {"missing_sweep", "parameters:\n  BM: [1]\n", "1:1", "missing required key 'sweep'"},
    {"bad_name", "sweep: a b\nparameters:\n  BM: [1]\n", "1:8", "must match [A-Za-z0-9_.-]+"},
    {"missing_parameters", "sweep: x\n", "1:1", "missing required key 'parameters'"},
    {"unknown_top_key", "sweep: x\nparamters:\n  BM: [1]\n", "2:1",
     "unknown key 'paramters' (did you mean 'parameters'?); allowed keys: sweep, description"},
    {"values_not_list", "sweep: x\nparameters:\n  BM: {values: 5}\n", "3:16",
     "parameter 'BM'.values: expected a list of values like [16, 32, 64], found '5'"},
    {"param_scalar", "sweep: x\nparameters:\n  BM: 5\n", "3:7",
     "parameter 'BM': expected a map such as {values: [16, 32]}"},
    {"values_and_range", "sweep: x\nparameters:\n  BM: {values: [1], range: {from: 1, to: 2}}\n",
     "3:28", "give either 'values' or 'range', not both"},
    {"empty_values", "sweep: x\nparameters:\n  BM: {values: []}\n", "3:16", "the list is empty"},
    {"dup_value", "sweep: x\nparameters:\n  BM: {values: [1, 2, 1]}\n", "3:23",
     "duplicate value '1'"},
    {"step_zero", "sweep: x\nparameters:\n  BM: {range: {from: 1, to: 4, step: 0}}\n", "3:38",
     "step: must be > 0, found 0"},
    {"step_negative", "sweep: x\nparameters:\n  BM: {range: {from: 1, to: 4, step: -2}}\n", "3:38",
     "must be > 0"},
    {"range_backwards", "sweep: x\nparameters:\n  BM: {range: {from: 8, to: 4}}\n", "3:29",
     "'to' (4) is below 'from' (8)"},
    {"range_missing_to", "sweep: x\nparameters:\n  BM: {range: {from: 8}}\n", "3:15",
     "needs both 'from' and 'to'"},
    {"range_unknown_key", "sweep: x\nparameters:\n  BM: {range: {from: 1, to: 4, stp: 2}}\n",
     "3:32", "unknown key 'stp' (did you mean 'step'?)"},
    {"pow2_empty", "sweep: x\nparameters:\n  BM: {range: {from: 5, to: 7, pow2: true}}\n", "3:15",
     "no power of two lies in [5, 7]"},
    {"too_many_levels", "sweep: x\nparameters:\n  BM: {range: {from: 0, to: 1e12}}\n", "3:15",
     "more than 1000000 levels"},
    {"pinned_no_reason", "sweep: x\nparameters:\n  use_v1: {fixed: true}\n", "3:11",
     "a pinned parameter needs a 'reason'"},
    {"inert_no_reason", "sweep: x\nparameters:\n  BN: {inert: true, values: [1]}\n", "3:7",
     "an inert parameter needs a 'reason'"},
    {"swept_no_levels", "sweep: x\nparameters:\n  BN: {group: k}\n", "3:7",
     "a swept parameter needs 'values' or 'range'"},
    {"unknown_param_key", "sweep: x\nparameters:\n  BN: {valuse: [1]}\n", "3:8",
     "unknown key 'valuse' (did you mean 'values'?); allowed keys: values, range, fixed"},
    {"inert_not_bool", "sweep: x\nparameters:\n  BN: {inert: maybe, reason: r}\n", "3:15",
     "expected true or false, found 'maybe'"},
    {"dup_param", "sweep: x\nparameters:\n  BM: [1]\n  BN: [2]\n  BM: [3]\n", "5:3",
     "duplicate key 'BM' (first given at line 3, column 3)"},
    {"bad_param_name", "sweep: x\nparameters:\n  block-m: [1]\n", "3:3",
     "names must match [A-Za-z_][A-Za-z0-9_]*"},
    {"keyword_param_name", "sweep: x\nparameters:\n  in: [1]\n", "3:3", "not be a keyword"},
    {"canonical_text_collision", "sweep: x\nparameters:\n  V: [64, \"64\", 32]\n", "3:11",
     "'64' (string) and '64' (int) have the same canonical text"},
    {"bool_text_collision", "sweep: x\nparameters:\n  F: {values: [true, \"true\"]}\n", "3:22",
     "same canonical text"},
    {"reserved_slot", "sweep: x\nparameters:\n  SLOT: [1, 2]\n", "3:3",
     "reserved for a value the worker fills in"},
    {"reserved_workdir", "sweep: x\nparameters:\n  WORKDIR: {fixed: /tmp, reason: r}\n", "3:3",
     "reserved for a value the worker fills in"},
    {"reserved_attempt", "sweep: x\nparameters:\n  ATTEMPT_ID: [1]\n", "3:3", "reserved"},
    {"reserved_device", "sweep: x\nparameters:\n  DEVICE: [1]\n", "3:3", "reserved"},
    {"reserved_bin", "sweep: x\nparameters:\n  FLEETSWEEP_BIN: [1]\n", "3:3", "reserved"},
    {"env_name_collision", "sweep: x\nparameters:\n  bm: [1]\n  BM: [2]\n", "4:3",
     "parameter 'BM': it and parameter 'bm' both become the environment variable "
     "FLEETSWEEP_PARAM_BM"},
    {"constraint_unknown_param",
     "sweep: x\nparameters:\n  BM: [1]\n  BN: [2]\nconstraints:\n"
     "  - \"BM % BK == 0\"\n",
     "6:11", "unknown parameter 'BK' (did you mean 'BM'?); declared: BM, BN"},
    {"constraint_syntax", "sweep: x\nparameters:\n  BM: [1]\nconstraints:\n  - \"BM >= (16\"\n",
     "5:15", "constraint \"BM >= (16\": column 10: expected ')', found end of expression"},
    {"constraint_plain_syntax", "sweep: x\nparameters:\n  BM: [1]\nconstraints:\n  - BM = 1\n",
     "5:8", "column 4: unexpected '='; use '==' to compare"},
    {"constraint_not_string", "sweep: x\nparameters:\n  BM: [1]\nconstraints:\n  - {a: 1}\n", "5:5",
     "constraint: expected a string"},
    {"constraints_not_list", "sweep: x\nparameters:\n  BM: [1]\nconstraints: BM > 1\n", "4:14",
     "constraints: expected a list"},
    {"constraint_on_inert",
     "sweep: x\nparameters:\n  BM: [1]\n  BN: {inert: true, reason: r}\n"
     "constraints:\n  - BN > 1\n",
     "6:5", "parameter 'BN' is inert"},
    {"constraint_eval_error",
     "sweep: x\nparameters:\n  BM: [0, 1]\nconstraints:\n"
     "  - \"4 % BM == 0\"\n",
     "5:6", "cannot be evaluated on BM=0: modulo by zero"},
    {"constraint_not_bool", "sweep: x\nparameters:\n  BM: [1, 2]\nconstraints:\n  - BM + 1\n",
     "5:5", "expected a boolean result, got int 2"},
    {"empty_space",
     "sweep: x\nparameters:\n  BM: [16, 32]\n  BN: [64, 128]\nconstraints:\n"
     "  - \"BM >= 16\"\n  - \"BM % BN == 0\"\n  - \"BN > 0\"\n",
     "7:6",
     "constraint 2 \"BM % BN == 0\" leaves no configuration (4 configurations satisfied the "
     "constraints before it, 0 after)"},
    {"unknown_goal", "sweep: x\nparameters:\n  BM: [1]\nmetrics:\n  - {name: t, goal: fastest}\n",
     "5:21", "metric 't'.goal: unknown goal 'fastest'; expected minimize or maximize"},
    {"metric_no_goal", "sweep: x\nparameters:\n  BM: [1]\nmetrics:\n  - {name: t}\n", "5:5",
     "'goal' is required"},
    {"metric_dup",
     "sweep: x\nparameters:\n  BM: [1]\nmetrics:\n  - {name: t, goal: minimize}\n"
     "  - {name: t, goal: maximize}\n",
     "6:12", "metric 't' is listed twice"},
    {"metric_bound_type",
     "sweep: x\nparameters:\n  BM: [1]\nmetrics:\n"
     "  - {name: t, goal: minimize, max: lots}\n",
     "5:36", "expected a number, found 'lots'"},
    {"reps_min_gt_max", "sweep: x\nparameters:\n  BM: [1]\nrepetitions: {min: 5, max: 2}\n", "4:20",
     "repetitions: min (5) exceeds max (2)"},
    {"reps_bad_type", "sweep: x\nparameters:\n  BM: [1]\nrepetitions: {min: three}\n", "4:20",
     "repetitions.min: expected an integer, found 'three'"},
    {"reps_zero", "sweep: x\nparameters:\n  BM: [1]\nrepetitions: {max: 0}\n", "4:20",
     "repetitions.max: must be in [1, 1000000]"},
    {"reps_unknown_key", "sweep: x\nparameters:\n  BM: [1]\nrepetitions: {mni: 1}\n", "4:15",
     "unknown key 'mni' (did you mean 'min'?)"},
    {"search_strategy", "sweep: x\nparameters:\n  BM: [1]\nsearch: {strategy: bayes}\n", "4:20",
     "unknown strategy 'bayes'; expected grid, random, lhs or racing"},
    {"search_budget", "sweep: x\nparameters:\n  BM: [1]\nsearch: {budget: -1}\n", "4:18",
     "search.budget: must be >= 0"},
    {"executor_not_map", "sweep: x\nexecutor: exec\nparameters:\n  BM: [1]\n", "2:11",
     "executor: expected a map"},
    {"executor_timeout", "sweep: x\nexecutor: {type: exec, timeout: -3}\nparameters:\n  BM: [1]\n",
     "2:33", "executor.timeout: must be > 0 seconds"},
    {"executor_dup_key", "sweep: x\nexecutor: {type: exec, type: torch}\nparameters:\n  BM: [1]\n",
     "2:24", "executor: duplicate key 'type'"},
    {"reference_unknown", "sweep: x\nparameters:\n  BM: [1, 2]\nreference: {BM: 1, BX: 2}\n",
     "4:20", "reference: unknown parameter 'BX'"},
    {"reference_not_level", "sweep: x\nparameters:\n  BM: [1, 2]\nreference: {BM: 3}\n", "4:17",
     "reference.BM: 3 is not one of its levels [1, 2]"},
    {"reference_missing", "sweep: x\nparameters:\n  BM: [1, 2]\n  BN: [1]\nreference: {BM: 1}\n",
     "5:12", "reference: missing swept parameter 'BN'"},
    {"reference_pinned",
     "sweep: x\nparameters:\n  BM: [1, 2]\n  v1: {fixed: true, reason: r}\n"
     "reference: {BM: 1, v1: false}\n",
     "5:24", "parameter is pinned to true"},
    {"reference_violates",
     "sweep: x\nparameters:\n  BM: [1, 2]\nconstraints: [\"BM > 1\"]\n"
     "reference: {BM: 1}\n",
     "5:12", "reference violates constraint \"BM > 1\""},
};

class BadSpecTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadSpecTest, GivesFileLineColumnAndMessage) {
  const BadCase& c = GetParam();
  auto spec = ParseSpecText(c.text, "bad.yaml");
  ASSERT_FALSE(spec.ok()) << c.name << " parsed";
  EXPECT_EQ(spec.status().code(), StatusCode::kInvalidArgument);
  const std::string& m = spec.status().message();
  EXPECT_EQ(m.rfind(std::string("bad.yaml:") + c.where, 0), 0u) << m;
  EXPECT_NE(m.find(c.message), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << "one line: " << m;
}

INSTANTIATE_TEST_SUITE_P(AllCases, BadSpecTest, ::testing::ValuesIn(kBadCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(SpecTest, BrokenSpecFilesInTestData) {
  struct FileCase {
    const char* file;
    const char* where;
    const char* message;
  };
  const FileCase cases[] = {
      {"bad-yaml.yaml", ":3:", "malformed YAML"},
      {"bad-type.yaml", ":3:16:", "expected a list of values"},
      {"dup-param.yaml", ":5:3:", "duplicate key 'BM'"},
      {"unknown-param-in-constraint.yaml", ":6:11:", "unknown parameter 'BK'"},
      {"empty-space.yaml", ":7:6:", "constraint 2 \"BM % BN == 0\" leaves no configuration"},
      {"missing-reason.yaml", ":3:11:", "needs a 'reason'"},
      {"unknown-key.yaml", ":2:1:", "unknown key 'paramters'"},
      {"constraint-syntax.yaml", ":5:15:", "expected ')'"},
      {"bad-goal.yaml", ":5:27:", "unknown goal 'fastest'"},
      {"reps-min-max.yaml", ":4:20:", "min (5) exceeds max (2)"},
  };
  for (const FileCase& c : cases) {
    std::string path = SrcRoot() + "/tests/data/specs/" + c.file;
    auto spec = ParseSpecFile(path);
    ASSERT_FALSE(spec.ok()) << path;
    const std::string& m = spec.status().message();
    EXPECT_EQ(m.rfind(path + c.where, 0), 0u) << m;
    EXPECT_NE(m.find(c.message), std::string::npos) << m;
  }
}

TEST(SpecTest, EveryBrokenSectionIsReportedOnItsOwnLine) {
  auto spec = ParseSpecText(
      "sweep: x\nexecutor: {command: [b], timeout: thirty}\nparameters:\n  BM: [1, 2]\n"
      "repetitions: {min: 5, max: 2}\nmetrics: [{name: t, goal: fastest}]\n",
      "bad.yaml");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), StatusCode::kInvalidArgument);
  std::vector<std::string> lines;
  std::istringstream in(spec.status().message());
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u) << spec.status().message();
  EXPECT_EQ(lines[0].rfind("bad.yaml:2:", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("executor.timeout"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[1].rfind("bad.yaml:5:", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find("min (5) exceeds max (2)"), std::string::npos) << lines[1];
  EXPECT_EQ(lines[2].rfind("bad.yaml:6:", 0), 0u) << lines[2];
  EXPECT_NE(lines[2].find("unknown goal 'fastest'"), std::string::npos) << lines[2];
}

TEST(SpecTest, MissingFileIsNotFound) {
  auto spec = ParseSpecFile("/nonexistent/spec.yaml");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), StatusCode::kNotFound);
  EXPECT_NE(spec.status().message().find("/nonexistent/spec.yaml: cannot read"), std::string::npos);
}

TEST(SpecTest, ExamplesParse) {
  for (const char* name : {"bi-v100-kernels.yaml", "bi-v100-engine.yaml"}) {
    auto spec = ParseSpecFile(SrcRoot() + "/examples/" + name);
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    EXPECT_TRUE(spec->reference.has_value()) << name;
  }
  auto kernels = ParseSpecFile(SrcRoot() + "/examples/bi-v100-kernels.yaml");
  ASSERT_TRUE(kernels.ok());
  EXPECT_EQ(kernels->executor_type, "torch");
  for (const char* name : {"BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M"}) {
    ASSERT_NE(kernels->FindParam(name), nullptr) << name;
  }
  EXPECT_EQ(kernels->FindParam("BLOCK_SIZE_M")->fate, ParamFate::kSwept);
  EXPECT_EQ(kernels->FindParam("GROUP_SIZE_M")->fate, ParamFate::kInert);
  EXPECT_EQ(kernels->FindParam("BLOCK_SIZE_N")->fate, ParamFate::kInert);
  EXPECT_EQ(kernels->FindParam("BLOCK_SIZE_N")->reason,
            "ixformer's vllm_invoke_fused_moe_kernel ignores it");
  EXPECT_EQ(kernels->FindParam("BLOCK_SIZE_M")->values, (std::vector<Value>{16, 32, 64, 128, 256}));
  auto engine = ParseSpecFile(SrcRoot() + "/examples/bi-v100-engine.yaml");
  ASSERT_TRUE(engine.ok());
  EXPECT_EQ(engine->executor_type, "exec");
  ASSERT_NE(engine->FindParam("max_model_len"), nullptr);
  EXPECT_EQ(engine->FindParam("max_model_len")->fate, ParamFate::kPinned);
  EXPECT_EQ(engine->primary_metric().goal, Goal::kMaximize);
  EXPECT_EQ(engine->metrics[1].max_value, 20000.0);
}

TEST(SpecTest, DocumentedExampleParses) {
  std::ifstream in(SrcRoot() + "/docs/spec.md");
  std::stringstream doc;
  doc << in.rdbuf();
  std::string text = doc.str();
  size_t begin = text.find("```yaml\n");
  ASSERT_NE(begin, std::string::npos);
  begin += 8;
  std::string yaml = text.substr(begin, text.find("```", begin) - begin);
  auto spec = ParseSpecText(yaml, "docs/spec.md");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->params.size(), 6u);
  EXPECT_EQ(spec->description, "tile sizes of the demo matmul");
}

TEST(SpecTest, NeverThrowsOnTruncatedInput) {
  // Every prefix of a valid spec parses or fails with a located message; none throws or crashes.
  std::string full = kFull;
  for (size_t n = 0; n <= full.size(); ++n) {
    auto spec = ParseSpecText(full.substr(0, n), "p.yaml");
    if (!spec.ok()) {
      EXPECT_EQ(spec.status().message().rfind("p.yaml:", 0), 0u);
    }
  }
}

}  // namespace
}  // namespace fleetsweep
