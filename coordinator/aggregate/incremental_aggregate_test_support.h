// Shared by the IncrementalAggregate tests: a 3 x 2 spec with a bounded second metric and a
// reference configuration, and its six configurations' records (PENDING) with the true time of
// each.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/space/spec.h"
#include "fleetsweep/v1/data.pb.h"

namespace fleetsweep::incremental_test {

inline SweepSpec Spec() {
  auto s = ParseSpecText(
      "sweep: inc\nparameters:\n  A: {values: [1, 2, 3]}\n  B: {values: [x, y]}\n"
      "metrics:\n  - {name: time_ms, goal: minimize}\n  - {name: mem, goal: minimize, max: 1.05}\n"
      "reference: {A: 1, B: x}\n",
      "<test>");
  EXPECT_TRUE(s.ok()) << s.status().message();
  return *s;
}

struct Sweep {
  std::vector<v1::ConfigRecord> records;
  std::vector<double> truth;  // per configuration
};

inline Sweep Records() {
  Sweep s;
  for (int a = 1; a <= 3; ++a) {
    for (const char* b : {"x", "y"}) {
      v1::ConfigRecord r;
      r.set_config_key("A=" + std::to_string(a) + ",B=" + b);
      (*r.mutable_params())["A"] = std::to_string(a);
      (*r.mutable_params())["B"] = b;
      r.set_state(v1::CONFIG_STATE_PENDING);
      s.records.push_back(r);
      s.truth.push_back(10 + a + (b[0] == 'y' ? 0.5 : 0));
    }
  }
  return s;
}

}  // namespace fleetsweep::incremental_test
