#include "worker/agent.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <zmq.hpp>

#include "common/space/spec.h"
#include "common/wire/wire.h"
#include "nlohmann/json.hpp"
#include "spdlog/spdlog.h"
#include "worker/executors/executor.h"
#include "worker/worker_observer.h"

namespace fleetsweep {
namespace {

double Now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

std::string Hostname() {
  char buf[256] = {0};
  gethostname(buf, sizeof buf - 1);
  return buf[0] ? buf : "localhost";
}

// A lease being executed on a slot thread.
struct Running {
  v1::Lease lease;
  int slot = 0;
  std::thread thread;
  std::atomic<bool> cancel{false};
  std::atomic<bool> done{false};
  v1::Attempt attempt;
};

// What the agent knows about one sweep's spec (cached by spec hash).
struct SpecInfo {
  Status status;
  std::string executor_yaml;
  double timeout = 600;
};

}  // namespace

WorkerAgent::WorkerAgent(AgentOptions options) : options_(std::move(options)) {
  if (options_.node.empty()) options_.node = Hostname();
  if (options_.worker_id.empty()) {
    std::random_device rd;
    options_.worker_id = options_.node + "-" + std::to_string(getpid()) + "-" +
                         Hex16((uint64_t(rd()) << 32) | rd()).substr(0, 6);
  }
  if (options_.slots < 1) options_.slots = 1;
  if (options_.devices.empty()) {
    for (int i = 0; i < options_.slots; ++i) options_.devices.push_back(std::to_string(i));
  }
}

Status WorkerAgent::Run(const std::atomic<bool>& stop) {
  zmq::context_t ctx(1);
  zmq::socket_t sock(ctx, zmq::socket_type::dealer);
  try {
    sock.set(zmq::sockopt::routing_id, options_.worker_id);
    sock.set(zmq::sockopt::linger, 2000);
    sock.set(zmq::sockopt::reconnect_ivl, 100);
    sock.set(zmq::sockopt::reconnect_ivl_max, 2000);
    if (options_.curve.enabled) {
      sock.set(zmq::sockopt::curve_serverkey, options_.curve.server_public_key_z85);
      sock.set(zmq::sockopt::curve_publickey, options_.curve.public_key_z85);
      sock.set(zmq::sockopt::curve_secretkey, options_.curve.secret_key_z85);
    }
    sock.connect(options_.coordinator);
  } catch (const zmq::error_t& e) {
    return Status::InvalidArgument("worker: cannot connect to " + options_.coordinator + ": " +
                                   e.what());
  }
  WorkerObserver observer(options_.metrics, options_.node);

  auto send = [&](v1::Envelope env) {
    env.set_sender_id(options_.worker_id);
    std::string bytes = EncodeEnvelope(std::move(env));
    try {
      sock.send(zmq::buffer(bytes), zmq::send_flags::dontwait);
    } catch (const zmq::error_t& e) {
      spdlog::warn("worker: send failed: {}", e.what());
    }
  };
  auto hello = [&]() {
    v1::Envelope e;
    v1::NodeInfo* n = e.mutable_hello()->mutable_node();
    n->set_worker_id(options_.worker_id);
    n->set_node(options_.node);
    n->set_slots(options_.slots);
    for (const auto& d : options_.devices) n->add_devices(d);
    n->set_platform(options_.platform);
    struct utsname u;
    if (uname(&u) == 0) {
      (*n->mutable_software())["kernel"] = std::string(u.sysname) + " " + u.release;
      (*n->mutable_software())["machine"] = u.machine;
    }
    (*n->mutable_software())["fleetsweep"] = "0.1.0";
    (*n->mutable_software())["compiler"] = __VERSION__;
    send(e);
  };

  std::map<std::string, SpecInfo> specs;
  std::map<std::string, std::unique_ptr<Executor>> executors;  // by spec hash
  std::vector<std::unique_ptr<Running>> running;
  std::vector<bool> slot_busy(options_.slots, false);
  std::deque<v1::Lease> queued;  // leases that arrived while every slot was busy
  struct Unacked {
    std::string bytes;
    double last_sent;
  };
  std::map<std::string, Unacked> unacked;

  double hb_interval = 1.0;
  double last_hb = 0, last_heard = Now(), started = Now(), request_sent = 0;
  int pending_request = 0;
  double no_work_until = 0;
  bool acked = false, finished = false;
  double drain_started = -1;
  hello();
  double last_hello = Now();

  auto start_lease = [&](v1::Lease lease) {
    int slot = -1;
    for (int i = 0; i < options_.slots; ++i) {
      if (!slot_busy[i]) {
        slot = i;
        break;
      }
    }
    if (slot < 0) {
      queued.push_back(std::move(lease));
      return;
    }
    SpecInfo& info = specs[lease.spec_hash()];
    if (info.executor_yaml.empty() && info.status.ok()) {
      auto parsed = ParseSpecText(lease.spec_yaml(), "<lease " + lease.sweep() + ">");
      if (!parsed.ok()) {
        info.status = parsed.status();
      } else {
        info.executor_yaml = parsed->executor_yaml;
        info.timeout = parsed->timeout_seconds;
        auto ex = MakeExecutor(info.executor_yaml);
        if (ex.ok()) {
          executors[lease.spec_hash()] = std::move(ex).value();
        } else {
          info.status = ex.status();
        }
      }
    }
    slot_busy[slot] = true;
    auto r = std::make_unique<Running>();
    r->lease = std::move(lease);
    r->slot = slot;
    Running* rp = r.get();
    Executor* ex = info.status.ok() ? executors[rp->lease.spec_hash()].get() : nullptr;
    Status spec_status = info.status;
    ExecutionRequest req;
    req.sweep = rp->lease.sweep();
    req.executor_yaml = info.executor_yaml;
    for (const auto& [k, v] : rp->lease.params()) req.params[k] = Value::FromText(v);
    req.config_key = rp->lease.config_key();
    req.attempt_id = rp->lease.lease_id();
    req.slot = slot;
    req.device = options_.devices[slot % options_.devices.size()];
    req.device_env = options_.device_env;
    req.timeout_seconds = info.timeout;
    req.allow_exec = options_.allow_exec;
    if (!options_.platform_surface_file.empty()) {
      req.extra_env["FLEETSWEEP_PLATFORM_SURFACE"] = options_.platform_surface_file;
    }
    req.extra_env["FLEETSWEEP_NODE"] = options_.node;
    req.worker_bin_dir = options_.worker_bin_dir;
    req.cancel = &rp->cancel;
    observer.SlotsChanged(static_cast<int>(running.size()) + 1, options_.slots);
    rp->thread = std::thread([rp, ex, spec_status, req]() {
      if (ex != nullptr) {
        rp->attempt = ex->Run(req);
      } else {
        rp->attempt.set_ok(false);
        rp->attempt.set_failure_class(v1::FAILURE_CLASS_LAUNCH);
        rp->attempt.set_failure_detail("cannot run this spec: " + spec_status.message());
      }
      rp->done.store(true);
    });
    running.push_back(std::move(r));
  };

  while (true) {
    const double now = Now();
    if (stop.load()) break;
    if (finished && options_.exit_when_finished && running.empty()) {
      if (unacked.empty()) break;
      // The coordinator may already be gone: give it a few seconds to acknowledge, then exit
      // (in cluster mode the attempts are already in the store).
      if (drain_started < 0) drain_started = now;
      if (now - drain_started > 5.0) {
        spdlog::warn("worker: exiting with {} results unacknowledged{}", unacked.size(),
                     options_.store ? " (they are in the store)" : "");
        break;
      }
    }
    if (!acked && options_.give_up_after_seconds > 0 &&
        now - started > options_.give_up_after_seconds) {
      for (auto& r : running) r->cancel.store(true);
      for (auto& r : running) r->thread.join();
      return Status::Unavailable("worker: no answer from coordinator " + options_.coordinator +
                                 " within " + Value(options_.give_up_after_seconds).ToString() +
                                 " s");
    }
    // 1. Incoming messages.
    zmq::pollitem_t items[] = {{static_cast<void*>(sock), 0, ZMQ_POLLIN, 0}};
    try {
      zmq::poll(items, 1, std::chrono::milliseconds(20));
    } catch (const zmq::error_t& e) {
      if (e.num() != EINTR) return Status::Internal(std::string("worker: poll: ") + e.what());
    }
    while (items[0].revents & ZMQ_POLLIN) {
      zmq::message_t msg;
      if (!sock.recv(msg, zmq::recv_flags::dontwait)) break;
      auto env = DecodeEnvelope(msg.data(), msg.size());
      if (!env.ok()) {
        spdlog::warn("worker: ignored a bad message from the coordinator: {}",
                     env.status().message());
        continue;
      }
      last_heard = Now();
      switch (env->body_case()) {
        case v1::Envelope::kHelloAck:
          acked = true;
          hb_interval = std::max(0.05, env->hello_ack().heartbeat_interval_seconds());
          spdlog::info("worker {}: connected to coordinator {}", options_.worker_id,
                       env->hello_ack().coordinator_id());
          observer.Connected(true);
          pending_request = 0;
          break;
        case v1::Envelope::kLease:
          pending_request = std::max(0, pending_request - 1);
          start_lease(env->lease());
          break;
        case v1::Envelope::kNoWork:
          pending_request = 0;
          no_work_until = Now() + env->no_work().retry_after_seconds();
          if (env->no_work().sweep_finished()) finished = true;
          break;
        case v1::Envelope::kResultAck:
          unacked.erase(env->result_ack().lease_id());
          break;
        case v1::Envelope::kReject:
          spdlog::info("worker: coordinator says: {}", env->reject().reason());
          if (Now() - last_hello > 0.5) {
            acked = false;
            pending_request = 0;
            hello();
            last_hello = Now();
          }
          break;
        case v1::Envelope::kShutdown:
          spdlog::info("worker: coordinator asks to stop: {}", env->shutdown().reason());
          finished = true;
          break;
        default:
          break;
      }
    }
    // 2. Finished executions -> store (cluster mode) -> result.
    for (size_t i = 0; i < running.size();) {
      Running& r = *running[i];
      if (!r.done.load()) {
        ++i;
        continue;
      }
      r.thread.join();
      v1::Attempt a = std::move(r.attempt);
      a.set_config_key(r.lease.config_key());
      a.set_attempt_id(r.lease.lease_id());
      a.set_worker_id(options_.worker_id);
      a.set_node(options_.node);
      a.set_slot(r.slot);
      a.set_device(options_.devices[r.slot % options_.devices.size()]);
      a.set_reference(r.lease.reference());
      ++executions_;
      observer.Executed(a, r.lease.sweep());
      if (options_.store != nullptr) {
        auto put = options_.store->PutAttempt(r.lease.sweep(), a);
        if (!put.ok()) {
          spdlog::warn("worker: store: {} (the coordinator will store it)", put.status().message());
        } else {
          nlohmann::json ev = {{"type", "attempt"},
                               {"config_key", a.config_key()},
                               {"attempt_id", a.attempt_id()},
                               {"node", a.node()},
                               {"ok", a.ok()},
                               {"samples", a.samples_size()},
                               {"failure", v1::FailureClass_Name(a.failure_class())}};
          (void)options_.store->AppendEvent(r.lease.sweep(), ev.dump());
        }
      }
      v1::Envelope e;
      e.set_sender_id(options_.worker_id);
      e.mutable_result()->set_lease_id(r.lease.lease_id());
      e.mutable_result()->set_sweep(r.lease.sweep());
      *e.mutable_result()->mutable_attempt() = std::move(a);
      std::string bytes = EncodeEnvelope(e);
      unacked[r.lease.lease_id()] = Unacked{bytes, Now()};
      try {
        sock.send(zmq::buffer(bytes), zmq::send_flags::dontwait);
      } catch (const zmq::error_t&) {
      }
      slot_busy[r.slot] = false;
      running.erase(running.begin() + i);
      observer.SlotsChanged(static_cast<int>(running.size()), options_.slots);
      if (!queued.empty()) {
        v1::Lease l = std::move(queued.front());
        queued.pop_front();
        start_lease(std::move(l));
      }
    }
    const double t = Now();
    // 3. Resend unacknowledged results.
    for (auto& [id, u] : unacked) {
      if (t - u.last_sent > 3.0) {
        try {
          sock.send(zmq::buffer(u.bytes), zmq::send_flags::dontwait);
        } catch (const zmq::error_t&) {
        }
        u.last_sent = t;
      }
    }
    // 4. Ask for work for free slots.
    int free_slots =
        options_.slots - static_cast<int>(running.size()) - static_cast<int>(queued.size());
    if (pending_request > 0 && t - request_sent > 2.0) pending_request = 0;
    if (acked && !finished && free_slots > 0 && pending_request == 0 && t >= no_work_until) {
      v1::Envelope e;
      e.mutable_work_request()->set_free_slots(free_slots);
      send(e);
      pending_request = free_slots;
      request_sent = t;
    }
    if (!acked && t - last_hello > 2.0) {
      hello();
      last_hello = t;
    }
    // 5. Heartbeat.
    if (t - last_hb >= hb_interval) {
      v1::Envelope e;
      for (auto& r : running) e.mutable_heartbeat()->add_lease_ids(r->lease.lease_id());
      e.mutable_heartbeat()->set_busy_slots(static_cast<int>(running.size()));
      e.mutable_heartbeat()->set_free_slots(std::max(0, free_slots));
      if (acked) send(e);
      last_hb = t;
      observer.HeartbeatAge(t - last_heard);
    }
  }
  for (auto& r : running) r->cancel.store(true);
  for (auto& r : running) r->thread.join();
  return Status::Ok();
}

}  // namespace fleetsweep
