// The coordinator's ZeroMQ front (wire protocol v2) over a real socket: one Leases message per
// work request, one ResultAcks per wake-up sent only after its store writes, the spec by hash,
// and a version-1 peer told so in its own version. A FileStore whose attempt writes can be made
// to fail stands in for a store that is down.
#include "coordinator/server/server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <zmq.hpp>

#include "common/store/file_store.h"
#include "common/store/forwarding_store.h"
#include "common/store/write_behind_store.h"
#include "common/wire/wire.h"
#include "tests/support/temp_dir.h"

namespace fleetsweep {
namespace {

const char* kSpec = R"(sweep: srv
executor: {type: exec, command: ["/bin/true"], timeout: 5}
parameters:
  A: {values: [1, 2, 3, 4, 5, 6, 7, 8]}
repetitions: {min: 1, max: 1}
metrics: [{name: t, goal: minimize}]
)";

// Forwards to a FileStore; attempt writes fail while `refuse` is set. Counted for the test
// thread (the server calls it on its own thread).
class SwitchableStore : public ForwardingStore {
 public:
  explicit SwitchableStore(ResultStore* inner) : ForwardingStore(inner) {}
  std::atomic<bool> refuse{false};
  std::atomic<int> failed_attempt_writes{0}, attempt_batches{0}, batch_sizes{0};
  std::mutex gate;  // held by the test: attempt writes wait for it

  StatusOr<bool> PutAttempt(const std::string& s, const v1::Attempt& a) override {
    if (refuse) {
      ++failed_attempt_writes;
      return Status::Unavailable("store down (test)");
    }
    return inner()->PutAttempt(s, a);
  }
  StatusOr<std::vector<bool>> PutAttempts(const std::string& s, const std::vector<v1::Attempt>& a,
                                          const std::vector<std::string>& e) override {
    std::lock_guard<std::mutex> wait_for_the_test(gate);
    if (refuse) {
      ++failed_attempt_writes;
      return Status::Unavailable("store down (test)");
    }
    ++attempt_batches;
    batch_sizes += static_cast<int>(a.size());
    return inner()->PutAttempts(s, a, e);
  }
  std::string Describe() const override { return "switchable:" + inner()->Describe(); }
};

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

class ServerTest : public ::testing::Test {
 protected:
  virtual bool UseWriteBehind() const { return false; }
  void SetUp() override {
    auto d = testing::TempDir::Create();
    ASSERT_TRUE(d.ok());
    dir_.emplace(std::move(d).value());
    auto f = FileStore::Open(dir_->Join("store"));
    ASSERT_TRUE(f.ok());
    file_ = std::move(f).value();
    store_ = std::make_unique<SwitchableStore>(file_.get());
    auto spec = ParseSpecText(kSpec, "srv.yaml");
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    spec_ = std::move(spec).value();
    SchedulerOptions so;
    so.store_probe_min_seconds = 0.01;
    so.store_probe_max_seconds = 0.01;
    if (UseWriteBehind()) {
      WriteBehindOptions wo;
      wo.retry_min_seconds = wo.retry_max_seconds = 0.005;
      write_behind_ = std::make_unique<WriteBehindStore>(store_.get(), wo);
    }
    ResultStore* store = store_.get();
    if (write_behind_) store = write_behind_.get();
    sched_ = std::make_unique<Scheduler>(spec_, so, store);
    ASSERT_TRUE(sched_->Init().ok());
    server_ = std::make_unique<CoordinatorServer>(sched_.get(), ServerOptions{}, Now);
    server_->SetDurability(write_behind_.get());
    ASSERT_TRUE(server_->Bind().ok());
    thread_ = std::thread([this] { (void)server_->Serve(stop_, nullptr); });
    worker_.set(zmq::sockopt::routing_id, std::string("w1"));
    worker_.set(zmq::sockopt::linger, 0);
    worker_.connect(server_->endpoint());
  }
  void TearDown() override {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  void Send(const v1::Envelope& e) { SendRaw(EncodeEnvelope(e)); }
  void SendRaw(const std::string& bytes) { worker_.send(zmq::buffer(bytes)); }
  // The next message from the coordinator (raw bytes), nullopt after 10 s.
  std::optional<std::string> NextRaw() {
    zmq::pollitem_t items[] = {{static_cast<void*>(worker_), 0, ZMQ_POLLIN, 0}};
    if (zmq::poll(items, 1, std::chrono::milliseconds(10000)) <= 0) return std::nullopt;
    zmq::message_t m;
    (void)worker_.recv(m);
    return m.to_string();
  }
  std::optional<v1::Envelope> Next() {
    auto raw = NextRaw();
    if (!raw) return std::nullopt;
    auto env = DecodeEnvelope(raw->data(), raw->size());
    if (!env.ok()) return std::nullopt;
    return std::move(env).value();
  }
  v1::HelloAck Hello() {
    v1::Envelope e;
    e.mutable_hello()->mutable_node()->set_slots(1);
    Send(e);
    auto ack = Next();
    EXPECT_TRUE(ack && ack->has_hello_ack());
    return ack ? ack->hello_ack() : v1::HelloAck();
  }
  std::vector<v1::Lease> Request(int n) {
    v1::Envelope e;
    e.mutable_work_request()->set_free_slots(n);
    Send(e);
    auto got = Next();
    EXPECT_TRUE(got && got->has_leases()) << (got ? EnvelopeKind(*got) : "nothing");
    if (!got) return {};
    return {got->leases().leases().begin(), got->leases().leases().end()};
  }
  static v1::Envelope ResultsFor(const std::vector<v1::Lease>& leases) {
    v1::Envelope e;
    for (const auto& l : leases) {
      v1::Result* r = e.mutable_results()->add_results();
      r->set_lease_id(l.lease_id());
      r->set_sweep(l.sweep());
      v1::Attempt* a = r->mutable_attempt();
      a->set_attempt_id(l.lease_id());
      a->set_config_key(l.config_key());
      a->set_ok(true);
      v1::Sample* s = a->add_samples();
      s->set_metric("t");
      s->set_value(1);
    }
    return e;
  }
  // What the store holds (through the write-behind store, which drains first, unless `direct`:
  // only while its writer is held at the gate).
  std::set<std::string> StoredIds(bool direct = false) {
    std::set<std::string> ids;
    auto all =
        write_behind_ && !direct ? write_behind_->LoadAttempts("srv") : file_->LoadAttempts("srv");
    EXPECT_TRUE(all.ok());
    if (all.ok()) {
      for (const auto& a : *all) ids.insert(a.attempt_id());
    }
    return ids;
  }

  std::optional<testing::TempDir> dir_;
  std::unique_ptr<FileStore> file_;
  std::unique_ptr<SwitchableStore> store_;
  std::unique_ptr<WriteBehindStore> write_behind_;  // over store_, when UseWriteBehind()
  SweepSpec spec_;
  std::unique_ptr<Scheduler> sched_;
  std::unique_ptr<CoordinatorServer> server_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  zmq::context_t ctx_;
  zmq::socket_t worker_{ctx_, zmq::socket_type::dealer};
};

TEST_F(ServerTest, AWorkRequestIsAnsweredWithEveryLeaseInOneMessageNamingTheSpecByHash) {
  v1::HelloAck ack = Hello();
  EXPECT_EQ(ack.spec().spec_yaml(), kSpec);
  EXPECT_EQ(ack.spec().spec_hash(), SpecHash(kSpec));
  auto leases = Request(3);
  ASSERT_EQ(leases.size(), 3u);
  std::set<std::string> ids;
  for (const auto& l : leases) {
    EXPECT_EQ(l.spec_hash(), SpecHash(kSpec));
    ids.insert(l.lease_id());
  }
  EXPECT_EQ(ids.size(), 3u);
  EXPECT_EQ(sched_->OutstandingLeases(), 3);
}

TEST_F(ServerTest, ASpecRequestIsAnsweredWithTheSpecItServes) {
  Hello();
  v1::Envelope ask;
  ask.mutable_spec_request()->set_spec_hash(SpecHash(kSpec));
  Send(ask);
  auto spec = Next();
  ASSERT_TRUE(spec && spec->has_spec());
  EXPECT_EQ(spec->spec().spec_yaml(), kSpec);
  EXPECT_EQ(spec->spec().sweep(), "srv");
  // Another hash: the coordinator still says which spec it serves (the worker reports both).
  ask.mutable_spec_request()->set_spec_hash("00000000deadbeef");
  Send(ask);
  auto other = Next();
  ASSERT_TRUE(other && other->has_spec());
  EXPECT_EQ(other->spec().spec_hash(), SpecHash(kSpec));
}

// Several results in one message: stored in one batch, acknowledged in one message, and only
// once durable. While the store refuses writes nothing is acknowledged (the worker re-sends).
TEST_F(ServerTest, ResultsAreStoredTogetherAndAcknowledgedTogetherOnlyOnceDurable) {
  Hello();
  auto first = Request(3);
  ASSERT_EQ(first.size(), 3u);
  Send(ResultsFor(first));
  auto acks = Next();
  ASSERT_TRUE(acks && acks->has_result_acks()) << (acks ? EnvelopeKind(*acks) : "nothing");
  ASSERT_EQ(acks->result_acks().lease_ids_size(), 3) << "one message acknowledges all three";
  std::set<std::string> stored = StoredIds();
  for (const auto& id : acks->result_acks().lease_ids()) EXPECT_TRUE(stored.count(id)) << id;
  EXPECT_EQ(store_->attempt_batches.load(), 1);
  EXPECT_EQ(store_->batch_sizes.load(), 3) << "one store write for the three attempts";

  // The store goes down with results in flight.
  auto second = Request(3);
  ASSERT_EQ(second.size(), 3u);
  store_->refuse = true;
  Send(ResultsFor(second));
  // Every write of that wake-up was tried (one batch, then each alone) ...
  while (store_->failed_attempt_writes.load() < 4) std::this_thread::yield();
  // ... so a hello sent now is handled in a later wake-up: an ack for the refused results would
  // arrive before its HelloAck.
  v1::Envelope hello;
  hello.mutable_hello()->mutable_node()->set_slots(1);
  Send(hello);
  auto next = Next();
  ASSERT_TRUE(next);
  EXPECT_TRUE(next->has_hello_ack()) << "got " << EnvelopeKind(*next) << " before the hello ack";
  for (const auto& l : second) EXPECT_FALSE(StoredIds().count(l.lease_id()));

  // Back up: the worker's re-send is stored and acknowledged, in one message.
  store_->refuse = false;
  Send(ResultsFor(second));
  auto later = Next();
  ASSERT_TRUE(later && later->has_result_acks()) << (later ? EnvelopeKind(*later) : "nothing");
  EXPECT_EQ(later->result_acks().lease_ids_size(), 3);
  stored = StoredIds();
  for (const auto& l : second) EXPECT_TRUE(stored.count(l.lease_id())) << l.lease_id();
  EXPECT_EQ(sched_->CountedAttempts(), 6);
}

// A version-1 worker is told, in version 1 (which it can read), that this coordinator speaks 2.
TEST_F(ServerTest, AVersionOnePeerGetsARejectItCanReadNamingBothVersions) {
  v1::Envelope hello;
  hello.set_protocol_version(1);
  hello.mutable_hello()->mutable_node()->set_slots(1);
  std::string bytes;
  ASSERT_TRUE(hello.SerializeToString(&bytes));
  SendRaw(bytes);
  auto raw = NextRaw();
  ASSERT_TRUE(raw);
  v1::Envelope reply;
  ASSERT_TRUE(reply.ParseFromString(*raw));
  EXPECT_EQ(reply.protocol_version(), 1u);
  ASSERT_TRUE(reply.has_reject());
  EXPECT_NE(reply.reject().reason().find("protocol version 1 is not supported"), std::string::npos);
  EXPECT_NE(reply.reject().reason().find("speaks version 2"), std::string::npos);
  EXPECT_EQ(reply.reject().speaks_protocol_version(), 2u);
  EXPECT_FALSE(sched_->KnowsWorker("w1")) << "the version-1 hello was not taken";
}

// With the write-behind store (what the coordinator serves with): while a result's write is in
// flight the server goes on serving (a work request is answered), and the result's ack waits
// until the write is durable.
class ServerWriteBehindTest : public ServerTest {
 protected:
  bool UseWriteBehind() const override { return true; }
};

TEST_F(ServerWriteBehindTest, LeasesAreGrantedWhileAWriteIsInFlightAndItsAckWaitsForIt) {
  Hello();
  auto first = Request(2);
  ASSERT_EQ(first.size(), 2u);
  std::unique_lock<std::mutex> hold(store_->gate);  // the store "fsyncs" until released
  Send(ResultsFor(first));
  // A work request sent after the results is answered at once (with leases, not the ack: the
  // ack cannot come before the write it acknowledges is durable).
  auto more = Request(1);
  ASSERT_EQ(more.size(), 1u);
  EXPECT_EQ(sched_->CountedAttempts(), 2) << "counted while the write is in flight";
  for (const auto& l : first) EXPECT_FALSE(StoredIds(/*direct=*/true).count(l.lease_id()));
  hold.unlock();
  auto acks = Next();
  ASSERT_TRUE(acks && acks->has_result_acks()) << (acks ? EnvelopeKind(*acks) : "nothing");
  ASSERT_EQ(acks->result_acks().lease_ids_size(), 2);
  std::set<std::string> stored = StoredIds();
  for (const auto& id : acks->result_acks().lease_ids()) EXPECT_TRUE(stored.count(id)) << id;
}

TEST_F(ServerWriteBehindTest, WhileTheStoreRefusesNothingIsAcknowledgedAndTheWriteIsRetried) {
  Hello();
  auto leases = Request(3);
  ASSERT_EQ(leases.size(), 3u);
  store_->refuse = true;
  Send(ResultsFor(leases));
  while (store_->failed_attempt_writes.load() < 2) std::this_thread::yield();  // retried
  // A hello sent now is answered first: no ack for the refused write came before it.
  v1::Envelope hello;
  hello.mutable_hello()->mutable_node()->set_slots(1);
  Send(hello);
  auto next = Next();
  ASSERT_TRUE(next);
  EXPECT_TRUE(next->has_hello_ack()) << "got " << EnvelopeKind(*next) << " before the hello ack";
  // The store comes back: the write accepted before the failure lands and is acknowledged,
  // without the worker sending it again.
  store_->refuse = false;
  auto acks = Next();
  ASSERT_TRUE(acks && acks->has_result_acks()) << (acks ? EnvelopeKind(*acks) : "nothing");
  EXPECT_EQ(acks->result_acks().lease_ids_size(), 3);
  std::set<std::string> stored = StoredIds();
  for (const auto& l : leases) EXPECT_TRUE(stored.count(l.lease_id())) << l.lease_id();
}

}  // namespace
}  // namespace fleetsweep
