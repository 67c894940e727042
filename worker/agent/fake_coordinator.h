// Test support for the worker agent's tests: FakeCoordinator (a scripted coordinator: a ROUTER
// socket over ipc:// that answers hello, sends leases, specs and acks, and records what the
// worker sent) and RunningAgent (an agent serving one on its own thread). Test-only: defined
// inline in an anonymous namespace of each test that includes it; a failed expectation inside
// shows up as a gtest failure of the including test.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "common/wire/wire.h"
#include "tests/support/source_dir.h"
#include "worker/agent.h"

namespace fleetsweep {
namespace {

using fleetsweep::testing::SourceDir;

std::string SpecText() {
  return "sweep: agent-test\nexecutor:\n  type: exec\n  command: [python3, \"" + SourceDir() +
         "/tests/data/bench/fake_session_bench.py\", \"{MODEL}\"]\n  timeout: 30\n"
         "  session: {mode: persistent}\n"
         "parameters:\n  MODEL: [m1, m2]\n  VALUE: [1, 2, 3]\n  ACT: {fixed: ok, reason: test}\n"
         "metrics:\n  - {name: time_ms, goal: minimize}\n";
}

class FakeCoordinator {
 public:
  explicit FakeCoordinator(const std::string& endpoint) : router_(ctx_, zmq::socket_type::router) {
    router_.bind(endpoint);
  }
  // Receives the next envelope (and who sent it) within `seconds`.
  std::optional<v1::Envelope> Next(double seconds = 10) {
    zmq::pollitem_t items[] = {{static_cast<void*>(router_), 0, ZMQ_POLLIN, 0}};
    if (zmq::poll(items, 1, std::chrono::milliseconds(static_cast<long>(seconds * 1000))) <= 0) {
      return std::nullopt;
    }
    zmq::message_t id, body;
    (void)router_.recv(id);
    (void)router_.recv(body);
    peer_ = id.to_string();
    auto env = DecodeEnvelope(body.data(), body.size());
    if (!env.ok()) return std::nullopt;
    ++seen_[env->body_case()];
    return std::move(env).value();
  }
  // The next envelope of the given kind, skipping heartbeats and others.
  std::optional<v1::Envelope> NextOf(v1::Envelope::BodyCase kind, double seconds = 10) {
    auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
      auto e = Next(0.5);
      if (e && e->body_case() == kind) return e;
    }
    return std::nullopt;
  }
  void Send(const v1::Envelope& env) { SendRaw(EncodeEnvelope(env)); }
  void SendRaw(const std::string& bytes) {
    router_.send(zmq::buffer(peer_), zmq::send_flags::sndmore);
    router_.send(zmq::buffer(bytes));
  }
  static v1::SpecText Spec() {
    v1::SpecText spec;
    spec.set_sweep("agent-test");
    spec.set_spec_yaml(SpecText());
    spec.set_spec_hash(SpecHash(SpecText()));
    return spec;
  }
  // HelloAck, with the spec (as the coordinator sends it) unless with_spec is false.
  void Ack(const std::string& id, bool with_spec = true) {
    v1::Envelope e;
    e.mutable_hello_ack()->set_coordinator_id(id);
    e.mutable_hello_ack()->set_heartbeat_interval_seconds(0.2);
    if (with_spec) *e.mutable_hello_ack()->mutable_spec() = Spec();
    Send(e);
  }
  static v1::Lease MakeLease(const std::string& lease_id, const std::string& model,
                             const std::string& value, const std::string& act = "ok") {
    v1::Lease l;
    l.set_lease_id(lease_id);
    l.set_sweep("agent-test");
    l.set_spec_hash(SpecHash(SpecText()));
    l.set_config_key("K-" + model + "-" + value);
    (*l.mutable_params())["MODEL"] = model;
    (*l.mutable_params())["VALUE"] = value;
    (*l.mutable_params())["ACT"] = act;
    if (act == "slow") (*l.mutable_params())["SLEEP_MS"] = "1500";
    return l;
  }
  // One Leases message.
  void Leases(const std::vector<v1::Lease>& leases) {
    v1::Envelope e;
    for (const auto& l : leases) *e.mutable_leases()->add_leases() = l;
    Send(e);
  }
  void Lease(const std::string& lease_id, const std::string& model, const std::string& value,
             const std::string& act = "ok") {
    Leases({MakeLease(lease_id, model, value, act)});
  }
  void ResultAck(const std::string& lease_id) {
    v1::Envelope e;
    e.mutable_result_acks()->add_lease_ids(lease_id);
    Send(e);
  }
  // How many messages of this kind arrived so far.
  int Seen(v1::Envelope::BodyCase kind) const {
    auto it = seen_.find(kind);
    return it == seen_.end() ? 0 : it->second;
  }

 private:
  std::map<int, int> seen_;
  zmq::context_t ctx_;
  zmq::socket_t router_;
  std::string peer_;
};

std::string Endpoint() {
  return "ipc://" + (std::filesystem::temp_directory_path() /
                     ("fs-agent-" + std::to_string(getpid()) + ".sock"))
                        .string();
}

std::string Info(const v1::Attempt& a, const std::string& key) {
  auto it = a.info().find(key);
  return it == a.info().end() ? "" : it->second;
}

// The results of the next `n` distinct leases, in the order they arrived (each acknowledged when
// `ack`); fewer when 10 s pass without one. *messages counts the Results messages read.
[[maybe_unused]] std::vector<v1::Result> CollectResults(FakeCoordinator& coord, size_t n, bool ack,
                                                        int* messages = nullptr) {
  std::vector<v1::Result> got;
  std::set<std::string> seen;
  while (got.size() < n) {
    auto r = coord.NextOf(v1::Envelope::kResults);
    if (!r) break;
    if (messages) ++*messages;
    for (const v1::Result& res : r->results().results()) {
      if (seen.insert(res.lease_id()).second) got.push_back(res);
      if (ack) coord.ResultAck(res.lease_id());
    }
  }
  return got;
}

// An agent serving a FakeCoordinator on an endpoint of its own, on its own thread; `setup` adjusts
// the options before it starts. Stop() (or the destructor) stops and joins it; Join() waits for
// it to return by itself.
class RunningAgent {
 public:
  RunningAgent(const std::string& name, const std::function<void(AgentOptions*)>& setup = {})
      : coord_(Endpoint() + name) {
    AgentOptions o;
    o.coordinator = Endpoint() + name;
    o.worker_id = "w-" + name;
    if (setup) setup(&o);
    agent_ = std::make_unique<WorkerAgent>(o);
    thread_ = std::thread([this] {
      status_ = agent_->Run(stop_);
      returned_ = true;
    });
  }
  ~RunningAgent() { Stop(); }
  Status Stop() {
    stop_ = true;
    return Join();
  }
  Status Join() {
    if (thread_.joinable()) thread_.join();
    return status_;
  }
  // The hello, answered by a HelloAck (with the spec unless with_spec is false).
  ::testing::AssertionResult Connect(const std::string& coordinator_id = "c1",
                                     bool with_spec = true) {
    if (!coord_.NextOf(v1::Envelope::kHello)) return ::testing::AssertionFailure() << "no hello";
    coord_.Ack(coordinator_id, with_spec);
    return ::testing::AssertionSuccess();
  }
  FakeCoordinator& coord() { return coord_; }
  const WorkerAgent& agent() const { return *agent_; }
  bool returned() const { return returned_; }

 private:
  FakeCoordinator coord_;
  std::unique_ptr<WorkerAgent> agent_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> returned_{false};
  Status status_;
  std::thread thread_;
};

}  // namespace
}  // namespace fleetsweep
