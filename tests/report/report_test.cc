// Unit tests of the report page, the exports and the watch view (tests/report). The page is
// rendered from hand-written results documents, including the audit fields docs/results.md
// describes, and hostile strings that must come out escaped.
#include "coordinator/report/report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "coordinator/report/export_vllm.h"
#include "coordinator/report/html_util.h"
#include "coordinator/report/svg.h"
#include "tests/report/report_fixtures.h"

namespace fleetsweep {
namespace {

using nlohmann::json;
using report_fixtures::Config;
using report_fixtures::Results;

TEST(HtmlUtil, EscapesEverythingThatMatters) {
  EXPECT_EQ(report::HtmlEscape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(report::FormatNumber(1234567.0), "1.235e+06");
  EXPECT_EQ(report::FormatNumber(0.5), "0.5");
}

TEST(Svg, IntervalChartHasOneMarkPerRowAndEscapesLabels) {
  std::vector<report::IntervalRow> rows = {{"a<b", 1, 0.5, 1.5, true, "winner"},
                                           {"c", 2, 1.5, 2.5, true, ""}};
  std::string svg = report::SvgIntervalChart(rows, "ms");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  size_t circles = 0;
  for (size_t p = svg.find("<circle"); p != std::string::npos; p = svg.find("<circle", p + 1)) {
    ++circles;
  }
  EXPECT_EQ(circles, 2u);
  EXPECT_NE(svg.find("a&lt;b"), std::string::npos);
  EXPECT_EQ(svg.find("a<b"), std::string::npos);
  EXPECT_EQ(report::SvgIntervalChart({}, "ms"), "");
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// Past the cap, every stride-th point and every new best are drawn; the best line is the same
// as when every point is drawn.
TEST(Svg, ProgressChartCapsItsDotsAndKeepsTheBestLine) {
  std::vector<report::ProgressPoint> points;
  for (int i = 0; i < 10000; ++i) {  // values falling in steps: a new best every 1000 points
    points.push_back({i / 100.0, 10.0 - i / 1000 + 0.5 * ((i * 7919) % 13) / 13.0});
  }
  const std::string all = report::SvgProgressChart(points, true, "ms", 0);
  const std::string capped = report::SvgProgressChart(points, true, "ms", 1000);
  EXPECT_EQ(Count(all, "<circle"), 10000u);
  EXPECT_EQ(report::ProgressStride(10000, 1000), 10u);
  const size_t drawn = Count(capped, "<circle");
  EXPECT_GE(drawn, 1000u);
  EXPECT_LE(drawn, 1000u + 30u) << "the stride's dots plus the few new bests";
  const size_t path = all.find("<path");
  ASSERT_NE(path, std::string::npos);
  EXPECT_EQ(all.substr(path), capped.substr(capped.find("<path")));
  EXPECT_EQ(report::ProgressStride(1000, 1000), 1u);
  EXPECT_EQ(report::ProgressStride(1001, 1000), 2u);
}

TEST(Svg, HeatmapMarksBestCellGreenAndEmptyCellsGrey) {
  report::Heatmap m;
  m.x_name = "x";
  m.y_name = "y";
  m.x_levels = {"1", "2"};
  m.y_levels = {"a"};
  m.cells = {{1.0, std::nullopt}};
  std::string svg = report::SvgHeatmap(m);
  EXPECT_NE(svg.find("#d8d8d8"), std::string::npos);  // the unmeasured cell
  EXPECT_NE(svg.find("#3cbe5a"), std::string::npos);  // best = green end of the scale
}

// The points="..." of each polyline, in document order.
std::vector<std::vector<std::pair<double, double>>> Polylines(const std::string& svg) {
  std::vector<std::vector<std::pair<double, double>>> out;
  for (size_t p = svg.find("<polyline points=\""); p != std::string::npos;
       p = svg.find("<polyline points=\"", p + 1)) {
    const size_t b = p + 18, e = svg.find('"', b);
    std::istringstream in(svg.substr(b, e - b));
    std::vector<std::pair<double, double>> pts;
    double x, y;
    char comma;
    while (in >> x >> comma >> y) pts.emplace_back(x, y);
    out.push_back(pts);
  }
  return out;
}

TEST(Svg, ParallelCoordinatesOneAxisPerParameterOneLinePerConfigurationBestOnTop) {
  std::vector<report::ParallelAxis> axes = {{"BM", {"16", "32", "64"}}, {"ORDER", {"ijk", "kji"}}};
  std::vector<report::ParallelLine> lines = {
      {"best", {0, 1}, 1.0, "winner"}, {"mid", {1, 0}, 2.0, ""}, {"worst <x>", {2, 0}, 3.0, ""}};
  const std::string svg = report::SvgParallelCoordinates(axes, lines, "time_ms");
  EXPECT_EQ(Count(svg, "<g class=\"pc-axis\">"), 2u);        // one per parameter
  EXPECT_EQ(Count(svg, "<g class=\"pc-axis value\">"), 1u);  // and the value
  const auto polys = Polylines(svg);
  ASSERT_EQ(polys.size(), 3u);
  for (const auto& p : polys) EXPECT_EQ(p.size(), 3u);  // two parameters and the value
  // Drawn worst first, so the best is the last (on top); the winner keeps its class.
  EXPECT_NE(svg.rfind("class=\"pc winner\""), std::string::npos);
  EXPECT_LT(svg.find("worst &lt;x&gt;"), svg.find("<title>best: 1</title>"));
  // Levels bottom to top in the order given; the value axis grows upwards.
  const auto& best = polys[2];
  const auto& worst = polys[0];
  EXPECT_GT(best[0].second, worst[0].second);  // BM=16 below BM=64
  EXPECT_LT(best[1].second, worst[1].second);  // ORDER=kji above ijk
  EXPECT_GT(best[2].second, worst[2].second);  // 1.0 below 3.0
  EXPECT_EQ(svg.find("worst <x>"), std::string::npos);
  EXPECT_EQ(report::SvgParallelCoordinates({}, lines, "ms"), "");
  EXPECT_EQ(report::SvgParallelCoordinates(axes, {}, "ms"), "");
}

TEST(Report, ParallelCoordinatesDrawEveryConfigurationWithResults) {
  auto html = RenderReportHtml(Results());
  ASSERT_TRUE(html.ok());
  const size_t at = html->find("<section id=\"parallel\">");
  ASSERT_NE(at, std::string::npos);
  const std::string section = html->substr(at, html->find("</section>", at) - at);
  EXPECT_EQ(Count(section, "<g class=\"pc-axis\">"), 2u);  // BM and ORDER vary
  EXPECT_EQ(Count(section, "<polyline"), 3u);              // k4 is infeasible: no line
  // A parameter with one value everywhere gets no axis.
  json r = Results();
  for (auto& c : r["configurations"]) c["params"]["ORDER"] = "ijk";
  html = RenderReportHtml(r);
  ASSERT_TRUE(html.ok());
  const size_t at2 = html->find("<section id=\"parallel\">");
  ASSERT_NE(at2, std::string::npos);
  EXPECT_EQ(Count(html->substr(at2, html->find("</section>", at2) - at2), "<g class=\"pc-axis\">"),
            1u);
}

TEST(Report, HasEverySectionAndEscapesStrings) {
  auto html = RenderReportHtml(Results());
  ASSERT_TRUE(html.ok()) << html.status().ToString();
  for (const char* id : {"verdict", "summary", "ranking", "heatmap", "effects", "infeasible",
                         "nodes", "fingerprints"}) {
    EXPECT_NE(html->find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  }
  EXPECT_EQ(html->find("<b>kji</b>"), std::string::npos);
  EXPECT_NE(html->find("&lt;b&gt;kji&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(html->find("a &lt;warning&gt; &amp; more"), std::string::npos);
  EXPECT_EQ(html->find("<script"), std::string::npos);
  EXPECT_NE(html->find("Winner: <b>BM=16 ORDER=ijk</b>"), std::string::npos);
  EXPECT_EQ(html->find("banner invalid"), std::string::npos);  // no "valid" field: no banner
  EXPECT_NE(html->find("EXIT_CODE"), std::string::npos);       // the infeasible config
}

TEST(Report, InvalidSweepGetsARedBannerWithReasons) {
  json r = Results();
  r["valid"] = false;
  r["invalid_reasons"] = {"BLOCK_SIZE_N never reached the kernel"};
  auto html = RenderReportHtml(r);
  ASSERT_TRUE(html.ok());
  EXPECT_NE(html->find("banner invalid"), std::string::npos);
  EXPECT_NE(html->find("BLOCK_SIZE_N never reached the kernel"), std::string::npos);
}

// The audit fields as coordinator/aggregate/results_writer.cc writes them (docs/results.md).
TEST(Report, ShowsAuditVerdictsNodeEffectsRegionsAndUnknownFields) {
  json r = Results();
  r["audit"] = {{"injection",
                 {{{"param", "BM"}, {"verdict", "not_injected"}, {"example", "BM=16 vs BM=32"}},
                  {{"param", "ORDER"}, {"verdict", "injected"}}}},
                {"inert",
                 {{{"param", "BM"},
                   {"verdict", "inert"},
                   {"test", "kruskal_wallis"},
                   {"p_value", 0.73},
                   {"spread", 0.01}}}},
                {"inert_rule", "inert when p > 0.05"},
                {"declared_inert", {{{"param", "UNROLL"}, {"reason", "no <unroll> knob"}}}},
                {"infeasible_regions",
                 {{{"param", "ORDER"},
                   {"value", "kji"},
                   {"whole", true},
                   {"text", "ORDER=kji: 1 of 1 configurations infeasible (exit_code)"}}}}};
  r["node_effects"] = {
      {"applied", true},
      {"method", "reference"},
      {"note", ""},
      {"nodes",
       {{{"node", "node-a"}, {"effect", 1.1}, {"ci_low", 1.0}, {"ci_high", 1.2}},
        {{"node", "node-b"}, {"effect", 0.9}, {"ci_low", nullptr}, {"ci_high", nullptr}}}}};
  r["winner_rule"] = "CI separation";
  r["winner_test"] = nullptr;
  r["something_new"] = {{"k", "<v>"}};
  auto html = RenderReportHtml(r);
  ASSERT_TRUE(html.ok()) << html.status().ToString();
  EXPECT_NE(html->find("<span class=\"tag bad\">fingerprints: not_injected</span>"),
            std::string::npos);
  EXPECT_NE(html->find("<span class=\"tag ok\">fingerprints: injected</span>"), std::string::npos);
  EXPECT_NE(html->find("effect test: inert"), std::string::npos);
  EXPECT_NE(html->find("p = 0.73"), std::string::npos);
  EXPECT_NE(html->find("no &lt;unroll&gt; knob"), std::string::npos);
  EXPECT_NE(html->find("ORDER=kji: 1 of 1 configurations infeasible"), std::string::npos);
  EXPECT_NE(html->find("Method: <b>reference</b>"), std::string::npos);
  EXPECT_NE(html->find("node effect (ratio"), std::string::npos);  // the node chart
  EXPECT_NE(html->find("Winner rule: CI separation"), std::string::npos);
  EXPECT_NE(html->find("id=\"other\""), std::string::npos);
  EXPECT_NE(html->find("&lt;v&gt;"), std::string::npos);
  EXPECT_EQ(html->find("<h3>audit</h3>"), std::string::npos);  // shown in its sections
  // A field of an unexpected type is an error, not a crash.
  r["node_effects"]["method"] = 3;
  EXPECT_EQ(RenderReportHtml(r).status().code(), StatusCode::kInvalidArgument);
}

TEST(Report, HeatmapAxesAreCheckedAndDefaultToLargestEffects) {
  ReportOptions o;
  o.x_param = "NOPE";
  EXPECT_EQ(RenderReportHtml(Results(), o).status().code(), StatusCode::kInvalidArgument);
  auto html = RenderReportHtml(Results());
  ASSERT_TRUE(html.ok());
  // ORDER moves the median by 1.5 (of 2.0), BM by 0.5 (of 1.0 and 1.0 -> 2.0 and ...).
  EXPECT_NE(html->find("Heatmap: ORDER &times; BM"), std::string::npos);
  // Tolerates an empty document.
  EXPECT_TRUE(RenderReportHtml(json::object()).ok());
}

TEST(Svg, NiceTicksAndALogAxisWhenValuesSpanMoreThan3x) {
  report::Axis lin = report::NiceAxis(10.2, 12.7);
  EXPECT_FALSE(lin.log);
  EXPECT_EQ(lin.lo, 10);
  EXPECT_EQ(lin.hi, 13);
  EXPECT_EQ(lin.ticks, (std::vector<double>{10, 10.5, 11, 11.5, 12, 12.5, 13}));
  // The values: 0.3468 ... 1.944 span 5.6x -> log axis at 1-2-5 ticks.
  report::Axis log = report::NiceAxis(0.3468, 1.944);
  EXPECT_TRUE(log.log);
  EXPECT_DOUBLE_EQ(log.lo, 0.2);
  EXPECT_DOUBLE_EQ(log.hi, 2);
  ASSERT_EQ(log.ticks.size(), 4u);
  EXPECT_DOUBLE_EQ(log.ticks[1], 0.5);
  EXPECT_DOUBLE_EQ(log.Fraction(std::sqrt(0.2 * 2)), 0.5);
  EXPECT_FALSE(report::NiceAxis(-1, 5).log);  // not positive: linear
  std::vector<report::IntervalRow> rows = {{"a", 0.3468, 0.33, 0.36, true, ""},
                                           {"b", 1.944, 1.9, 2.0, true, ""}};
  std::string svg = report::SvgIntervalChart(rows, "ms");
  EXPECT_NE(svg.find("ms (log scale)"), std::string::npos);
  EXPECT_NE(svg.find(">0.5</text>"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("0.3468</text>"), std::string::npos) << "ticks are round numbers";
}

SweepInputs MoeInputs() {
  SweepInputs in;
  in.results = Results();
  in.results["configurations"] = {Config(1, "a", {{"BLOCK_SIZE_M", "32"}, {"M", "64"}}, 1.0),
                                  Config(2, "b", {{"BLOCK_SIZE_M", "16"}, {"M", "1"}}, 1.5),
                                  Config(3, "c", {{"BLOCK_SIZE_M", "64"}, {"M", "1"}}, 2.0)};
  in.results["winner"] = nullptr;
  auto spec = ParseSpecText(
      "sweep: t\nexecutor: {type: exec, command: [x], shapes: {E: 8, N: 256}}\n"
      "parameters:\n  BLOCK_SIZE_M: {values: [16, 32, 64]}\n  M: {values: [1, 64]}\n"
      "  num_warps: {inert: true, values: [8, 4], reason: ignored}\n"
      "metrics: [{name: time_ms, goal: minimize}]\n",
      "<test>");
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  if (spec.ok()) in.spec = *spec;
  return in;
}

TEST(ExportVllmMoe, OneEntryPerBatchSizeNothingInvented) {
  MoeExportOptions o;
  o.device_name = "My GPU";
  auto ex = ExportVllmMoe(MoeInputs(), o);
  ASSERT_TRUE(ex.ok()) << ex.status().ToString();
  // vLLM's get_config_file_name: no dtype part for an unknown (float16/bfloat16) dtype.
  EXPECT_EQ(ex->file_name, "E=8,N=256,device_name=My_GPU.json");
  ASSERT_EQ(ex->config.size(), 2u);
  EXPECT_EQ(ex->config.begin().key(), "1");        // increasing M
  EXPECT_EQ(ex->config["1"]["BLOCK_SIZE_M"], 16);  // best-ranked at M=1
  EXPECT_EQ(ex->config["64"]["BLOCK_SIZE_M"], 32);
  // Not set by the sweep: tiles get vLLM's own default for that M (M <= E: 32/64/1), and the
  // launch options (num_warps inert without `fixed`, num_stages absent) are left out.
  EXPECT_EQ(ex->config["1"]["BLOCK_SIZE_N"], 32);
  EXPECT_EQ(ex->config["64"]["BLOCK_SIZE_N"], 64);
  EXPECT_FALSE(ex->config["1"].contains("num_stages"));
  EXPECT_FALSE(ex->config["1"].contains("num_warps"));
  EXPECT_EQ(ex->config["1"].size(), 4u);
  EXPECT_TRUE(ex->ties.empty());
  o.device_name.clear();
  EXPECT_EQ(ExportVllmMoe(MoeInputs(), o).status().code(), StatusCode::kInvalidArgument);
}

TEST(ExportVllmMoe, DtypeAndBlockShapeInTheFileNameAsVllmNamesThem) {
  MoeExportOptions o;
  o.device_name = "NVIDIA H100 80GB HBM3";
  o.dtype = "float32";  // vLLM: dtype == torch.float -> "float32"
  EXPECT_EQ(ExportVllmMoe(MoeInputs(), o)->file_name,
            "E=8,N=256,device_name=NVIDIA_H100_80GB_HBM3,dtype=float32.json");
  o.dtype = "fp8_w8a8";
  o.block_shape = "128, 128";
  EXPECT_EQ(ExportVllmMoe(MoeInputs(), o)->file_name,
            "E=8,N=256,device_name=NVIDIA_H100_80GB_HBM3,dtype=fp8_w8a8,block_shape=[128,128]"
            ".json");
  o.block_shape = "0,128";  // vLLM: `not all(block_shape)` -> no part
  o.dtype = "torch.bfloat16";
  EXPECT_EQ(ExportVllmMoe(MoeInputs(), o)->file_name,
            "E=8,N=256,device_name=NVIDIA_H100_80GB_HBM3.json");
  o.dtype = "float8";
  EXPECT_EQ(ExportVllmMoe(MoeInputs(), o).status().code(), StatusCode::kInvalidArgument);
}

TEST(ExportVllmMoe, DeviceDtypeAndMFromWhatTheBenchmarkReported) {
  SweepInputs in = MoeInputs();
  // M is not a parameter: each configuration's M comes from the shapes its attempts ran.
  in.results["configurations"] = {Config(1, "a", {{"BLOCK_SIZE_M", "32"}}, 1.0),
                                  Config(2, "b", {{"BLOCK_SIZE_M", "64"}}, 3.0),
                                  Config(3, "c", {{"BLOCK_SIZE_M", "16"}}, 5.0)};
  auto attempt = [](const std::string& key, const std::string& shapes) {
    v1::Attempt a;
    a.set_config_key(key);
    a.set_ok(true);
    (*a.mutable_info())["shapes"] = shapes;
    (*a.mutable_info())["device_name"] = "NVIDIA H200";
    (*a.mutable_info())["dtype"] = "Float";  // libtorch's name of float32
    return a;
  };
  in.attempts = {attempt("a", "E=8,M=16,N=256"), attempt("b", "E=8,M=16,N=256"),
                 attempt("c", "E=8,M=4096,N=256")};
  auto ex = ExportVllmMoe(in, MoeExportOptions());
  ASSERT_TRUE(ex.ok()) << ex.status().ToString();
  EXPECT_EQ(ex->file_name, "E=8,N=256,device_name=NVIDIA_H200,dtype=float32.json");
  ASSERT_EQ(ex->config.size(), 2u);
  EXPECT_EQ(ex->config["16"]["BLOCK_SIZE_M"], 32);
  EXPECT_EQ(ex->config["4096"]["BLOCK_SIZE_M"], 16);
  // A CPU run is refused without an explicit device name.
  for (auto& a : in.attempts) {
    a.mutable_info()->erase("device_name");
    (*a.mutable_info())["device"] = "cpu";
  }
  auto cpu = ExportVllmMoe(in, MoeExportOptions());
  ASSERT_FALSE(cpu.ok());
  EXPECT_NE(cpu.status().message().find("CPU"), std::string::npos);
}

TEST(ExportVllmMoe, TritonMinimumDotSizeAndTiesAreSaid) {
  SweepInputs in = MoeInputs();
  in.results["configurations"] = {Config(1, "a", {{"BLOCK_SIZE_M", "8"}, {"M", "1"}}, 1.0),
                                  Config(2, "b", {{"BLOCK_SIZE_M", "16"}, {"M", "1"}}, 1.02),
                                  Config(3, "c", {{"BLOCK_SIZE_M", "32"}, {"M", "1"}}, 1.04)};
  MoeExportOptions o;
  o.device_name = "NVIDIA A100-SXM4-80GB";
  auto ex = ExportVllmMoe(in, o);
  ASSERT_TRUE(ex.ok()) << ex.status().ToString();
  EXPECT_EQ(ex->config["1"]["BLOCK_SIZE_M"], 16);  // 8 cannot compile in vLLM's Triton kernel
  bool skipped = false;
  for (const auto& n : ex->notes)
    skipped |=
        n.find("BLOCK_SIZE_M=8") != std::string::npos && n.find("skipped") != std::string::npos;
  EXPECT_TRUE(skipped);
  ASSERT_EQ(ex->ties.size(), 1u);  // 1.02 +-5% overlaps 1.0 and 1.04
  EXPECT_NE(ex->ties[0].find("exported BLOCK_SIZE_M=16"), std::string::npos) << ex->ties[0];
  EXPECT_NE(ex->ties[0].find("BLOCK_SIZE_M=32"), std::string::npos) << ex->ties[0];
  // Not an NVIDIA GPU (BI-V100's ixformer kernel): kept, with a note.
  o.device_name = "Iluvatar BI-V100";
  EXPECT_EQ(ExportVllmMoe(in, o)->config["1"]["BLOCK_SIZE_M"], 8);
}

TEST(ExportEngineArgs, OnlyDeclaredEngineArgumentsAndYamlThatReadsLikeTheFlags) {
  SweepInputs in;
  in.results = Results();
  in.results["configurations"] = {Config(
      1, "a", {{"max_num_seqs", "256"}, {"enable_prefix_caching", "false"}, {"BM", "64"}}, 1.0)};
  in.results["winner"] = {{"key", "a"}};
  EXPECT_EQ(ExportEngineArgs(in).status().code(), StatusCode::kInvalidArgument);  // no spec
  auto spec = ParseSpecText(
      "sweep: t\nexecutor: {command: [x]}\nparameters:\n"
      "  max_num_seqs: {values: [128, 256], group: engine}\n"
      "  enable_prefix_caching: {values: [true, false], group: engine}\n"
      "  BM: {values: [32, 64], group: kernel}\n"
      "  max_model_len: {fixed: 4096, values: [4096, 8192], group: engine, reason: deployment}\n",
      "<test>");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  in.spec = *spec;
  auto ex = ExportEngineArgs(in);
  ASSERT_TRUE(ex.ok()) << ex.status().ToString();
  EXPECT_EQ(ex->cli, "--max-num-seqs 256 --no-enable-prefix-caching --max-model-len 4096");
  // vLLM's config loader drops `enable-prefix-caching: false`: write the --no- form.
  EXPECT_EQ(ex->yaml, "max-num-seqs: 256\nno-enable-prefix-caching: true\nmax-model-len: 4096\n");
  EXPECT_EQ(ex->yaml.find("BM"), std::string::npos);  // a kernel tile, not an engine argument
  for (auto& p : in.spec->params) p.group = "kernel";
  EXPECT_EQ(ExportEngineArgs(in).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fleetsweep
