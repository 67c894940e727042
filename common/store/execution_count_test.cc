// CountExecutions / ExecutionsText and FailureClassText: what every view prints.
#include "common/store/execution_count.h"

#include <gtest/gtest.h>

#include "common/store/failure_text.h"

namespace fleetsweep {
namespace {

v1::Attempt Attempt(bool ok, bool reference) {
  v1::Attempt a;
  a.set_ok(ok);
  a.set_reference(reference);
  return a;
}

TEST(ExecutionCount, EveryExecutionReferenceIncludedFailedApart) {
  const ExecutionCount c = CountExecutions(
      {Attempt(true, false), Attempt(false, false), Attempt(true, true), Attempt(false, true)});
  EXPECT_EQ(c.executions, 4);
  EXPECT_EQ(c.failed, 2);
  EXPECT_EQ(ExecutionsText(c), "4 executions (2 failed)");
  EXPECT_EQ(ExecutionsText({1, 0}), "1 execution (0 failed)");
  EXPECT_EQ(CountExecutions({}).executions, 0);
}

TEST(FailureText, UsersReadClassesNotEnumNames) {
  EXPECT_EQ(FailureClassText(v1::FAILURE_CLASS_EXIT_CODE), "exit_code");
  EXPECT_EQ(FailureClassText(v1::FAILURE_CLASS_LAUNCH), "launch");
  EXPECT_EQ(FailureClassText(std::string("FAILURE_CLASS_TIMEOUT")), "timeout");
  EXPECT_EQ(FailureClassText(std::string("already_text")), "already_text");
  EXPECT_EQ(FailureClassText(static_cast<v1::FailureClass>(9999)), "9999");
}

}  // namespace
}  // namespace fleetsweep
