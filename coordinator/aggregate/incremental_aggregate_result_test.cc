// An IncrementalAggregate's result field by field (what Materialize rebuilds from an entry's
// ids), and the entry's memory budget (issue 16).
#include <gtest/gtest.h>

#include <string>

#include "coordinator/aggregate/incremental_aggregate.h"
#include "coordinator/aggregate/incremental_aggregate_test_support.h"

namespace fleetsweep {
namespace {

using incremental_test::Records;
using incremental_test::Spec;
using incremental_test::Sweep;

// What Materialize rebuilds from an entry's ids: every field of a configuration's result, from
// attempts on two nodes with two fingerprints, two failures and a bound its median violates; the
// same whether the result is asked for (twice) or taken.
TEST(IncrementalAggregate, AResultCarriesEveryFieldItsAttemptsGave) {
  const SweepSpec spec = Spec();
  Sweep sweep = Records();
  const std::string key = sweep.records[3].config_key();  // A=2,B=y
  auto attempt = [&](int seq, const std::string& node, const std::string& fp, bool ok) {
    v1::Attempt a;
    a.set_config_key(key);
    a.set_attempt_id("a" + std::to_string(seq));
    a.set_node(node);
    a.set_ok(ok);
    a.set_started_unix_ms(seq);
    if (!ok) {
      a.set_failure_class(seq == 3 ? v1::FAILURE_CLASS_TIMEOUT : v1::FAILURE_CLASS_SIGNAL);
      a.set_failure_detail("failure " + std::to_string(seq));
      return a;
    }
    a.set_fingerprint(fp);
    for (double v : {12.0, 12.5}) {
      auto* t = a.add_samples();
      t->set_metric("time_ms");
      t->set_value(v + seq);
    }
    auto* m = a.add_samples();
    m->set_metric("mem");
    m->set_value(2.0);  // above the spec's max of 1.05
    return a;
  };
  IncrementalAggregate agg(spec, sweep.records, AggregateOptions{});
  for (const auto& a :
       {attempt(1, "n1", "fp-b", true), attempt(2, "n0", "fp-a", true), attempt(3, "n1", "", false),
        attempt(4, "n0", "", false), attempt(5, "n0", "fp-b", true)}) {
    agg.Add(a);
  }
  auto check = [&](const SweepResult& r) {
    const ConfigResult* c = nullptr;
    for (const auto& x : r.configs) {
      if (x.key == key) c = &x;
    }
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->params, (FlatMap<std::string, std::string>{{"A", "2"}, {"B", "y"}}));
    EXPECT_EQ(c->attempts, 5);
    EXPECT_EQ(c->ok_attempts, 3);
    EXPECT_EQ(c->failed_attempts, 2);
    EXPECT_EQ(c->nodes, (FlatSet<std::string>{"n0", "n1"}));
    EXPECT_EQ(c->fingerprints, (FlatSet<std::string>{"fp-a", "fp-b"}));
    EXPECT_EQ(c->failures_by_class, (FlatMap<std::string, int>{{"signal", 1}, {"timeout", 1}}));
    EXPECT_EQ(c->failure_class, "timeout");  // the first failure's
    EXPECT_EQ(c->failure_detail, "failure 3");
    ASSERT_EQ(c->metrics.size(), 2u);
    EXPECT_EQ(c->metrics.at("time_ms").n, 3);
    EXPECT_EQ(c->metrics.at("time_ms").samples, 6);
    EXPECT_EQ(c->metrics.at("mem").median, 2.0);
    EXPECT_EQ(c->raw_primary.n, 3);
    EXPECT_EQ(c->primary.n, 3);
    EXPECT_TRUE(c->violates_bound);
    ASSERT_EQ(c->bound_violations.size(), 1u);
    EXPECT_NE(c->bound_violations[0].find("mem"), std::string::npos) << c->bound_violations[0];
  };
  check(agg.Result());
  check(agg.Result());
  check(agg.TakeResult());
}

TEST(IncrementalAggregate, AnEntryFitsItsMemoryBudget) {
  EXPECT_LE(IncrementalAggregate::EntryBytes(), 384u);  // jemalloc's 384-byte class
}

}  // namespace
}  // namespace fleetsweep
