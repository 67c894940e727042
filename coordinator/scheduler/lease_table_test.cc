// LeaseTable on its own: ids that name their grant and cannot be forged, grants that outlive
// their leases (with their holder and configuration), counting each attempt once (this table's
// leases by their grant, others by id), renewal of waiting leases (holder only, capped at
// (kMaxPrefetchPerSlot + 1) lease lengths after the grant), overdue leases by deadline. Time is
// the `now` argument (a fake clock).
#include "coordinator/scheduler/lease_table.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "common/wire/wire.h"

namespace fleetsweep {
namespace {

google::protobuf::RepeatedPtrField<std::string> Ids(std::initializer_list<std::string> ids) {
  google::protobuf::RepeatedPtrField<std::string> out;
  for (const std::string& id : ids) *out.Add() = id;
  return out;
}

LeaseInfo Lease(const std::string& worker, double granted_at, double seconds, int config = 0,
                bool reference = false) {
  LeaseInfo l;
  l.config = config;
  l.worker_id = worker;
  l.granted_at = granted_at;
  l.lease_seconds = seconds;
  l.deadline = granted_at + seconds;
  l.reference = reference;
  return l;
}

TEST(LeaseTable, IdsNameTheConfigurationEpochAndGrantAndAreUnguessable) {
  LeaseTable t;
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    const std::string id = t.Grant("cfg", "ep1", Lease("w", 0, 1, 0, i % 2 == 0), "");
    ASSERT_EQ(id.rfind("cfg-ep1-", 0), 0u) << id;
    EXPECT_EQ(id.size(), std::string("cfg-ep1-").size() + 32 + (i % 2 == 0 ? 4 : 0)) << id;
    EXPECT_EQ(id.substr(id.size() - 4) == "-ref", i % 2 == 0) << id;
    EXPECT_TRUE(seen.insert(id).second) << "repeated id " << id;
  }
  // 32 lowercase hex digits: the grant's number, then 64 random bits, every hex digit used in
  // every random position past the random pool's refill (512 ids a pool).
  std::vector<std::set<char>> digits(16);
  for (int i = 0; i < 2000; ++i) {
    const std::string id = t.Grant("c", "e", Lease("w", 0, 1), "");
    const std::string hex = id.substr(4);
    ASSERT_EQ(hex.size(), 32u) << id;
    EXPECT_EQ(std::stoull(hex.substr(0, 16), nullptr, 16), static_cast<uint64_t>(100 + i)) << id;
    for (size_t k = 0; k < hex.size(); ++k) {
      ASSERT_NE(std::string("0123456789abcdef").find(hex[k]), std::string::npos) << id;
      if (k >= 16) digits[k - 16].insert(hex[k]);
    }
    EXPECT_TRUE(seen.insert(id).second) << "repeated id " << id;
  }
  for (size_t k = 0; k < digits.size(); ++k) EXPECT_EQ(digits[k].size(), 16u) << "position " << k;
  EXPECT_EQ(t.granted(), 2100);
}

TEST(LeaseTable, AGrantOutlivesItsLeaseAndNamesItsHolderAndConfiguration) {
  LeaseTable t;
  const std::string id = t.Grant("cfg", "e", Lease("w1", 0, 10, 3), "key1");
  const std::string ref = t.Grant("cfg", "e", Lease("w2", 0, 10, -1, true), "");
  EXPECT_EQ(t.outstanding(), 2);
  ASSERT_NE(t.Find(id), nullptr);
  std::optional<LeaseInfo> got = t.Take(id);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->config, 3);
  EXPECT_EQ(got->worker_id, "w1");
  EXPECT_FALSE(t.Take(id).has_value()) << "a lease is returned once";
  EXPECT_EQ(t.Find(id), nullptr);
  EXPECT_EQ(t.outstanding(), 1);
  std::optional<LeaseGrant> g = t.FindGrant(id);
  ASSERT_TRUE(g.has_value()) << "a late result is still checked against its holder";
  EXPECT_EQ(*g->worker_id, "w1");
  EXPECT_EQ(*g->identity, "key1");
  EXPECT_EQ(g->config, 3);
  EXPECT_FALSE(g->reference);
  std::optional<LeaseGrant> r = t.FindGrant(ref);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r->worker_id, "w2");
  EXPECT_EQ(*r->identity, "");
  EXPECT_EQ(r->config, -1);
  EXPECT_TRUE(r->reference);
}

// Any change to an id's grant number, random half or reference suffix, or an id of another
// table, finds no grant.
TEST(LeaseTable, ForgedOrForeignIdsFindNoGrant) {
  LeaseTable t, other;
  const std::string id = t.Grant("cfg", "e", Lease("w1", 0, 10), "");
  const std::string second = t.Grant("cfg", "e", Lease("w1", 0, 10), "");
  const std::string foreign = other.Grant("cfg", "e", Lease("w1", 0, 10), "");
  ASSERT_TRUE(t.FindGrant(id).has_value());
  EXPECT_FALSE(t.FindGrant(foreign).has_value()) << foreign;
  EXPECT_FALSE(t.FindGrant("never").has_value());
  EXPECT_FALSE(t.FindGrant("").has_value());
  EXPECT_FALSE(t.FindGrant(id + "-ref").has_value()) << "not a reference lease";
  EXPECT_FALSE(t.FindGrant(id.substr(0, id.size() - 1)).has_value());
  // The second grant's number with the first's random half.
  const std::string swapped = second.substr(0, second.size() - 16) + id.substr(id.size() - 16);
  EXPECT_FALSE(t.FindGrant(swapped).has_value()) << swapped;
  for (size_t k = id.size() - 32; k < id.size(); ++k) {
    std::string forged = id;
    forged[k] = forged[k] == '0' ? '1' : '0';
    EXPECT_FALSE(t.FindGrant(forged).has_value()) << forged;
    forged[k] = 'G';
    EXPECT_FALSE(t.FindGrant(forged).has_value()) << forged;
  }
}

TEST(LeaseTable, HoldersAreKeptApartByWorkerAndIdentity) {
  LeaseTable t;
  const std::string a = t.Grant("c", "e", Lease("w1", 0, 10), "k1");
  const std::string b = t.Grant("c", "e", Lease("w1", 0, 10), "k2");
  const std::string c = t.Grant("c", "e", Lease("w2", 0, 10), "k1");
  const std::string d = t.Grant("c", "e", Lease("w1", 0, 10), "k1");
  EXPECT_EQ(*t.FindGrant(a)->identity, "k1");
  EXPECT_EQ(*t.FindGrant(b)->identity, "k2");
  EXPECT_EQ(*t.FindGrant(c)->worker_id, "w2");
  EXPECT_EQ(t.FindGrant(a)->identity, t.FindGrant(d)->identity) << "one entry per holder";
}

TEST(LeaseTable, EachAttemptIsCountedOnce) {
  LeaseTable t;
  const std::string id = t.Grant("c", "e", Lease("w1", 0, 10), "");
  const std::string other = t.Grant("c", "e", Lease("w1", 0, 10), "");
  EXPECT_FALSE(t.Counted(id));
  EXPECT_FALSE(t.FindGrant(id)->counted);
  EXPECT_TRUE(t.Count(id));
  EXPECT_FALSE(t.Count(id)) << "a duplicate";
  EXPECT_TRUE(t.Counted(id));
  EXPECT_TRUE(t.FindGrant(id)->counted);
  EXPECT_FALSE(t.Counted(other));
  // A resumed sweep's attempts (earlier runs' leases) are counted by id.
  EXPECT_TRUE(t.Count("c-old-0123"));
  EXPECT_FALSE(t.Count("c-old-0123"));
  EXPECT_TRUE(t.Counted("c-old-0123"));
  EXPECT_FALSE(t.Counted("c-old-0124"));
  EXPECT_EQ(t.counted(), 2);
  EXPECT_EQ(t.counted_elsewhere().size(), 1u);
  EXPECT_TRUE(t.Count(other));
  EXPECT_EQ(t.counted(), 3);
}

TEST(LeaseTable, OverdueListsLeasesPastTheirDeadlineOnly) {
  LeaseTable t;
  const std::string a = t.Grant("a", "e", Lease("w1", 0, 10), "");
  const std::string b = t.Grant("b", "e", Lease("w1", 5, 10), "");
  EXPECT_TRUE(t.Overdue(10).empty()) << "the deadline itself is not past";
  EXPECT_EQ(t.Overdue(10.5), std::vector<std::string>{a});
  EXPECT_EQ(t.Overdue(16), (std::vector<std::string>{a, b}));
}

TEST(LeaseTable, OnlyTheHolderRenewsAWaitingLease) {
  LeaseTable t;
  const std::string a = t.Grant("a", "e", Lease("w1", 0, 10), "");
  t.RenewWaiting("w2", Ids({a}), 8);
  EXPECT_EQ(t.Find(a)->deadline, 10) << "another worker's heartbeat does not renew it";
  t.RenewWaiting("w1", Ids({a, "unknown"}), 8);
  EXPECT_EQ(t.Find(a)->deadline, 18);
  t.RenewWaiting("w1", Ids({a}), 3);
  EXPECT_EQ(t.Find(a)->deadline, 18) << "a renewal never moves a deadline earlier";
  EXPECT_TRUE(t.Overdue(17).empty());
}

TEST(LeaseTable, RenewalStopsAtTheWaitingCap) {
  LeaseTable t;
  const std::string a = t.Grant("a", "e", Lease("w1", 100, 10), "");
  const double cap = 100 + (kMaxPrefetchPerSlot + 1) * 10.0;
  for (double now = 105; now < cap + 50; now += 5) t.RenewWaiting("w1", Ids({a}), now);
  EXPECT_EQ(t.Find(a)->deadline, cap);
  EXPECT_TRUE(t.Overdue(cap).empty());
  EXPECT_EQ(t.Overdue(cap + 0.1), std::vector<std::string>{a});
}

}  // namespace
}  // namespace fleetsweep
