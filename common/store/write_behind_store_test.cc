#include "common/store/write_behind_store.h"

#include <google/protobuf/util/message_differencer.h>
#include <poll.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/store/forwarding_store.h"
#include "common/store/store_test_suite.h"
#include "tests/support/temp_dir.h"

namespace fleetsweep {
namespace {

using store_testing::MakeAttempt;
using store_testing::MakeConfig;
using testing::TempDir;

// The inner store owned beside the WriteBehindStore that borrows it (for the shared suite).
struct InnerHolder {
  std::unique_ptr<ResultStore> inner;
};
class OwningWriteBehind : private InnerHolder, public WriteBehindStore {
 public:
  explicit OwningWriteBehind(std::unique_ptr<ResultStore> inner)
      : InnerHolder{std::move(inner)}, WriteBehindStore(InnerHolder::inner.get()) {}
};

struct WriteBehindFactory {
  static constexpr bool kOptimisticPuts = true;
  Status SetUp() {
    FS_ASSIGN_OR_RETURN(TempDir d, TempDir::Create("fs-writebehind"));
    dir.emplace(std::move(d));
    return Status::Ok();
  }
  StatusOr<std::unique_ptr<ResultStore>> Open() {
    FS_ASSIGN_OR_RETURN(std::unique_ptr<ResultStore> inner, OpenStore("file:" + dir->Join("db")));
    return std::unique_ptr<ResultStore>(new OwningWriteBehind(std::move(inner)));
  }
  std::optional<TempDir> dir;
};

}  // namespace

namespace store_testing {
INSTANTIATE_TYPED_TEST_SUITE_P(WriteBehind, ResultStoreTest, ::testing::Types<WriteBehindFactory>);
}  // namespace store_testing

namespace {

// A real FileStore whose writes can be held at a gate or made to fail, and which logs the
// writes it was asked for ("A<n>" attempts, "C<n>" records).
class GatedStore : public ForwardingStore {
 public:
  explicit GatedStore(std::unique_ptr<ResultStore> real)
      : ForwardingStore(real.get()), real_(std::move(real)) {}
  void Close() {
    std::lock_guard<std::mutex> l(mu_);
    open_ = false;
  }
  void Open() {
    {
      std::lock_guard<std::mutex> l(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }
  void FailNext(int n) { fail_ = n; }
  // Waits until a write is held at the closed gate.
  void WaitHeld() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] { return held_ > 0; });
  }
  std::vector<std::string> log() {
    std::lock_guard<std::mutex> l(mu_);
    return log_;
  }

  Status PutConfigs(const std::string& s, const std::vector<v1::ConfigRecord>& c) override {
    FS_RETURN_IF_ERROR(Gate("C" + std::to_string(c.size())));
    return real_->PutConfigs(s, c);
  }
  StatusOr<bool> PutAttempt(const std::string& s, const v1::Attempt& a) override {
    FS_RETURN_IF_ERROR(Gate("A1"));
    return real_->PutAttempt(s, a);
  }
  StatusOr<std::vector<bool>> PutAttempts(const std::string& s, const std::vector<v1::Attempt>& a,
                                          const std::vector<std::string>& e) override {
    FS_RETURN_IF_ERROR(Gate("A" + std::to_string(a.size())));
    return real_->PutAttempts(s, a, e);
  }
  std::string Describe() const override { return "gated " + real_->Describe(); }

 private:
  Status Gate(const std::string& what) {
    std::unique_lock<std::mutex> l(mu_);
    ++held_;
    cv_.notify_all();
    cv_.wait(l, [&] { return open_; });
    --held_;
    if (fail_ > 0) {
      --fail_;
      log_.push_back("fail " + what);
      return Status::Unavailable("gated store: refused");
    }
    log_.push_back(what);
    return Status::Ok();
  }

  std::unique_ptr<ResultStore> real_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = true;
  int held_ = 0;
  std::atomic<int> fail_{0};
  std::vector<std::string> log_;
};

bool Readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, 0) == 1;
}

class WriteBehindTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = TempDir::Create("fs-writebehind");
    ASSERT_TRUE(d.ok());
    dir_.emplace(std::move(d).value());
    auto real = OpenStore("file:" + dir_->Join("db"));
    ASSERT_TRUE(real.ok()) << real.status().ToString();
    gated_ = std::make_unique<GatedStore>(std::move(real).value());
  }
  WriteBehindOptions Fast() {
    WriteBehindOptions o;
    o.retry_min_seconds = 0.001;
    o.retry_max_seconds = 0.01;
    o.drain_timeout_seconds = 10;
    return o;
  }
  std::optional<TempDir> dir_;
  std::unique_ptr<GatedStore> gated_;
};

TEST_F(WriteBehindTest, AWriteReturnsAtOnceAndIsDurableOnlyWhenTheStoreConfirmedIt) {
  WriteBehindStore wb(gated_.get(), Fast());
  gated_->Close();
  ASSERT_TRUE(wb.PutAttempt("s", MakeAttempt(1)).ok());
  gated_->WaitHeld();
  EXPECT_EQ(wb.accepted(), 1u);
  EXPECT_EQ(wb.durable(), 0u);
  EXPECT_FALSE(Readable(wb.notify_fd()));
  gated_->Open();
  ASSERT_TRUE(wb.Drain().ok());
  EXPECT_EQ(wb.durable(), 1u);
  EXPECT_TRUE(Readable(wb.notify_fd()));
  wb.ClearNotification();
  EXPECT_FALSE(Readable(wb.notify_fd()));
  auto all = wb.LoadAttempts("s");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].attempt_id(), MakeAttempt(1).attempt_id());
}

TEST_F(WriteBehindTest, WritesQueuedMeanwhileAreOneGroupAttemptsBeforeRecords) {
  WriteBehindStore wb(gated_.get(), Fast());
  gated_->Close();
  ASSERT_TRUE(wb.PutConfigs("s", {MakeConfig(0, "c0")}).ok());
  gated_->WaitHeld();  // the first write is in flight: the rest queue behind it
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(wb.PutAttempt("s", MakeAttempt(i, "c" + std::to_string(i % 3))).ok());
    ASSERT_TRUE(wb.PutConfigs("s", {MakeConfig(i + 1, "c" + std::to_string(i % 3))}).ok());
  }
  EXPECT_EQ(wb.accepted(), 21u);
  gated_->Open();
  ASSERT_TRUE(wb.Drain().ok());
  EXPECT_EQ(wb.durable(), 21u);
  // The first record alone, then the group: 10 attempts in one call, then 3 records (the last
  // one per key) in one call.
  EXPECT_EQ(gated_->log(), (std::vector<std::string>{"C1", "A10", "C3"}));
  EXPECT_EQ(wb.inner_writes(), 3);
  auto configs = wb.LoadConfigs("s");
  ASSERT_TRUE(configs.ok());
  ASSERT_EQ(configs->size(), 3u);
  auto attempts = wb.CountAttempts("s");
  ASSERT_TRUE(attempts.ok());
  EXPECT_EQ(*attempts, 10);
}

TEST_F(WriteBehindTest, AFailingStoreRefusesNewWritesAndRetriesWhatItAccepted) {
  WriteBehindStore wb(gated_.get(), Fast());
  gated_->FailNext(1 << 30);
  ASSERT_TRUE(wb.PutAttempt("s", MakeAttempt(1)).ok());  // accepted before the failure is known
  // Drain reports the writer's failure as soon as it happens (it does not wait it out), and
  // while it fails new writes are refused with its error: nothing more is queued.
  EXPECT_EQ(wb.Drain(10).code(), StatusCode::kUnavailable);
  EXPECT_EQ(wb.PutAttempt("s", MakeAttempt(2)).status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(wb.accepted(), 1u);
  EXPECT_EQ(wb.durable(), 0u);
  gated_->FailNext(0);  // the store recovers: the accepted write is retried and lands
  for (int i = 0; i < 10000 && wb.durable() != 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(wb.durable(), 1u);
  EXPECT_TRUE(wb.PutAttempt("s", MakeAttempt(3)).ok());  // accepted again
  ASSERT_TRUE(wb.Drain().ok());
  auto all = wb.LoadAttempts("s");
  ASSERT_TRUE(all.ok());
  std::vector<std::string> ids;
  for (const auto& a : *all) ids.push_back(a.attempt_id());
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids,
            (std::vector<std::string>{MakeAttempt(1).attempt_id(), MakeAttempt(3).attempt_id()}));
  const auto log = gated_->log();
  ASSERT_GE(log.size(), 3u);
  EXPECT_EQ(log.front(), "fail A1");
  EXPECT_EQ(log[log.size() - 2], "A1");
  EXPECT_EQ(log.back(), "A1");
}

TEST_F(WriteBehindTest, ABadArgumentIsRefusedAtOnceAndQueuesNothing) {
  WriteBehindStore wb(gated_.get(), Fast());
  v1::Attempt bad = MakeAttempt(1);
  bad.mutable_samples(0)->set_value(std::nan(""));
  auto put = wb.PutAttempt("s", bad);
  EXPECT_EQ(put.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(wb.PutConfigs("bad sweep name", {MakeConfig(0, "c")}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(wb.accepted(), 0u);
  ASSERT_TRUE(wb.PutAttempt("s", MakeAttempt(2)).ok());
  EXPECT_TRUE(wb.Drain().ok());
  EXPECT_EQ(wb.durable(), 1u);
}

// Attempts handed over with PutAttemptsTaking are checked like copied ones, queued in order with
// them and stored as they were given.
TEST_F(WriteBehindTest, TakenAttemptsAreCheckedQueuedInOrderAndStoredAsGiven) {
  WriteBehindStore wb(gated_.get(), Fast());
  std::vector<v1::Attempt> bad = {MakeAttempt(7)};
  bad[0].mutable_samples(0)->set_value(std::nan(""));
  EXPECT_EQ(wb.PutAttemptsTaking("s", std::move(bad), {}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(wb.accepted(), 0u);
  gated_->Close();
  ASSERT_TRUE(wb.PutConfigs("s", {MakeConfig(0, "c0")}).ok());
  gated_->WaitHeld();  // the rest queue behind it: one group
  std::vector<v1::Attempt> want = {MakeAttempt(1, "c0"), MakeAttempt(2, "c1")};
  std::vector<v1::Attempt> taken = want;
  auto put = wb.PutAttemptsTaking("s", std::move(taken), {});
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  EXPECT_EQ(*put, (std::vector<bool>{true, true}));
  ASSERT_TRUE(wb.PutAttempts("s", {MakeAttempt(3, "c2")}, {}).ok());
  want.push_back(MakeAttempt(3, "c2"));
  EXPECT_EQ(wb.accepted(), 3u);
  gated_->Open();
  ASSERT_TRUE(wb.Drain().ok());
  EXPECT_EQ(gated_->log(), (std::vector<std::string>{"C1", "A3"}));  // one call for all three
  auto all = wb.LoadAttempts("s");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 3u);
  std::map<std::string, v1::Attempt> stored;
  for (const auto& a : *all) stored[a.attempt_id()] = a;
  for (const auto& a : want) {
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(stored[a.attempt_id()], a))
        << a.attempt_id();
  }
}

TEST_F(WriteBehindTest, ClosingGivesUpOnAStoreThatNeverRecovers) {
  WriteBehindOptions o = Fast();
  o.drain_timeout_seconds = 0.2;
  {
    WriteBehindStore wb(gated_.get(), o);
    gated_->FailNext(1 << 30);
    ASSERT_TRUE(wb.PutAttempt("s", MakeAttempt(1)).ok());
    EXPECT_EQ(wb.Drain(0.05).code(), StatusCode::kUnavailable);
  }  // the destructor returns at once instead of retrying forever
  gated_->FailNext(0);
  auto all = gated_->LoadAttempts("s");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->empty());
}

}  // namespace
}  // namespace fleetsweep
