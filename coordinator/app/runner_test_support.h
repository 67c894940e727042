// Test support for the sweep runner's tests (sweep_runner_test, live_audits_test): a 3-level
// sweep spec and a driver that runs it to its end through the scheduler's API (no sockets).
// Test-only: defined in an anonymous namespace of each test that includes it.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "coordinator/scheduler/scheduler.h"
#include "fleetsweep/v1/wire.pb.h"

namespace fleetsweep {
namespace {

constexpr char kSpec[] = R"(sweep: runner
executor: {type: exec, command: ["/bin/true"], timeout: 5}
parameters:
  A: {values: [1, 2, 3]}
repetitions: {min: 3, max: 3, target_rel_ci: 0.5, max_failures: 3, deterministic_failures: 1}
metrics: [{name: t, goal: minimize, unit: ms}]
)";

v1::Result Answer(const v1::Lease& l, double value) {
  v1::Result r;
  r.set_lease_id(l.lease_id());
  r.set_sweep(l.sweep());
  auto* a = r.mutable_attempt();
  a->set_config_key(l.config_key());
  a->set_attempt_id(l.lease_id());
  a->set_node("n1");
  a->set_ok(true);
  a->set_fingerprint("same-code-for-all");
  for (int i = 0; i < 3; ++i) {
    auto* s = a->add_samples();
    s->set_metric("t");
    s->set_value(value + 0.01 * i);
  }
  return r;
}

// Runs every configuration to repetitions.min through the scheduler's API (no sockets).
void RunAll(Scheduler& s, double* now) {
  v1::Hello h;
  h.mutable_node()->set_node("n1");
  h.mutable_node()->set_slots(1);
  s.OnHello("w", h, *now);
  for (int i = 0; i < 50 && !s.Finished(); ++i) {
    for (const auto& l : s.OnWorkRequest("w", 1, *now)) {
      ASSERT_TRUE(s.OnResult("w", Answer(l, 10.0 + std::stoi(l.params().at("A"))), *now).ok());
    }
    *now += 1;
  }
}

}  // namespace
}  // namespace fleetsweep
