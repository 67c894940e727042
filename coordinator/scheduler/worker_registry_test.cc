// WorkerRegistry on its own: hello and take-over by another identity, last contact and silence,
// slots and busy counts, removal returning the held leases. Time is the `now` argument.
#include "coordinator/scheduler/worker_registry.h"

#include <gtest/gtest.h>

namespace fleetsweep {
namespace {

v1::NodeInfo Node(const std::string& name, int slots) {
  v1::NodeInfo n;
  n.set_node(name);
  n.set_slots(slots);
  return n;
}

TEST(WorkerRegistry, HelloRegistersAndCountsSlotsAndLeases) {
  WorkerRegistry r;
  EXPECT_FALSE(r.Knows("w1"));
  EXPECT_TRUE(r.Hello("w1", Node("n1", 4), "", 0).empty());
  r.Hello("w2", Node("", 2), "", 0);
  EXPECT_TRUE(r.Knows("w1"));
  EXPECT_EQ(r.size(), 2);
  EXPECT_EQ(r.Slots(), 6);
  EXPECT_EQ(r.NodeName("w1"), "n1");
  EXPECT_EQ(r.NodeName("w2"), "w2") << "a worker without a node name is its own node";
  EXPECT_EQ(r.NodeName("w3"), "");
  r.AddLease("w1", "a");
  r.AddLease("w1", "b");
  r.AddLease("w3", "c");  // unknown: ignored
  EXPECT_EQ(r.Busy(), 2);
  r.DropLease("w1", "a");
  EXPECT_EQ(r.Busy(), 1);
  EXPECT_EQ(r.Ids(), (std::vector<std::string>{"w1", "w2"}));
}

TEST(WorkerRegistry, AnotherIdentityTakingTheIdOverGetsNoneOfItsLeases) {
  WorkerRegistry r;
  r.Hello("w1", Node("n1", 1), "keyA", 0);
  r.AddLease("w1", "a");
  EXPECT_TRUE(r.Hello("w1", Node("n1", 1), "keyA", 1).empty()) << "same peer: leases kept";
  EXPECT_EQ(r.Busy(), 1);
  std::set<std::string> lost = r.Hello("w1", Node("n1", 1), "keyB", 2);
  EXPECT_EQ(lost, std::set<std::string>{"a"});
  EXPECT_EQ(r.Busy(), 0);
  EXPECT_EQ(r.Find("w1")->identity, "keyB");
}

TEST(WorkerRegistry, SilentWorkersAreThoseNotHeardFromWithinTheTimeout) {
  WorkerRegistry r;
  r.Hello("w1", Node("n1", 1), "", 0);
  r.Hello("w2", Node("n2", 1), "", 0);
  EXPECT_TRUE(r.Touch("w2", 4));
  EXPECT_FALSE(r.Touch("w3", 4)) << "unknown workers are not registered by contact";
  EXPECT_FALSE(r.Knows("w3"));
  EXPECT_TRUE(r.Silent(5, 5).empty()) << "exactly the timeout is not silent yet";
  EXPECT_EQ(r.Silent(5.5, 5), std::vector<std::string>{"w1"});
  EXPECT_EQ(r.Silent(9.5, 5), (std::vector<std::string>{"w1", "w2"}));
}

TEST(WorkerRegistry, RemoveReturnsTheLeasesHeld) {
  WorkerRegistry r;
  r.Hello("w1", Node("n1", 2), "", 0);
  r.AddLease("w1", "a");
  r.AddLease("w1", "b");
  std::optional<std::set<std::string>> leases = r.Remove("w1");
  ASSERT_TRUE(leases.has_value());
  EXPECT_EQ(*leases, (std::set<std::string>{"a", "b"}));
  EXPECT_FALSE(r.Knows("w1"));
  EXPECT_FALSE(r.Remove("w1").has_value());
  EXPECT_EQ(r.Slots(), 0);
  r.Hello("w1", Node("n1", 2), "", 3);
  EXPECT_TRUE(r.Find("w1")->reference.due) << "a returning worker measures the reference first";
}

}  // namespace
}  // namespace fleetsweep
