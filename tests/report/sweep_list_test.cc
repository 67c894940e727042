// `fleetsweep list` / `show` text from a real file store holding two sweeps.
#include "coordinator/report/sweep_list.h"

#include <gtest/gtest.h>

#include "common/store/file_store.h"
#include "tests/support/temp_dir.h"

namespace fleetsweep {
namespace {

const char kSpec[] = R"(sweep: %s
executor: {command: [/bin/true]}
parameters:
  BM: {values: [16, 32, 64]}
metrics: [{name: time_ms, goal: minimize, unit: ms}]
)";

std::string Spec(const std::string& name) {
  char b[512];
  std::snprintf(b, sizeof b, kSpec, name.c_str());
  return b;
}

v1::ConfigRecord Rec(const std::string& key, const std::string& bm, v1::ConfigState st,
                     int64_t seq) {
  v1::ConfigRecord r;
  r.set_config_key(key);
  (*r.mutable_params())["BM"] = bm;
  r.set_state(st);
  r.set_seq(seq);
  return r;
}

v1::Attempt Att(const std::string& key, int id, bool ok, double value) {
  v1::Attempt a;
  a.set_config_key(key);
  a.set_attempt_id(key + "-" + std::to_string(id));
  a.set_ok(ok);
  if (ok) {
    auto* s = a.add_samples();
    s->set_metric("time_ms");
    s->set_value(value);
  } else {
    a.set_failure_class(v1::FAILURE_CLASS_LAUNCH);
  }
  return a;
}

TEST(SweepList, ListsSweepsWithStateAndBestAndShowsOneRanked) {
  auto dir = testing::TempDir::Create();
  ASSERT_TRUE(dir.ok());
  auto opened = FileStore::Open(dir->Join("store"));
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  ResultStore* store = opened->get();
  ASSERT_TRUE(store->PutSpec("done-sweep", Spec("done-sweep")).ok());
  v1::ConfigRecord infeasible = Rec("k64", "64", v1::CONFIG_STATE_INFEASIBLE, 2);
  infeasible.set_last_failure(v1::FAILURE_CLASS_LAUNCH);
  infeasible.set_last_failure_detail("cannot exec ./bench: No such file\nmore");
  ASSERT_TRUE(
      store
          ->PutConfigs("done-sweep", {Rec("k16", "16", v1::CONFIG_STATE_DONE, 0),
                                      Rec("k32", "32", v1::CONFIG_STATE_DONE, 1), infeasible})
          .ok());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(store->PutAttempt("done-sweep", Att("k16", i, true, 2.0 + i)).ok());
    ASSERT_TRUE(store->PutAttempt("done-sweep", Att("k32", i, true, 1.0 + i)).ok());
  }
  ASSERT_TRUE(store->PutAttempt("done-sweep", Att("k64", 0, false, 0)).ok());
  ASSERT_TRUE(store->PutSpec("new-sweep", Spec("new-sweep")).ok());
  ASSERT_TRUE(store->PutConfigs("new-sweep", {Rec("a", "16", v1::CONFIG_STATE_PENDING, 0)}).ok());

  auto list = ListSweepsText(store);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_NE(list->find("done-sweep"), std::string::npos) << *list;
  EXPECT_NE(list->find("finished     3/3 finished (2 ok, 1 infeasible)"), std::string::npos)
      << *list;
  EXPECT_NE(list->find("time_ms 2 ms (BM=32)"), std::string::npos) << *list;  // median of 1,2,3
  // Executions as `run` and `watch` count them: all of them, failed ones apart.
  EXPECT_NE(list->find("7 executions (1 failed)"), std::string::npos) << *list;
  EXPECT_NE(list->find("new-sweep"), std::string::npos);
  EXPECT_NE(list->find("not started"), std::string::npos) << *list;

  auto show = ShowSweepText(store, "done-sweep", 0);
  ASSERT_TRUE(show.ok()) << show.status().ToString();
  const size_t k32 = show->find("k32"), k16 = show->find("k16"), k64 = show->find("k64");
  ASSERT_NE(k32, std::string::npos) << *show;
  EXPECT_LT(k32, k16) << *show;  // ranked by median
  EXPECT_LT(k16, k64) << *show;  // no result last
  EXPECT_NE(show->find("infeasible"), std::string::npos);
  // An infeasible configuration says why, in words users read (not FAILURE_CLASS_LAUNCH).
  EXPECT_NE(show->find("BM=64  <- launch: cannot exec ./bench: No such file\n"), std::string::npos)
      << *show;
  auto limited = ShowSweepText(store, "done-sweep", 1);
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(limited->find("k16"), std::string::npos) << *limited;
  EXPECT_NE(limited->find("2 more"), std::string::npos) << *limited;
  EXPECT_EQ(ShowSweepText(store, "nope", 0).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(StoreUrlFor("redis://h:1"), "redis://h:1");
  EXPECT_EQ(StoreUrlFor(dir->path()), "file:" + dir->path() + "/store");
}

}  // namespace
}  // namespace fleetsweep
