// A `type: torch` section with `session: {mode: persistent}` run the way the worker runs it: the
// Launcher translates it (TorchSectionToExecYaml), a PersistentSession starts the real
// fleetsweep-torch-bench ($FLEETSWEEP_BIN) once and sends it one execution after another. CPU,
// tiny shapes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "worker/executors/persistent_session.h"
#include "worker/executors/session.h"

namespace fleetsweep {
namespace {

std::string Bin() {
  const char* bin = std::getenv("FLEETSWEEP_BIN");
  return bin ? bin : "";
}

std::string Info(const v1::Attempt& a, const std::string& key) {
  auto it = a.info().find(key);
  return it == a.info().end() ? "<none>" : it->second;
}

ExecutionRequest Request(const std::string& id, const std::string& block_size_m) {
  ExecutionRequest r;
  r.params["BLOCK_SIZE_M"] = Value::FromText(block_size_m);
  r.attempt_id = id;
  r.timeout_seconds = 120;
  r.worker_bin_dir = Bin();
  return r;
}

const char kSection[] = R"(type: torch
kernel: moe
device: cpu
threads: 1
reps: 3
warmup: 1
shapes: {M: 16, K: 32, N: 64, E: 4, topk: 2}
timeout: 120
session: {mode: persistent, max_executions: 100}
)";

TEST(TorchSession, TheWorkerRunsTheTorchBenchAsAPersistentSession) {
  ASSERT_FALSE(Bin().empty()) << "FLEETSWEEP_BIN is not set";
  auto launcher = Launcher::Create(kSection, {});
  ASSERT_TRUE(launcher.ok()) << launcher.status().ToString();
  ASSERT_TRUE((*launcher)->persistent());  // session: reached the exec section
  EXPECT_TRUE((*launcher)->KeyFor({{"BLOCK_SIZE_M", Value::FromText("8")}}).params.empty());
  auto session = (*launcher)->Open(Request("a1", "8"));
  TimingGate gate;

  v1::Attempt a8 = session->Execute(Request("a1", "8"), &gate);
  ASSERT_TRUE(a8.ok()) << a8.failure_detail() << "\n" << a8.stdout_tail() << a8.stderr_tail();
  EXPECT_EQ(a8.samples_size(), 3);
  EXPECT_EQ(a8.fingerprint().size(), 16u);
  EXPECT_EQ(Info(a8, "session.mode"), "persistent");
  EXPECT_EQ(Info(a8, "session.position"), "1");
  EXPECT_EQ(Info(a8, "kernel"), "fused_moe");  // an info line from before ready
  EXPECT_EQ(Info(a8, "consumed_params"), "BLOCK_SIZE_M=8");
  EXPECT_EQ(Info(a8, "input_cache"), "miss");

  v1::Attempt a16 = session->Execute(Request("a2", "16"), &gate);
  ASSERT_TRUE(a16.ok()) << a16.failure_detail();
  EXPECT_EQ(Info(a16, "session.position"), "2");
  EXPECT_EQ(Info(a16, "session.id"), Info(a8, "session.id"));
  EXPECT_EQ(Info(a16, "input_cache"), "hit");
  EXPECT_NE(a16.fingerprint(), a8.fingerprint());  // each execution's own

  // A bad parameter fails that execution only; the session serves the next one.
  v1::Attempt bad = session->Execute(Request("a3", "zero"), &gate);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.failure_detail().find("invalid_argument"), std::string::npos)
      << bad.failure_detail();
  // One-shot exits 2 (EXIT_CODE); the serve mode says status 2 on its end line, so the worker
  // classifies the execution the same way (docs/executors.md, the session protocol).
  EXPECT_EQ(bad.failure_class(), v1::FAILURE_CLASS_EXIT_CODE);
  EXPECT_EQ(bad.samples_size(), 0);
  EXPECT_TRUE(session->Reusable());

  v1::Attempt again = session->Execute(Request("a4", "8"), &gate);
  ASSERT_TRUE(again.ok()) << again.failure_detail();
  EXPECT_EQ(Info(again, "session.position"), "4");
  EXPECT_EQ(again.fingerprint(), a8.fingerprint());
  EXPECT_EQ(gate.acquisitions(), 3);  // the failed prepare never timed
}

TEST(TorchSession, AProcessLevelErrorIsALaunchFailure) {
  ASSERT_FALSE(Bin().empty());
  auto launcher = Launcher::Create(
      "type: torch\nkernel: moe\ndevice: cpu\nshapes: {M: 16, Q: 3}\nsession: {mode: persistent}\n",
      {});
  ASSERT_TRUE(launcher.ok()) << launcher.status().ToString();
  v1::Attempt a = (*launcher)->Open(Request("a1", "8"))->Execute(Request("a1", "8"), nullptr);
  EXPECT_EQ(a.failure_class(), v1::FAILURE_CLASS_LAUNCH) << a.failure_detail();
  EXPECT_NE(a.stdout_tail().find("unknown shape(s) for fused_moe: Q"), std::string::npos)
      << a.stdout_tail();
}

}  // namespace
}  // namespace fleetsweep
