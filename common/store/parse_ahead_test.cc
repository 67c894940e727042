#include "common/store/parse_ahead.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace fleetsweep {
namespace {

// `n` serialized attempts "a0", "a1", ... (the body list a store would read).
std::vector<std::string> Bodies(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    v1::Attempt a;
    a.set_attempt_id("a" + std::to_string(i));
    (*a.mutable_info())["session.position"] = std::to_string(i % 7 + 1);
    out.push_back(a.SerializeAsString());
  }
  return out;
}

// A reader over `bodies` (offsets 100 * index); fails with `fail` at index `fail_at` (-1: never).
std::function<Status(const EmitBody&)> Reader(const std::vector<std::string>& bodies,
                                              int fail_at = -1, Status fail = Status::Ok()) {
  return [&bodies, fail_at, fail](const EmitBody& emit) {
    for (size_t i = 0; i < bodies.size(); ++i) {
      if (static_cast<int>(i) == fail_at) return fail;
      FS_RETURN_IF_ERROR(emit(bodies[i], 100 * i));
    }
    return Status::Ok();
  };
}

TEST(ParseAheadTest, VisitsEveryAttemptInOrderAcrossBatches) {
  const auto bodies = Bodies(1000);  // several batches of 256 and a partial one
  std::vector<std::string> seen;
  Status st = ParseAttemptsAhead(Reader(bodies), "log", [&](const v1::Attempt& a) {
    seen.push_back(a.attempt_id());
    EXPECT_EQ(a.info().at("session.position"),
              std::to_string(seen.size() % 7 == 0 ? 7 : seen.size() % 7));
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(seen.size(), 1000u);
  for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], "a" + std::to_string(i));
}

TEST(ParseAheadTest, NothingToReadVisitsNothing) {
  const std::vector<std::string> none;
  int visits = 0;
  EXPECT_TRUE(ParseAttemptsAhead(Reader(none), "log", [&](const v1::Attempt&) {
                ++visits;
                return Status::Ok();
              }).ok());
  EXPECT_EQ(visits, 0);
}

TEST(ParseAheadTest, AVisitorErrorStopsTheReaderAndIsReturned) {
  const auto bodies = Bodies(5000);
  int visits = 0;
  Status st = ParseAttemptsAhead(Reader(bodies), "log", [&](const v1::Attempt&) {
    return ++visits == 300 ? Status::Internal("enough") : Status::Ok();
  });
  EXPECT_EQ(st.code(), StatusCode::kInternal);
  EXPECT_EQ(st.message(), "enough");
  EXPECT_EQ(visits, 300);
}

TEST(ParseAheadTest, AVisitorExceptionStopsTheReaderAndPropagates) {
  const auto bodies = Bodies(5000);
  int visits = 0;
  EXPECT_THROW(ParseAttemptsAhead(Reader(bodies), "log",
                                  [&](const v1::Attempt&) -> Status {
                                    if (++visits == 10) throw std::runtime_error("boom");
                                    return Status::Ok();
                                  }),
               std::runtime_error);
  EXPECT_EQ(visits, 10);
}

TEST(ParseAheadTest, AReadErrorIsReturnedAfterTheAttemptsBeforeIt) {
  const auto bodies = Bodies(700);
  int visits = 0;
  Status st = ParseAttemptsAhead(Reader(bodies, 600, Status::DataLoss("the log was truncated")),
                                 "log", [&](const v1::Attempt&) {
                                   ++visits;
                                   return Status::Ok();
                                 });
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_EQ(st.message(), "the log was truncated");
  EXPECT_LE(visits, 600);  // the batches before the error may be visited, nothing after it
}

TEST(ParseAheadTest, AnUndecodableBodyIsDataLossNamingTheLogAndOffset) {
  auto bodies = Bodies(10);
  bodies[4] = std::string("\xff\xff\xff", 3);
  Status st = ParseAttemptsAhead(Reader(bodies), "/x/store.log",
                                 [](const v1::Attempt&) { return Status::Ok(); });
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_NE(st.message().find("/x/store.log"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("byte 400"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace fleetsweep
