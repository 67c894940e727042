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
  int Prepare(const BenchOptions&) override {
    calls.push_back("prepare");
    return kExitOk;
  }
  int Run() override {
    calls.push_back("run");
    return kExitOk;
  }
  void Forget() override {}
  void DropCaches() override {}
  bool UsesDevice() const override { return uses_device_; }
  std::vector<std::string> calls;

 private:
  bool uses_device_;
};

struct Served {
  int status = -1;
  std::vector<std::string> lines;  // what the session wrote, one per line
};

Served Serve(FakeServer& server, const std::string& requests) {
  std::FILE* in = std::tmpfile();
  std::FILE* out_file = std::tmpfile();
  std::fputs(requests.c_str(), in);
  std::rewind(in);
  Emitter out(out_file);
  Served s;
  s.status = ServeSession(server, BenchOptions{}, in, out);
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

}  // namespace
}  // namespace fleetsweep::torchbench
