// fleetsweep-wire-poke: sends malformed and hostile wire messages to a running coordinator over a
// real ZeroMQ DEALER socket and prints, for each case, what came back (bad-input test).
//
//   fleetsweep-wire-poke tcp://127.0.0.1:PORT
//   case empty: reject (...)
//   case greedy-hello: leases=N
//   ...
//   case final-hello: hello_ack
//
// Each case uses a fresh DEALER (its own identity) and waits up to 3 s for replies. The last
// case is a valid Hello: "hello_ack" proves the coordinator still serves. Exit 0 when every case
// ran (whatever the replies), 1 when the socket fails, 2 on bad usage.
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "common/wire/wire.h"

namespace {

using fleetsweep::v1::Envelope;

std::string Encode(Envelope e) { return fleetsweep::EncodeEnvelope(std::move(e)); }

std::string Hello(int slots) {
  Envelope e;
  auto* node = e.mutable_hello()->mutable_node();
  node->set_worker_id("poke");
  node->set_node("poke-node");
  node->set_slots(slots);
  return Encode(e);
}

// Sends `frames` as one multipart message, then collects replies for up to `wait_ms`; returns a
// summary ("reject (reason)", "hello_ack", "leases=N", "none").
std::string Poke(zmq::context_t& ctx, const std::string& endpoint,
                 const std::vector<std::string>& frames, int wait_ms = 3000,
                 const std::string& then = "") {
  zmq::socket_t sock(ctx, zmq::socket_type::dealer);
  sock.set(zmq::sockopt::linger, 0);
  sock.connect(endpoint);
  for (size_t i = 0; i < frames.size(); ++i) {
    sock.send(zmq::buffer(frames[i]),
              i + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
  }
  std::string summary;
  int leases = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  bool sent_then = then.empty();
  while (std::chrono::steady_clock::now() < deadline) {
    zmq::pollitem_t items[] = {{static_cast<void*>(sock), 0, ZMQ_POLLIN, 0}};
    zmq::poll(items, 1, std::chrono::milliseconds(100));
    if (!(items[0].revents & ZMQ_POLLIN)) continue;
    zmq::message_t msg;
    if (!sock.recv(msg, zmq::recv_flags::none)) continue;
    auto env = fleetsweep::DecodeEnvelope(msg.data(), msg.size());
    if (!env.ok()) {
      summary += "undecodable-reply ";
      continue;
    }
    if (env->has_leases()) {
      leases += env->leases().leases_size();
      continue;
    }
    std::string kind = fleetsweep::EnvelopeKind(*env);
    if (env->has_reject()) kind += " (" + env->reject().reason() + ")";
    summary += kind + " ";
    if (!sent_then && env->has_hello_ack()) {
      sock.send(zmq::buffer(then), zmq::send_flags::none);
      sent_then = true;
    }
    if (then.empty()) break;  // one reply is enough
  }
  if (leases > 0) summary += "leases=" + std::to_string(leases);
  return summary.empty() ? "none" : summary;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fleetsweep-wire-poke tcp://HOST:PORT\n");
    return 2;
  }
  const std::string endpoint = argv[1];
  try {
    zmq::context_t ctx;
    std::mt19937_64 rng(42);
    std::string garbage(4096, '\0');
    for (char& c : garbage) c = static_cast<char>(rng());
    std::string hello = Hello(1);
    Envelope wrong_version;
    wrong_version.mutable_heartbeat();
    std::string wv = Encode(wrong_version);
    wv[1] = 99;  // field 1 (protocol_version) is the first byte pair: 0x08 0x02
    Envelope unexpected;
    unexpected.mutable_leases()->add_leases()->set_lease_id("x");
    Envelope work;
    work.mutable_work_request()->set_free_slots(1000000);
    Envelope result;
    auto* forged = result.mutable_results()->add_results();
    forged->set_lease_id("no-such-lease");
    forged->set_sweep("no-such-sweep");
    forged->mutable_attempt()->set_config_key("no-such-config");
    forged->mutable_attempt()->set_attempt_id("no-such-config-1");
    forged->mutable_attempt()->set_ok(true);
    auto* s = forged->mutable_attempt()->add_samples();
    s->set_metric("time_ms");
    s->set_value(1e300);

    struct Case {
      const char* name;
      std::vector<std::string> frames;
      std::string then;
    };
    std::vector<Case> cases = {
        {"empty", {std::string()}, ""},
        {"one-byte", {std::string(1, '\xff')}, ""},
        {"garbage-4k", {garbage}, ""},
        {"truncated-hello", {hello.substr(0, hello.size() - 3)}, ""},
        {"wrong-version", {wv}, ""},
        {"oversized-65MiB", {std::string(fleetsweep::kMaxWireMessageBytes + 1, 'A')}, ""},
        {"multipart", {hello, garbage}, ""},
        {"unexpected-kind", {Encode(unexpected)}, ""},
        {"work-request-unknown-worker", {Encode(work)}, ""},
        {"result-unknown-lease", {Encode(result)}, ""},
        {"greedy-hello", {Hello(1000000)}, Encode(work)},
        {"final-hello", {hello}, ""},
    };
    for (const auto& c : cases) {
      std::printf("case %s: %s\n", c.name, Poke(ctx, endpoint, c.frames, 3000, c.then).c_str());
      std::fflush(stdout);
    }
  } catch (const zmq::error_t& e) {
    std::fprintf(stderr, "wire-poke: %s\n", e.what());
    return 1;
  }
  return 0;
}
