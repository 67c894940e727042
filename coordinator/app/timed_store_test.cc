// TimedStore over a real FileStore: every call is timed under its own op name, and a batch of
// attempts reaches the backend as ONE PutAttempts (the backend's one-pipeline batch), not as one
// PutAttempt per attempt.
#include "coordinator/app/timed_store.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "common/store/file_store.h"
#include "common/store/forwarding_store.h"
#include "tests/support/temp_dir.h"

namespace fleetsweep {
namespace {

v1::Attempt MakeAttempt(int i) {
  v1::Attempt a;
  a.set_config_key("cfg" + std::to_string(i % 3));
  a.set_attempt_id("a" + std::to_string(i));
  a.set_ok(true);
  a.add_samples()->set_value(1.0 + i);
  return a;
}

// Counts what reaches the backend.
class CountingStore : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  int single = 0, batches = 0;
  StatusOr<bool> PutAttempt(const std::string& s, const v1::Attempt& a) override {
    ++single;
    return ForwardingStore::PutAttempt(s, a);
  }
  StatusOr<std::vector<bool>> PutAttempts(const std::string& s, const std::vector<v1::Attempt>& a,
                                          const std::vector<std::string>& e) override {
    ++batches;
    return ForwardingStore::PutAttempts(s, a, e);
  }
};

TEST(TimedStore, ABatchOfAttemptsIsOneBackendCallAndEveryCallIsTimed) {
  auto dir = testing::TempDir::Create("fs-timed");
  ASSERT_TRUE(dir.ok());
  auto file = FileStore::Open(dir->Join("db"));
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  CountingStore counting(file->get());
  std::map<std::string, int> timed;
  TimedStore store(&counting, [&](const char* op, double seconds) {
    EXPECT_GE(seconds, 0);
    ++timed[op];
  });
  std::vector<v1::Attempt> batch;
  for (int i = 0; i < 5; ++i) batch.push_back(MakeAttempt(i));
  auto fresh = store.PutAttempts("s", batch, {"{\"e\":1}"});
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  EXPECT_EQ(*fresh, std::vector<bool>(5, true));
  EXPECT_EQ(counting.batches, 1);
  EXPECT_EQ(counting.single, 0) << "the batch was split into single writes";
  ASSERT_TRUE(store.PutAttempt("s", MakeAttempt(9)).ok());
  EXPECT_EQ(*store.CountAttempts("s"), 6);
  EXPECT_EQ(store.ReadEvents("s", 0, 10)->size(), 1u);
  EXPECT_EQ(timed["put_attempts"], 1);
  EXPECT_EQ(timed["put_attempt"], 1);
  EXPECT_EQ(timed["count_attempts"], 1);
  EXPECT_EQ(timed["read_events"], 1);
  EXPECT_EQ(store.Describe(), (*file)->Describe());
}

}  // namespace
}  // namespace fleetsweep
