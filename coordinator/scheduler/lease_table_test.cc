// LeaseTable on its own: grants outlive their leases, renewal of waiting leases (holder only,
// capped at (kMaxPrefetchPerSlot + 1) lease lengths after the grant), overdue leases by deadline.
// Time is the `now` argument (a fake clock).
#include "coordinator/scheduler/lease_table.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "common/wire/wire.h"

namespace fleetsweep {
namespace {

google::protobuf::RepeatedPtrField<std::string> Ids(std::initializer_list<const char*> ids) {
  google::protobuf::RepeatedPtrField<std::string> out;
  for (const char* id : ids) *out.Add() = id;
  return out;
}

LeaseInfo Lease(const std::string& worker, double granted_at, double seconds, int config = 0) {
  LeaseInfo l;
  l.config = config;
  l.worker_id = worker;
  l.granted_at = granted_at;
  l.lease_seconds = seconds;
  l.deadline = granted_at + seconds;
  return l;
}

TEST(LeaseTable, IdsNameTheConfigurationAndEpochAndAreUnguessable) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    const std::string id = LeaseTable::NewId("cfg", "ep1", i % 2 == 0);
    ASSERT_EQ(id.rfind("cfg-ep1-", 0), 0u) << id;
    EXPECT_EQ(id.size(), std::string("cfg-ep1-").size() + 32 + (i % 2 == 0 ? 4 : 0)) << id;
    EXPECT_EQ(id.substr(id.size() - 4) == "-ref", i % 2 == 0) << id;
    EXPECT_TRUE(seen.insert(id).second) << "repeated id " << id;
  }
  // Past the random pool's refill (256 ids a pool): still 32 lowercase hex digits, never repeated,
  // and every hex digit used in every position (not a counter, not a constant).
  std::vector<std::set<char>> digits(32);
  for (int i = 0; i < 2000; ++i) {
    const std::string id = LeaseTable::NewId("c", "e", false);
    const std::string hex = id.substr(4);
    ASSERT_EQ(hex.size(), 32u) << id;
    for (size_t k = 0; k < hex.size(); ++k) {
      ASSERT_NE(std::string("0123456789abcdef").find(hex[k]), std::string::npos) << id;
      digits[k].insert(hex[k]);
    }
    EXPECT_TRUE(seen.insert(id).second) << "repeated id " << id;
  }
  for (size_t k = 0; k < digits.size(); ++k) EXPECT_EQ(digits[k].size(), 16u) << "position " << k;
}

TEST(LeaseTable, TakeReturnsTheLeaseOnceAndTheGrantStays) {
  LeaseTable t;
  t.Add("L1", Lease("w1", 0, 10, 3), LeaseGrant{"w1", "key1", "cfg", false});
  EXPECT_EQ(t.outstanding(), 1);
  ASSERT_NE(t.Find("L1"), nullptr);
  std::optional<LeaseInfo> got = t.Take("L1");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->config, 3);
  EXPECT_EQ(got->worker_id, "w1");
  EXPECT_FALSE(t.Take("L1").has_value()) << "a lease is returned once";
  EXPECT_EQ(t.Find("L1"), nullptr);
  EXPECT_EQ(t.outstanding(), 0);
  const LeaseGrant* g = t.FindGrant("L1");
  ASSERT_NE(g, nullptr) << "a late result is still checked against its holder";
  EXPECT_EQ(g->identity, "key1");
  EXPECT_EQ(g->config_key, "cfg");
  EXPECT_EQ(t.FindGrant("never"), nullptr);
}

TEST(LeaseTable, OverdueListsLeasesPastTheirDeadlineOnly) {
  LeaseTable t;
  t.Add("a", Lease("w1", 0, 10), {});
  t.Add("b", Lease("w1", 5, 10), {});
  EXPECT_TRUE(t.Overdue(10).empty()) << "the deadline itself is not past";
  EXPECT_EQ(t.Overdue(10.5), std::vector<std::string>{"a"});
  EXPECT_EQ(t.Overdue(16), (std::vector<std::string>{"a", "b"}));
}

TEST(LeaseTable, OnlyTheHolderRenewsAWaitingLease) {
  LeaseTable t;
  t.Add("a", Lease("w1", 0, 10), {});
  t.RenewWaiting("w2", Ids({"a"}), 8);
  EXPECT_EQ(t.Find("a")->deadline, 10) << "another worker's heartbeat does not renew it";
  t.RenewWaiting("w1", Ids({"a", "unknown"}), 8);
  EXPECT_EQ(t.Find("a")->deadline, 18);
  t.RenewWaiting("w1", Ids({"a"}), 3);
  EXPECT_EQ(t.Find("a")->deadline, 18) << "a renewal never moves a deadline earlier";
  EXPECT_TRUE(t.Overdue(17).empty());
}

TEST(LeaseTable, RenewalStopsAtTheWaitingCap) {
  LeaseTable t;
  t.Add("a", Lease("w1", 100, 10), {});
  const double cap = 100 + (kMaxPrefetchPerSlot + 1) * 10.0;
  for (double now = 105; now < cap + 50; now += 5) t.RenewWaiting("w1", Ids({"a"}), now);
  EXPECT_EQ(t.Find("a")->deadline, cap);
  EXPECT_TRUE(t.Overdue(cap).empty());
  EXPECT_EQ(t.Overdue(cap + 0.1), std::vector<std::string>{"a"});
}

}  // namespace
}  // namespace fleetsweep
