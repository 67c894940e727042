// WorkerAgent: the node agent. Made of parts with one job each (worker/agent/):
//   Connection    the DEALER socket, hello, heartbeats (connection.h)
//   Slot          one execution at a time on one device, through a Session it owns (slot.h)
//   ResultOutbox  results re-sent until acknowledged (result_outbox.h)
//   StoreWriter   cluster mode: attempts written to the store off the loop thread (store_writer.h)
//   this loop     woken by events only: the socket, finished executions, finished store writes,
//                 and its next timer (heartbeat, resend, hello, retry)
// Wire protocol v2 (docs/design.md): the spec comes once per coordinator (in HelloAck, or asked
// for with SpecRequest when a lease names an unknown hash) and is parsed once and kept by hash; a
// spec whose hash does not match is an error naming both hashes (its leases are dropped). Leases
// arrive in batches (Leases), and every result due at one moment (new and re-sent) leaves in one
// Results message; ResultAcks clear them. A coordinator of another protocol version stops the
// agent with kFailedPrecondition naming both versions.
// Leases go to a free slot whose open session matches the lease's session key when there is one
// (a warm benchmark keeps serving its key); work requests name the open sessions' keys so the
// scheduler can prefer matching configurations. Slots on one device share a timing gate: they
// prepare in parallel and time alone (timing_gate.h).
//
// Nothing is lost when the coordinator goes away: a result is kept and re-sent until the
// coordinator acknowledges it, and a coordinator that no longer knows this worker (restart) gets a
// new hello. In cluster mode every attempt is written to the store first, idempotently, and
// announced on the sweep's event log. A worker serves the next sweep after one finishes (a new
// lease, or a new coordinator, resets the finished state).
//
// Processes: Run() makes this process a child subreaper and, after every execution and at the
// end, kills and reaps what escaped the executions' process groups (executors/descendants.h):
// the agent assumes that every child of the process comes from its executors.
//
// Ownership: the store (optional) and metrics are not owned and must outlive the agent. Run()
// blocks on the calling thread; slot threads are joined before it returns.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/store/store.h"
#include "worker/agent/clock.h"
#include "worker/agent/connection.h"
#include "worker/executors/env_policy.h"

namespace fleetsweep {

class WorkerMetrics;

struct AgentOptions {
  std::string coordinator = "tcp://127.0.0.1:5555";
  int slots = 1;
  // Leases asked for ahead, per slot: a prefetched lease waits behind its slot's running
  // execution, so the next execution starts without a round trip to the coordinator (0: ask only
  // for free slots). Waiting leases are named in heartbeats; the coordinator renews them. When
  // executions are short, a slot holds more, up to kMaxPrefetchPerSlot or `hold_seconds` of work,
  // and finished executions are reported in batches: up to `flush_count` of them, none waiting
  // longer than `flush_seconds` (or two average durations, at most 10 ms: worker/agent/pacing.h).
  // prefetch 0 turns both off.
  int prefetch = 1;
  double hold_seconds = 0.02;
  double flush_seconds = 0.002;
  size_t flush_count = 16;
  std::vector<std::string> devices;  // one per slot (cycled); default 0..slots-1
  std::string device_env = "CUDA_VISIBLE_DEVICES";
  std::string node;                   // default: hostname
  std::string worker_id;              // default: node-pid-random
  std::string platform;               // e.g. "bi-v100", "cuda", "cpu"
  std::string platform_surface_file;  // exported to executions as FLEETSWEEP_PLATFORM_SURFACE
  std::vector<std::string> allow_exec;
  std::string scratch_root;         // ExecutionRequest::scratch_root ("" = private temp dir)
  EnvPolicy env_policy;             // ExecutionRequest::env_policy
  std::string worker_bin_dir;       // {FLEETSWEEP_BIN}
  bool exit_when_finished = false;  // exit on Shutdown / NoWork(sweep_finished)
  // Stop when nothing was heard from a coordinator for this long (give_up.h); 0: never.
  double give_up_after_seconds = 0;
  CurveClientOptions curve;
  ResultStore* store = nullptr;      // cluster mode: attempts stored here first
  WorkerMetrics* metrics = nullptr;  // optional
  const Clock* clock = nullptr;      // default: the steady clock
};

class WorkerAgent {
 public:
  explicit WorkerAgent(AgentOptions options);
  WorkerAgent(const WorkerAgent&) = delete;
  WorkerAgent& operator=(const WorkerAgent&) = delete;

  // Runs until *stop, a Shutdown (with exit_when_finished), or give-up. Errors: kUnavailable
  // when nothing was heard from a coordinator for give_up_after_seconds (running executions are
  // cancelled); kInvalidArgument for bad options (e.g. curve keys); kFailedPrecondition when the
  // coordinator speaks another wire protocol version.
  Status Run(const std::atomic<bool>& stop);

  const AgentOptions& options() const { return options_; }
  int64_t executions() const { return executions_; }

 private:
  AgentOptions options_;
  int64_t executions_ = 0;
};

}  // namespace fleetsweep
