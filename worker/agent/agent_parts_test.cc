// The worker agent's parts in isolation: GiveUpClock, ResultOutbox, SpecCache, Pacing and
// Connection with an injected clock and in-process ZeroMQ (no sleeps, no network).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <zmq.hpp>

#include "common/wire/wire.h"
#include "worker/agent/clock.h"
#include "worker/agent/connection.h"
#include "worker/agent/give_up.h"
#include "worker/agent/pacing.h"
#include "worker/agent/result_outbox.h"
#include "worker/agent/spec_cache.h"

namespace fleetsweep {
namespace {

TEST(GiveUpClock, CountsFromTheLastMessageHeard) {
  GiveUpClock never(0, 1000);
  EXPECT_FALSE(never.Expired(1e9));
  GiveUpClock c(10, 1000);
  EXPECT_FALSE(c.Expired(1010));
  EXPECT_TRUE(c.Expired(1010.5)) << "nothing heard since the start";
  c.Heard(1008);
  c.Heard(1020);
  EXPECT_FALSE(c.Expired(1025)) << "counted from the start, not from the last message";
  EXPECT_EQ(c.Deadline(), 1030);
  c.Heard(1015);  // an older time never moves it back
  EXPECT_FALSE(c.Expired(1029));
  EXPECT_TRUE(c.Expired(1030.5)) << "silence after contact never gives up";
}

const char kSpecYaml[] = R"(sweep: parts
parameters:
  X: {values: [1, 2]}
executor:
  type: exec
  command: [/bin/true]
)";

v1::SpecText SpecOf(const std::string& yaml, const std::string& claimed_hash) {
  v1::SpecText s;
  s.set_sweep("parts");
  s.set_spec_yaml(yaml);
  s.set_spec_hash(claimed_hash);
  return s;
}

v1::Lease LeaseFor(const std::string& id, const std::string& hash) {
  v1::Lease l;
  l.set_lease_id(id);
  l.set_spec_hash(hash);
  return l;
}

TEST(SpecCache, AsksOnceForAnUnknownSpecReleasesItsLeasesAndParsesOnce) {
  SpecCache cache(2.0);
  const std::string h = SpecHash(kSpecYaml);
  EXPECT_EQ(cache.Find(h), nullptr);
  EXPECT_TRUE(cache.Await(LeaseFor("a", h))) << "the first lease naming the hash asks";
  cache.Asked(h, 100);
  EXPECT_FALSE(cache.Await(LeaseFor("b", h))) << "an ask is outstanding";
  EXPECT_EQ(cache.waiting(), 2);
  EXPECT_TRUE(cache.AsksDue(101.9).empty());
  EXPECT_EQ(cache.NextAskDue(), 102);
  EXPECT_EQ(cache.AsksDue(102), std::vector<std::string>{h}) << "unanswered: asked again";

  SpecCache::Added added = cache.Add(SpecOf(kSpecYaml, h));
  ASSERT_TRUE(added.ok) << added.error;
  EXPECT_TRUE(added.is_new);
  ASSERT_NE(added.info, nullptr);
  EXPECT_TRUE(added.info->error.empty()) << added.info->error;
  EXPECT_NE(added.info->launcher, nullptr);
  EXPECT_EQ(cache.Find(h), added.info);
  auto waiting = cache.TakeWaiting();
  ASSERT_EQ(waiting.size(), 1u);
  ASSERT_EQ(waiting[h].size(), 2u);
  EXPECT_EQ(waiting[h][0].lease_id(), "a");
  EXPECT_EQ(cache.waiting(), 0);
  EXPECT_TRUE(std::isinf(cache.NextAskDue())) << "no ask outstanding after the answer";

  SpecCache::Added again = cache.Add(SpecOf(kSpecYaml, h));
  EXPECT_TRUE(again.ok);
  EXPECT_FALSE(again.is_new);
  EXPECT_EQ(again.info, added.info) << "kept, not parsed again (sessions point at its launcher)";
}

TEST(SpecCache, RefusesATextThatDoesNotHashToItsClaimAndKeepsParseErrors) {
  SpecCache cache;
  SpecCache::Added forged = cache.Add(SpecOf(kSpecYaml, "0123456789abcdef"));
  EXPECT_FALSE(forged.ok);
  EXPECT_NE(forged.error.find("0123456789abcdef"), std::string::npos) << forged.error;
  EXPECT_NE(forged.error.find(SpecHash(kSpecYaml)), std::string::npos) << forged.error;
  EXPECT_EQ(cache.Find(SpecHash(kSpecYaml)), nullptr);

  const std::string bad = "sweep: broken\nparameters: [\n";
  SpecCache::Added broken = cache.Add(SpecOf(bad, SpecHash(bad)));
  ASSERT_TRUE(broken.ok) << "kept with its error, so its leases fail instead of waiting";
  ASSERT_NE(broken.info, nullptr);
  EXPECT_FALSE(broken.info->error.empty());
  EXPECT_EQ(broken.info->launcher, nullptr);
}

v1::Result MakeResult(const std::string& lease_id) {
  v1::Result r;
  r.set_lease_id(lease_id);
  r.mutable_attempt()->set_attempt_id(lease_id);
  return r;
}

// How much a slot holds ahead follows the executions' durations, within [--prefetch, 16].
TEST(Pacing, PrefetchCoversTheHoldTimeAtTheRecentDuration) {
  Pacing p(PacingOptions{1, 16, 0.02, 0.002, 16});
  EXPECT_EQ(p.Prefetch(), 1);  // nothing observed yet: --prefetch
  p.Observed(1.0);             // one-second executions: one waiting is plenty
  EXPECT_EQ(p.Prefetch(), 1);
  Pacing fast(PacingOptions{1, 16, 0.02, 0.002, 16});
  fast.Observed(0.005);  // 20 ms / 5 ms
  EXPECT_EQ(fast.Prefetch(), 4);
  for (int i = 0; i < 50; ++i) fast.Observed(0.0003);  // the average follows: capped at 16
  EXPECT_EQ(fast.Prefetch(), 16);
  for (int i = 0; i < 50; ++i) fast.Observed(2.0);  // and comes back down
  EXPECT_EQ(fast.Prefetch(), 1);
  fast.Observed(std::nan(""));  // not a duration: ignored
  fast.Observed(-1);
  EXPECT_EQ(fast.Prefetch(), 1);
  Pacing off(PacingOptions{0, 0, 0.02, 0.002, 16});  // --prefetch 0: never ahead
  off.Observed(0.0001);
  EXPECT_EQ(off.Prefetch(), 0);
  Pacing zero(PacingOptions{2, 16, 0.02, 0.002, 16});
  zero.Observed(0.0);  // instant executions: the most
  EXPECT_EQ(zero.Prefetch(), 16);
}

// Leases are asked for in batches: once half the places are free, or when a slot would go idle.
TEST(Pacing, LeasesAreAskedForWhenHalfArFreeOrASlotWouldIdle) {
  Pacing p(PacingOptions{1, 16, 0.02, 0.002, 16});
  // 2 slots, 34 places (2 x (1 + 16)).
  EXPECT_EQ(p.ToRequest(0, 34, 2), 0);    // full
  EXPECT_EQ(p.ToRequest(16, 34, 2), 0);   // 18 held: wait
  EXPECT_EQ(p.ToRequest(17, 34, 2), 17);  // half free: all of them
  EXPECT_EQ(p.ToRequest(33, 34, 2), 33);
  EXPECT_EQ(p.ToRequest(1, 3, 4), 1);  // 2 held for 4 slots: a slot would idle
  EXPECT_EQ(p.ToRequest(1, 2, 1), 1);  // one slot, --prefetch 1: the usual single ask
}

// Finished executions wait for a batch, at most flush_seconds, and never when a slot ran dry.
TEST(Pacing, FinishedExecutionsAreTakenWhenTheBatchIsFullDueOrUrgent) {
  Pacing p(PacingOptions{1, 16, 0.02, 0.002, 4, 1});
  EXPECT_TRUE(p.TakeNow(1, 10.0, 10.0, false));  // nothing observed: no batch to wait for
  p.Observed(0.0005);                            // another one is due within 2 ms
  EXPECT_FALSE(p.TakeNow(0, 10.0, 99.0, true));  // nothing waiting
  EXPECT_FALSE(p.TakeNow(1, 10.0, 10.001, false));
  EXPECT_TRUE(p.TakeNow(1, 10.0, 10.001, true));  // a slot has nothing left to run
  EXPECT_TRUE(p.TakeNow(4, 10.0, 10.0, false));   // a full batch
  EXPECT_DOUBLE_EQ(p.TakeDue(10.0), 10.002);
  EXPECT_TRUE(p.TakeNow(2, 10.0, 10.002, false));  // the first waited flush_seconds
  // The wait stretches to two average durations (many workers on few cores stretch them all),
  // at most 10 ms.
  EXPECT_DOUBLE_EQ(p.FlushSeconds(), 0.002);
  Pacing mid(PacingOptions{1, 16, 0.02, 0.002, 4, 1});
  EXPECT_DOUBLE_EQ(mid.FlushSeconds(), 0.002);  // nothing observed
  mid.Observed(0.003);
  EXPECT_DOUBLE_EQ(mid.FlushSeconds(), 0.006);
  EXPECT_FALSE(mid.TakeNow(1, 10.0, 10.005, false));
  EXPECT_TRUE(mid.TakeNow(1, 10.0, 10.0061, false));
  // Executions of 30 ms: none other finishes within 10 ms on one slot; on three slots one may.
  Pacing slow(PacingOptions{1, 16, 0.02, 0.002, 4, 1});
  slow.Observed(0.03);
  EXPECT_DOUBLE_EQ(slow.FlushSeconds(), 0.01);
  EXPECT_TRUE(slow.TakeNow(1, 10.0, 10.0, false));
  Pacing three(PacingOptions{1, 16, 0.02, 0.002, 4, 3});
  three.Observed(0.03);
  EXPECT_FALSE(three.TakeNow(1, 10.0, 10.0, false));
}

std::vector<std::string> Ids(const std::vector<const v1::Result*>& due) {
  std::vector<std::string> ids;
  for (const v1::Result* r : due) ids.push_back(r->lease_id());
  return ids;
}

TEST(ResultOutbox, NewResultsAreDueAtOnceThenResentUntilAcknowledged) {
  ResultOutbox box(3.0);
  box.Add(MakeResult("L1"));
  EXPECT_EQ(Ids(box.Due(100.0)), std::vector<std::string>{"L1"});
  box.Add(MakeResult("L2"));
  EXPECT_TRUE(std::isinf(box.NextDue()) && box.NextDue() < 0) << "L2 waits to be sent";
  EXPECT_EQ(Ids(box.Due(101.0)), std::vector<std::string>{"L2"});
  EXPECT_TRUE(box.Due(102.9).empty());
  EXPECT_DOUBLE_EQ(box.NextDue(), 103.0);
  EXPECT_EQ(Ids(box.Due(103.0)), std::vector<std::string>{"L1"});
  EXPECT_TRUE(box.Due(103.5).empty());  // just re-sent: not due again yet
  box.Ack("L2");
  box.Ack("unknown");  // ignored
  EXPECT_EQ(box.size(), 1u);
  EXPECT_EQ(box.Due(106.0).size(), 1u);
  box.Ack("L1");
  EXPECT_TRUE(box.empty());
  EXPECT_TRUE(std::isinf(box.NextDue()));
}

// Against the plain rule (every waiting result is due when never sent or sent at least
// resend_interval ago; NextDue the earliest such time) on random adds, replacements, acks in any
// order and sends at random times.
TEST(ResultOutbox, DueAndNextDueFollowThePlainRuleUnderRandomTraffic) {
  std::mt19937 rng(11);
  for (int round = 0; round < 20; ++round) {
    ResultOutbox box(3.0);
    std::map<std::string, double> model;  // lease id -> last sent (-inf: never)
    const double never = -std::numeric_limits<double>::infinity();
    double now = 0;
    for (int step = 0; step < 400; ++step) {
      const int op = static_cast<int>(rng() % 10);
      const std::string id = "L" + std::to_string(rng() % 40);
      if (op < 4) {
        box.Add(MakeResult(id));  // new, or a replacement: due at once either way
        model[id] = never;
      } else if (op < 6) {
        box.Ack(id);
        model.erase(id);
      } else {
        now += (rng() % 2000) / 1000.0;
        std::set<std::string> want;
        for (auto& [lease, sent] : model) {
          if (now - sent >= 3.0) {
            want.insert(lease);
            sent = now;
          }
        }
        std::set<std::string> got;
        for (const v1::Result* r : box.Due(now)) {
          EXPECT_TRUE(got.insert(r->lease_id()).second) << "twice in one Due: " << r->lease_id();
        }
        ASSERT_EQ(got, want) << "round " << round << " step " << step;
      }
      double next = std::numeric_limits<double>::infinity();
      for (const auto& [lease, sent] : model) next = std::min(next, sent + 3.0);
      ASSERT_EQ(box.NextDue(), next) << "round " << round << " step " << step;
      ASSERT_EQ(box.size(), model.size());
    }
  }
}

// Several ready results travel in one Results message; the size bound splits them.
TEST(ResultOutbox, PackResultsBatchesUnderTheSizeBound) {
  ResultOutbox box;
  for (int i = 0; i < 5; ++i) box.Add(MakeResult("L" + std::to_string(i)));
  auto due = box.Due(0);
  ASSERT_EQ(due.size(), 5u);
  auto one = PackResults(due);
  ASSERT_EQ(one.size(), 1u);
  auto env = DecodeEnvelope(one[0].data(), one[0].size());
  ASSERT_TRUE(env.ok()) << env.status().ToString();
  ASSERT_EQ(env->results().results_size(), 5);
  EXPECT_EQ(env->results().results(4).lease_id(), "L4");
  const size_t each = due[0]->ByteSizeLong();
  auto split = PackResults(due, 2 * each);  // two per message
  ASSERT_EQ(split.size(), 3u);
  int total = 0;
  for (const auto& bytes : split) {
    auto e = DecodeEnvelope(bytes.data(), bytes.size());
    ASSERT_TRUE(e.ok());
    EXPECT_LE(e->results().results_size(), 2);
    total += e->results().results_size();
  }
  EXPECT_EQ(total, 5);
  EXPECT_TRUE(PackResults({}).empty());
}

// Packing borrows the outbox's results: they stay where they were, unchanged, and a resend of
// the same results encodes the same bytes.
TEST(ResultOutbox, PackingLeavesTheResultsInTheOutboxUnchanged) {
  ResultOutbox box(1.0);
  for (int i = 0; i < 4; ++i) {
    v1::Result r = MakeResult("L" + std::to_string(i));
    r.mutable_attempt()->set_config_key("X=" + std::to_string(i));
    (*r.mutable_attempt()->mutable_info())["session.position"] = std::to_string(i + 1);
    auto* s = r.mutable_attempt()->add_samples();
    s->set_metric("time_ms");
    s->set_value(1.5 * (i + 1));  // nonzero: every result has the same size
    box.Add(std::move(r));
  }
  auto due = box.Due(0);
  ASSERT_EQ(due.size(), 4u);
  std::vector<std::string> before;
  for (const v1::Result* r : due) before.push_back(r->SerializeAsString());
  auto first = PackResults(due, 2 * due[0]->ByteSizeLong());
  ASSERT_EQ(first.size(), 2u);
  for (size_t i = 0; i < due.size(); ++i) EXPECT_EQ(due[i]->SerializeAsString(), before[i]);
  auto resend = box.Due(1.5);  // the same results, due again
  ASSERT_EQ(resend.size(), 4u);
  EXPECT_EQ(resend, due);  // the same objects, still owned by the outbox
  EXPECT_EQ(PackResults(resend, 2 * due[0]->ByteSizeLong()), first);
  auto env = DecodeEnvelope(first[1].data(), first[1].size());
  ASSERT_TRUE(env.ok());
  ASSERT_EQ(env->results().results_size(), 2);
  EXPECT_EQ(env->results().results(1).attempt().info().at("session.position"), "4");
  EXPECT_EQ(env->results().results(1).attempt().samples(0).value(), 6.0);
}

class ConnectionTest : public ::testing::Test {
 protected:
  ConnectionTest() : router_(ctx_, zmq::socket_type::router) {
    router_.bind("inproc://coord");
    ConnectionOptions o;
    o.coordinator = "inproc://coord";
    o.worker_id = "w1";
    o.node.set_worker_id("w1");
    o.node.set_slots(2);
    conn_ = std::make_unique<Connection>(&ctx_, o, &clock_);
  }
  // The next envelope the coordinator side got (nullopt when none within 1 s).
  std::optional<v1::Envelope> Next() {
    zmq::pollitem_t items[] = {{static_cast<void*>(router_), 0, ZMQ_POLLIN, 0}};
    if (zmq::poll(items, 1, std::chrono::milliseconds(1000)) <= 0) return std::nullopt;
    zmq::message_t id, body;
    (void)router_.recv(id);
    (void)router_.recv(body);
    auto env = DecodeEnvelope(body.data(), body.size());
    if (!env.ok()) return std::nullopt;
    return std::move(env).value();
  }
  bool NothingWaiting() {
    zmq::pollitem_t items[] = {{static_cast<void*>(router_), 0, ZMQ_POLLIN, 0}};
    return zmq::poll(items, 1, std::chrono::milliseconds(50)) == 0;
  }
  void Reply(const v1::Envelope& env) {
    std::string bytes = EncodeEnvelope(env);
    router_.send(zmq::buffer(std::string("w1")), zmq::send_flags::sndmore);
    router_.send(zmq::buffer(bytes));
  }

  zmq::context_t ctx_;
  zmq::socket_t router_;
  FakeClock clock_;
  std::unique_ptr<Connection> conn_;
};

TEST_F(ConnectionTest, HelloIsRetriedUntilAcknowledgedThenHeartbeats) {
  ASSERT_TRUE(conn_->Open().ok());
  auto hello = Next();
  ASSERT_TRUE(hello && hello->has_hello());
  EXPECT_EQ(hello->hello().node().slots(), 2);
  auto no_heartbeat = [](v1::Heartbeat*) { ADD_FAILURE() << "heartbeat before the ack"; };
  clock_.Advance(1.9);
  conn_->Tick(no_heartbeat);
  EXPECT_TRUE(NothingWaiting());  // not yet: the retry interval is 2 s
  clock_.Advance(0.2);
  conn_->Tick(no_heartbeat);
  auto again = Next();
  ASSERT_TRUE(again && again->has_hello());

  v1::Envelope ack;
  ack.mutable_hello_ack()->set_coordinator_id("c1");
  ack.mutable_hello_ack()->set_heartbeat_interval_seconds(0.5);
  Reply(ack);
  std::optional<v1::Envelope> got;
  for (int i = 0; i < 100 && !got; ++i) {
    zmq::pollitem_t items[] = {{static_cast<void*>(conn_->socket()), 0, ZMQ_POLLIN, 0}};
    zmq::poll(items, 1, std::chrono::milliseconds(10));
    got = conn_->Receive();
  }
  ASSERT_TRUE(got && got->has_hello_ack());
  conn_->OnHelloAck(got->hello_ack());
  EXPECT_TRUE(conn_->acked());
  EXPECT_EQ(conn_->coordinator_id(), "c1");
  int beats = 0;
  auto fill = [&](v1::Heartbeat* hb) {
    ++beats;
    hb->add_waiting_lease_ids("L7");
  };
  conn_->Tick(fill);  // first heartbeat at once
  auto hb = Next();
  ASSERT_TRUE(hb && hb->has_heartbeat());
  EXPECT_EQ(hb->heartbeat().waiting_lease_ids(0), "L7");
  clock_.Advance(0.4);
  conn_->Tick(fill);
  EXPECT_EQ(beats, 1);
  EXPECT_DOUBLE_EQ(conn_->NextTimer(), clock_.Now() + 0.1);
  clock_.Advance(0.1);
  conn_->Tick(fill);
  EXPECT_EQ(beats, 2);
}

TEST_F(ConnectionTest, RejectMeansHelloAgainAtMostEveryHalfSecond) {
  ASSERT_TRUE(conn_->Open().ok());
  ASSERT_TRUE(Next());  // first hello
  v1::HelloAck ack;
  ack.set_heartbeat_interval_seconds(100);
  conn_->OnHelloAck(ack);
  clock_.Advance(1.0);
  conn_->OnReject(v1::Reject());
  EXPECT_FALSE(conn_->acked());
  auto hello = Next();
  ASSERT_TRUE(hello && hello->has_hello());
  clock_.Advance(0.1);
  conn_->OnReject(v1::Reject());  // too soon after the last hello
  EXPECT_TRUE(NothingWaiting());
  EXPECT_TRUE(conn_->fatal().ok());
}

// A coordinator of another protocol version: its Reject (or any message stamped with its
// version) is fatal, naming both versions; no more hellos.
TEST_F(ConnectionTest, AnotherProtocolVersionIsFatal) {
  ASSERT_TRUE(conn_->Open().ok());
  ASSERT_TRUE(Next());  // first hello
  v1::Reject says;
  says.set_reason("protocol version 2 is not supported: this coordinator speaks version 3");
  says.set_speaks_protocol_version(3);
  clock_.Advance(1.0);
  conn_->OnReject(says);
  EXPECT_EQ(conn_->fatal().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(conn_->fatal().message().find("speaks wire protocol version 3"), std::string::npos);
  EXPECT_NE(conn_->fatal().message().find("this worker speaks version 2"), std::string::npos);
  EXPECT_TRUE(NothingWaiting()) << "no hello after a version reject";
}

TEST_F(ConnectionTest, AMessageOfAnOlderVersionIsFatal) {
  ASSERT_TRUE(conn_->Open().ok());
  ASSERT_TRUE(Next());
  // What a version-1 coordinator answers a version-2 hello with.
  v1::Envelope old;
  old.set_protocol_version(1);
  old.mutable_reject()->set_reason(
      "wire: protocol version 2 is not supported (this build speaks 1)");
  std::string bytes;
  ASSERT_TRUE(old.SerializeToString(&bytes));
  router_.send(zmq::buffer(std::string("w1")), zmq::send_flags::sndmore);
  router_.send(zmq::buffer(bytes));
  for (int i = 0; i < 100 && conn_->fatal().ok(); ++i) {
    zmq::pollitem_t items[] = {{static_cast<void*>(conn_->socket()), 0, ZMQ_POLLIN, 0}};
    zmq::poll(items, 1, std::chrono::milliseconds(10));
    EXPECT_FALSE(conn_->Receive());
  }
  EXPECT_EQ(conn_->fatal().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(conn_->fatal().message().find("peer speaks protocol version 1"), std::string::npos);
  EXPECT_NE(conn_->fatal().message().find("this build speaks version 2"), std::string::npos);
  EXPECT_NE(conn_->fatal().message().find("this build speaks 1"), std::string::npos)
      << "the coordinator's own words are passed on";
}

}  // namespace
}  // namespace fleetsweep
