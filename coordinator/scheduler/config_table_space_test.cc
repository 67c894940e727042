// ConfigTable over a SpaceIndex (issue 16): untouched configurations are not held (no params,
// record, key or hash entry) yet answer for their state, params, key and record from their
// index; the first touch creates them; the ready queue, PENDING "changes" and counting do not
// hold them; the best configuration is the lowest index among equals whatever the touch order.
#include <gtest/gtest.h>

#include "common/space/space_index.h"
#include "common/space/spec.h"
#include "coordinator/scheduler/config_table.h"

namespace fleetsweep {
namespace {

const char* kSpace = R"(sweep: t
parameters:
  A: {values: [1, 2, 3, 4]}
  B: {values: [x, y, z]}
  P: {fixed: 7, reason: pinned}
constraints: ["A != 2 or B == 'y'"]
)";

class SpaceTable : public ::testing::Test {
 protected:
  void SetUp() override {
    auto spec = ParseSpecText(kSpace, "t.yaml");
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    spec_ = std::move(spec).value();
    auto index = SpaceIndex::Build(spec_);
    ASSERT_TRUE(index.ok()) << index.status().ToString();
    index_ = std::make_unique<SpaceIndex>(std::move(index).value());
    table_.AddSpace(index_.get());
  }
  SweepSpec spec_;
  std::unique_ptr<SpaceIndex> index_;
  ConfigTable table_;
};

v1::Attempt Ok(double value) {
  v1::Attempt a;
  a.set_ok(true);
  auto* s = a.add_samples();
  s->set_metric("t");
  s->set_value(value);
  return a;
}

TEST_F(SpaceTable, UntouchedConfigurationsAnswerFromTheirIndexWithoutBeingHeld) {
  ConfigTable& t = table_;
  ASSERT_EQ(t.size(), 10);  // 12 minus A=2 with B in {x, z}
  for (int i = 0; i < t.size(); ++i) {
    EXPECT_EQ(t.Params(i), index_->ParamsAt(i));
    EXPECT_EQ(t.Params(i).at("P").ToString(), "7");
    EXPECT_EQ(t.Key(i), ConfigHash(index_->ParamsAt(i)));
    EXPECT_EQ(t.Find(t.Key(i)), -1) << "an untouched key is not in the hash map";
    EXPECT_EQ(t.Get(i).record.state(), v1::CONFIG_STATE_PENDING);
    EXPECT_EQ(t.Get(i).ok_attempts, 0);
    const v1::ConfigRecord r = t.Record(i);
    EXPECT_EQ(r.config_key(), t.Key(i));
    EXPECT_EQ(r.seq(), static_cast<uint64_t>(i));
    EXPECT_EQ(r.params().at("B"), t.Params(i).at("B").ToString());
    EXPECT_EQ(r.state(), v1::CONFIG_STATE_PENDING);
  }
  EXPECT_EQ(t.held(), 0);
  const StateCounts n = t.CountStates();
  EXPECT_EQ(n.pending, 10);
  EXPECT_EQ(n.done + n.leased + n.infeasible, 0);
  EXPECT_FALSE(t.Finished());
  EXPECT_EQ(t.BestIndex(true), -1);
}

TEST_F(SpaceTable, TheReadyQueueAndStayingPendingHoldNothing) {
  ConfigTable& t = table_;
  for (int i = 0; i < t.size(); ++i) t.SetState(i, v1::CONFIG_STATE_PENDING);
  for (int i = 0; i < t.size(); ++i) t.MarkReady(i);
  t.MarkReady(3);  // at most once
  EXPECT_EQ(t.PopReady(), 0);
  EXPECT_EQ(t.PopReady(), 1);
  t.PushReadyFront(0);
  EXPECT_EQ(t.PopReady(), 0);
  int popped = 0;
  while (t.PopReady() >= 0) ++popped;
  EXPECT_EQ(popped, 8);
  EXPECT_EQ(t.held(), 0);
  EXPECT_TRUE(t.TakeChanged().empty());
}

TEST_F(SpaceTable, TheFirstTouchCreatesTheConfigurationAndItsFirstCountIsAChange) {
  ConfigTable& t = table_;
  const std::string key7 = t.Key(7);
  t.LeaseStarted(7);  // leased: held, but not a record to write yet
  EXPECT_EQ(t.held(), 1);
  EXPECT_EQ(t.Find(key7), 7);
  const ConfigState& c = t.Get(7);
  EXPECT_TRUE(c.params.empty()) << "a held configuration's params are decoded, not kept";
  EXPECT_EQ(t.Params(7), index_->ParamsAt(7));
  EXPECT_EQ(c.record.config_key(), key7);
  EXPECT_EQ(c.record.seq(), 7u);
  EXPECT_EQ(t.Record(7).params().at("A"), index_->ParamsAt(7).at("A").ToString());
  EXPECT_EQ(t.Record(7).state(), v1::CONFIG_STATE_LEASED);
  EXPECT_EQ(c.record.state(), v1::CONFIG_STATE_LEASED);
  EXPECT_TRUE(t.TakeChanged().empty());
  t.LeaseEnded(7);
  EXPECT_TRUE(t.AddOk(7, Ok(2.0), "t"));
  EXPECT_EQ(t.TakeChanged(), std::vector<int>{7}) << "the first count writes its record";
  EXPECT_TRUE(t.AddOk(7, Ok(2.0), "t"));
  EXPECT_TRUE(t.TakeChanged().empty()) << "later counts alone do not";
  t.SetState(3, v1::CONFIG_STATE_DONE);
  EXPECT_EQ(t.TakeChanged(), std::vector<int>{3});
  EXPECT_EQ(t.Get(3).record.state(), v1::CONFIG_STATE_DONE);
  EXPECT_EQ(t.HeldIndices(), (std::vector<int>{3, 7}));
  EXPECT_EQ(t.CountStates().done, 1);
  EXPECT_EQ(t.CountStates().leased, 1) << "7 stays LEASED until the scheduler decides again";
  EXPECT_EQ(t.CountStates().pending, 8);
}

TEST_F(SpaceTable, TheBestIsTheLowestIndexAmongEqualMediansWhateverTheTouchOrder) {
  ConfigTable& t = table_;
  t.AddOk(8, Ok(1.0), "t");
  t.AddOk(2, Ok(1.0), "t");
  t.AddOk(5, Ok(3.0), "t");
  EXPECT_EQ(t.BestIndex(true), 2);
  EXPECT_EQ(t.BestIndex(false), 5);
}

TEST_F(SpaceTable, FinishedOnlyWhenEveryConfigurationIsDoneOrInfeasible) {
  ConfigTable& t = table_;
  for (int i = 0; i + 1 < t.size(); ++i) t.SetState(i, v1::CONFIG_STATE_DONE);
  EXPECT_FALSE(t.Finished()) << "the last one is untouched, so PENDING";
  t.SetState(t.size() - 1, v1::CONFIG_STATE_INFEASIBLE);
  EXPECT_TRUE(t.Finished());
  t.SetState(4, v1::CONFIG_STATE_PENDING);  // reopened
  EXPECT_FALSE(t.Finished());
}

}  // namespace
}  // namespace fleetsweep
