// ServeSession's device request: a server whose prepare uses the device asks for the worker's
// timing gate before each prepare and waits for its device_granted (serve.h). A fake server
// records what it was asked to do; requests come from a temporary file, output goes to another.
#include "worker/executors/torch/serve.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace fleetsweep::torchbench {
namespace {

class FakeServer : public ExecutionServer {
 public:
  explicit FakeServer(bool uses_device) : uses_device_(uses_device) {}
  // Records "prepare" and the parameters it was given ("prepare B=8,C=1" when any); writes one
  // info line naming them (when it has an emitter); a parameter valued "bad" fails the prepare.
  int Prepare(const BenchOptions& options) override {
    std::string text;
    bool bad = false;
    for (const auto& [name, value] : options.params) {
      text += (text.empty() ? "" : ",") + name + "=" + value;
      bad = bad || value == "bad";
    }
    calls.push_back(text.empty() ? "prepare" : "prepare " + text);
    if (out != nullptr) out->Info("prepared_params", text);
    if (out != nullptr && bad) out->Error("invalid_argument", "a value named bad");
    return bad ? kExitInvalid : kExitOk;
  }
  int Run() override {
    calls.push_back("run");
    return kExitOk;
  }
  void Forget() override {}
  void DropCaches() override {}
  bool UsesDevice() const override { return uses_device_; }
  std::vector<std::string> calls;
  Emitter* out = nullptr;

 private:
  bool uses_device_;
};

struct Served {
  int status = -1;
  std::vector<std::string> lines;  // what the session wrote, one per line
};

Served Serve(FakeServer& server, const std::string& requests,
             const BenchOptions& options = BenchOptions{}) {
  std::FILE* in = std::tmpfile();
  std::FILE* out_file = std::tmpfile();
  std::fputs(requests.c_str(), in);
  std::rewind(in);
  Emitter out(out_file);
  server.out = &out;
  Served s;
  s.status = ServeSession(server, options, in, out);
  server.out = nullptr;
  std::rewind(out_file);
  char buf[4096];
  while (std::fgets(buf, sizeof buf, out_file)) {
    std::string l(buf);
    if (!l.empty() && l.back() == '\n') l.pop_back();
    s.lines.push_back(l);
  }
  std::fclose(in);
  std::fclose(out_file);
  return s;
}

size_t IndexOf(const std::vector<std::string>& lines, const std::string& needle) {
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find(needle) != std::string::npos) return i;
  }
  return lines.size();
}

TEST(ServeDevice, ADeviceServerAsksForTheDeviceBeforeItPrepares) {
  FakeServer server(/*uses_device=*/true);
  Served s = Serve(server,
                   "{\"fleetsweep\":\"prepare\",\"attempt_id\":\"a1\",\"params\":{}}\n"
                   "{\"fleetsweep\":\"device_granted\",\"attempt_id\":\"a1\"}\n"
                   "{\"fleetsweep\":\"run\",\"attempt_id\":\"a1\"}\n");
  EXPECT_EQ(s.status, kExitOk);
  EXPECT_EQ(server.calls, (std::vector<std::string>{"prepare", "run"}));
  const size_t device = IndexOf(s.lines, R"("fleetsweep":"device","attempt_id":"a1")");
  const size_t prepared = IndexOf(s.lines, R"("fleetsweep":"prepared","attempt_id":"a1")");
  const size_t end = IndexOf(s.lines, R"("fleetsweep":"end","attempt_id":"a1")");
  ASSERT_LT(device, s.lines.size());
  ASSERT_LT(prepared, s.lines.size());
  ASSERT_LT(end, s.lines.size());
  EXPECT_LT(device, prepared);
  EXPECT_LT(prepared, end);
}

TEST(ServeDevice, AServerWithoutADeviceNeverAsks) {
  FakeServer server(/*uses_device=*/false);
  Served s = Serve(server,
                   "{\"fleetsweep\":\"prepare\",\"attempt_id\":\"a1\",\"params\":{}}\n"
                   "{\"fleetsweep\":\"run\",\"attempt_id\":\"a1\"}\n");
  EXPECT_EQ(s.status, kExitOk);
  EXPECT_EQ(server.calls, (std::vector<std::string>{"prepare", "run"}));
  EXPECT_EQ(IndexOf(s.lines, R"("fleetsweep":"device")"), s.lines.size());
}

TEST(ServeDevice, AWrongAnswerToTheDeviceRequestEndsTheSessionWithoutPreparing) {
  FakeServer server(/*uses_device=*/true);
  Served s = Serve(server,
                   "{\"fleetsweep\":\"prepare\",\"attempt_id\":\"a1\",\"params\":{}}\n"
                   "{\"fleetsweep\":\"device_granted\",\"attempt_id\":\"a2\"}\n"
                   "{\"fleetsweep\":\"run\",\"attempt_id\":\"a1\"}\n");
  EXPECT_EQ(s.status, kExitInvalid);
  EXPECT_TRUE(server.calls.empty());
  const size_t error = IndexOf(s.lines, "expected device_granted for \\\"a1\\\"");
  EXPECT_LT(error, s.lines.size());
}

TEST(ServeDevice, TheSessionEndsQuietlyWhenStdinClosesDuringTheDeviceWait) {
  FakeServer server(/*uses_device=*/true);
  Served s = Serve(server, "{\"fleetsweep\":\"prepare\",\"attempt_id\":\"a1\",\"params\":{}}\n");
  EXPECT_EQ(s.status, kExitOk);
  EXPECT_TRUE(server.calls.empty());
}

TEST(ServeDevice, AnUnaskedDeviceGrantIsABadRequestAndTheSessionGoesOn) {
  FakeServer server(/*uses_device=*/false);
  Served s = Serve(server,
                   "{\"fleetsweep\":\"device_granted\",\"attempt_id\":\"x\"}\n"
                   "{\"fleetsweep\":\"prepare\",\"attempt_id\":\"a1\",\"params\":{}}\n"
                   "{\"fleetsweep\":\"run\",\"attempt_id\":\"a1\"}\n");
  EXPECT_EQ(s.status, kExitOk);
  EXPECT_EQ(server.calls, (std::vector<std::string>{"prepare", "run"}));
  EXPECT_LT(IndexOf(s.lines, "without a device request"), s.lines.size());
}

// --prewarm: before ready, the session asks for the device, then prepares each set once (with the
// process's values for the other parameters), drops what they print and says so in one `prewarm`
// info line before ready; no execution prewarms again.
TEST(ServePrewarm, TheStartWarmsEachSetOnceHoldingTheDeviceBeforeReady) {
  FakeServer server(/*uses_device=*/true);
  BenchOptions options;
  options.params = {{"C", "0"}};
  options.prewarm = {{{"B", "8"}}, {{"B", "16"}}};
  Served s = Serve(server,
                   "{\"fleetsweep\":\"device_granted\",\"attempt_id\":\"session-1\"}\n"
                   "{\"fleetsweep\":\"prepare\",\"attempt_id\":\"a1\",\"params\":"
                   "{\"B\":\"32\",\"C\":\"1\"}}\n"
                   "{\"fleetsweep\":\"device_granted\",\"attempt_id\":\"a1\"}\n"
                   "{\"fleetsweep\":\"run\",\"attempt_id\":\"a1\"}\n"
                   "{\"fleetsweep\":\"prepare\",\"attempt_id\":\"a2\",\"params\":"
                   "{\"B\":\"8\",\"C\":\"1\"}}\n"
                   "{\"fleetsweep\":\"device_granted\",\"attempt_id\":\"a2\"}\n"
                   "{\"fleetsweep\":\"run\",\"attempt_id\":\"a2\"}\n",
                   options);
  EXPECT_EQ(s.status, kExitOk);
  EXPECT_EQ(server.calls,
            (std::vector<std::string>{"prepare B=8,C=0", "prepare B=16,C=0", "prepare B=32,C=1",
                                      "run", "prepare B=8,C=1", "run"}));
  // The warm sets' own lines are dropped; each execution keeps its own.
  EXPECT_EQ(IndexOf(s.lines, R"("value":"B=16,C=0")"), s.lines.size());
  const size_t device = IndexOf(s.lines, R"({"fleetsweep":"device"})");
  const size_t note = IndexOf(s.lines, R"("key":"prewarm","value":"2 sets in )");
  const size_t ready = IndexOf(s.lines, R"("fleetsweep":"ready")");
  const size_t first = IndexOf(s.lines, R"("fleetsweep":"device","attempt_id":"a1")");
  ASSERT_LT(ready, s.lines.size());
  EXPECT_LT(device, note);
  EXPECT_LT(note, ready);
  EXPECT_LT(ready, first);
  size_t notes = 0;
  for (const auto& l : s.lines) notes += l.find(R"("key":"prewarm")") != std::string::npos;
  EXPECT_EQ(notes, 1u);
}

// Before ready, anything but device_granted ends the session before any prepare; an end of
// stdin while it waits ends it quietly.
TEST(ServePrewarm, AWrongAnswerBeforeReadyEndsTheSessionWithoutPreparing) {
  BenchOptions options;
  options.prewarm = {{{"B", "8"}}};
  FakeServer server(/*uses_device=*/true);
  Served s = Serve(server, "{\"fleetsweep\":\"prepare\",\"attempt_id\":\"a1\"}\n", options);
  EXPECT_EQ(s.status, kExitInvalid);
  EXPECT_TRUE(server.calls.empty());
  EXPECT_LT(IndexOf(s.lines, "expected device_granted before ready"), s.lines.size());
  EXPECT_EQ(IndexOf(s.lines, R"("fleetsweep":"ready")"), s.lines.size());
  FakeServer quiet(/*uses_device=*/true);
  Served q = Serve(quiet, "", options);
  EXPECT_EQ(q.status, kExitOk);
  EXPECT_TRUE(quiet.calls.empty());
  EXPECT_EQ(IndexOf(q.lines, R"("fleetsweep":"ready")"), q.lines.size());
}

TEST(ServePrewarm, AFailingSetIsNamedAndTheExecutionStillRuns) {
  FakeServer server(/*uses_device=*/false);
  BenchOptions options;
  options.prewarm = {{{"B", "bad"}}, {{"B", "16"}}};
  Served s = Serve(server,
                   "{\"fleetsweep\":\"prepare\",\"attempt_id\":\"a1\",\"params\":"
                   "{\"B\":\"32\"}}\n"
                   "{\"fleetsweep\":\"run\",\"attempt_id\":\"a1\"}\n",
                   options);
  EXPECT_EQ(s.status, kExitOk);
  EXPECT_EQ(server.calls,
            (std::vector<std::string>{"prepare B=bad", "prepare B=16", "prepare B=32", "run"}));
  EXPECT_LT(IndexOf(s.lines, "failed: B=bad (exit "), IndexOf(s.lines, R"("fleetsweep":"ready")"));
  EXPECT_EQ(IndexOf(s.lines, R"("fleetsweep":"device")"), s.lines.size());  // no device: no ask
  EXPECT_LT(IndexOf(s.lines, R"("fleetsweep":"end","attempt_id":"a1"})"), s.lines.size());
  EXPECT_EQ(IndexOf(s.lines, R"("type":"error")"), s.lines.size());  // dropped with the warm set
}

}  // namespace
}  // namespace fleetsweep::torchbench
