// LiveChild: a long-lived benchmark process that receives requests on its stdin (persistent
// sessions, docs/executors.md "Sessions").
//
// Started like RunChild's children (no shell, own process group, default signals, no inherited
// descriptors) but with stdin on a pipe the owner writes lines to. Output is read only inside
// Pump()/Drain(), into the OutputStreams the caller passes (one pair per execution, so tails and
// protocol lines stay per execution). Waiting is event driven: poll() on the output pipes, a
// pidfd for the exit and the caller's cancel descriptor; no fixed-interval sleeps.
//
// Ownership: the object owns the process and every descriptor. The destructor terminates the
// process group (closing stdin first, then SIGTERM, then SIGKILL after the grace period) and
// reaps it, so nothing outlives the object.
//
// Thread-safety: none; one owner thread (the slot's).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "worker/executors/child_process.h"
#include "worker/executors/output_stream.h"

namespace fleetsweep {

class LiveChild {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts spec (timeout and cancel of spec are ignored: each Pump has its own). On failure
  // returns nullptr and sets *launch_error (nothing is left running).
  static std::unique_ptr<LiveChild> Start(const ChildSpec& spec, std::string* launch_error);
  ~LiveChild();
  LiveChild(const LiveChild&) = delete;
  LiveChild& operator=(const LiveChild&) = delete;

  // Writes `line` plus '\n' to the child's stdin. False (and the pipe closed) when the child no
  // longer reads it (EPIPE) or `deadline` passes while the pipe is full.
  bool WriteLine(const std::string& line, Clock::time_point deadline);

  enum class Wake { kStop, kExited, kDeadline, kCancelled };
  // Reads stdout/stderr into out/err until *stop becomes true (set by the caller's line
  // callback), the child exits (its remaining output is then drained), `deadline` passes, or
  // `cancel_fd` (may be -1) becomes readable.
  Wake Pump(OutputStream* out, OutputStream* err, const bool* stop, Clock::time_point deadline,
            int cancel_fd);
  // Reads whatever output is available now without waiting.
  void Drain(OutputStream* out, OutputStream* err);

  // Ends the process: closes stdin, waits up to `grace` for it to exit by itself, then SIGTERM
  // to the group, `grace` more, then SIGKILL; kills what is left of the group and reaps. Any
  // output still readable goes to out/err when they are not null. Idempotent.
  ChildResult Terminate(double grace, OutputStream* out = nullptr, OutputStream* err = nullptr);

  bool exited();  // true once the process has exited (not yet reaped)
  int pid() const { return sp_.pid; }

 private:
  explicit LiveChild(Spawned sp) : sp_(std::move(sp)) {}
  // Waits for output or exit until `until`; false when the deadline passed first.
  bool WaitExit(Clock::time_point until, OutputStream* out, OutputStream* err);
  void ReadReady(int fd, OutputStream* stream);

  Spawned sp_;
  bool reaped_ = false;
  ChildResult result_;
};

}  // namespace fleetsweep
