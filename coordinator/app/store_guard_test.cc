// Item 6 of issue 15: a store that lost a running sweep's data is detected.
#include "coordinator/app/store_guard.h"

#include <gtest/gtest.h>

#include "common/store/file_store.h"
#include "tests/support/redis_server.h"
#include "tests/support/temp_dir.h"

namespace fleetsweep {
namespace {

SweepSpec Spec() {
  auto spec = ParseSpecText(R"(sweep: guard
parameters:
  A: [1, 2]
)",
                            "guard.yaml");
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  return *spec;
}

v1::Attempt Attempt(int i) {
  v1::Attempt a;
  a.set_config_key("k" + std::to_string(i % 2));
  a.set_attempt_id(a.config_key() + "-e-" + std::to_string(i));
  a.set_ok(true);
  return a;
}

TEST(StoreGuard, IntactStorePassesAndMissingAttemptsAreDataLoss) {
  auto dir = testing::TempDir::Create();
  ASSERT_TRUE(dir.ok());
  auto store = FileStore::Open(dir->Join("store"));
  ASSERT_TRUE(store.ok());
  SweepSpec spec = Spec();
  ASSERT_TRUE((*store)->PutSpec(spec.name, spec.text).ok());
  LeaseTable counted;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE((*store)->PutAttempt(spec.name, Attempt(i)).ok());
    counted.Count(Attempt(i).attempt_id());
  }
  EXPECT_TRUE(CheckStoreIntact(store->get(), spec, 5).ok());
  Status fewer = CheckStoreIntact(store->get(), spec, 6);
  EXPECT_EQ(fewer.code(), StatusCode::kDataLoss);
  EXPECT_NE(fewer.message().find("holds 5 attempts"), std::string::npos) << fewer.message();
  auto loaded = (*store)->LoadAttempts(spec.name);
  ASSERT_TRUE(loaded.ok());
  EXPECT_TRUE(CheckAttemptsComplete(*loaded, counted).ok());
  counted.Count("k0-e-lost");
  Status missing = CheckAttemptsComplete(*loaded, counted);
  EXPECT_EQ(missing.code(), StatusCode::kDataLoss);
  EXPECT_NE(missing.message().find("1 of 6 counted"), std::string::npos) << missing.message();
  EXPECT_NE(missing.message().find("k0-e-lost"), std::string::npos) << missing.message();
}

// This run's attempts are counted by their lease's grant: one that the store lost is counted
// missing (it cannot be named by id).
TEST(StoreGuard, AMissingAttemptOfThisRunsLeaseIsDataLoss) {
  auto dir = testing::TempDir::Create();
  ASSERT_TRUE(dir.ok());
  auto store = FileStore::Open(dir->Join("store"));
  ASSERT_TRUE(store.ok());
  SweepSpec spec = Spec();
  LeaseTable counted;
  LeaseInfo info;
  info.worker_id = "w";
  for (int i = 0; i < 3; ++i) {
    v1::Attempt a = Attempt(i);
    a.set_attempt_id(counted.Grant(a.config_key(), "e", info, ""));
    ASSERT_TRUE(counted.Count(a.attempt_id()));
    if (i != 1) {
      ASSERT_TRUE((*store)->PutAttempt(spec.name, a).ok());
    }
  }
  ASSERT_TRUE((*store)->PutAttempt(spec.name, Attempt(7)).ok());  // stored, never counted
  auto loaded = (*store)->LoadAttempts(spec.name);
  ASSERT_TRUE(loaded.ok());
  Status missing = CheckAttemptsComplete(*loaded, counted);
  EXPECT_EQ(missing.code(), StatusCode::kDataLoss);
  EXPECT_NE(missing.message().find("1 of 3 counted attempts are missing"), std::string::npos)
      << missing.message();
  loaded->push_back(*loaded->begin());  // a duplicate does not stand in for the missing one
  EXPECT_EQ(CheckAttemptsComplete(*loaded, counted).code(), StatusCode::kDataLoss);
}

// Redis killed and restarted without persistence: everything the coordinator stored is gone.
TEST(StoreGuard, RedisRestartedWithoutPersistenceIsDataLoss) {
  testing::RedisServer server;
  Status started = server.Start();
  if (testing::RedisServer::IsMissingBinary(started)) GTEST_SKIP() << started.message();
  ASSERT_TRUE(started.ok()) << started.ToString();
  auto store = OpenStore(server.url());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  SweepSpec spec = Spec();
  ASSERT_TRUE((*store)->PutSpec(spec.name, spec.text).ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*store)->PutAttempt(spec.name, Attempt(i)).ok());
  ASSERT_TRUE(CheckStoreIntact(store->get(), spec, 3).ok());
  ASSERT_TRUE(server.Kill().ok());
  ASSERT_TRUE(server.Restart().ok());
  // A write after the restart succeeds on the empty database: only the guard notices.
  Status lost = Status::Ok();
  for (int i = 0; i < 50 && lost.code() != StatusCode::kDataLoss; ++i) {
    lost = CheckStoreIntact(store->get(), spec, 3);
  }
  EXPECT_EQ(lost.code(), StatusCode::kDataLoss) << lost.ToString();
  EXPECT_NE(lost.message().find("spec key is gone"), std::string::npos) << lost.message();
}

}  // namespace
}  // namespace fleetsweep
