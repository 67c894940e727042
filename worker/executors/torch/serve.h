// Persistent-session mode of fleetsweep-torch-bench (FLEETSWEEP_SESSION=persistent; the protocol
// is docs/executors.md "Sessions"): one process serves many executions of one kernel family, read
// as request lines on stdin, and keeps what does not depend on the swept parameters (device,
// shapes, inputs, reference outputs) from one execution to the next.
//
//   bench -> worker   info lines (torch version, kernel, device, dtype, platform, shapes)
//   with --prewarm    {"fleetsweep":"device"} when the server UsesDevice(); worker -> bench
//                     {"fleetsweep":"device_granted",...} (the worker holds the device's timing
//                     gate until ready; anything else: a bad_request error line, exit 2); then
//                     each set prepared once and an info line `prewarm`
//   bench -> worker   {"fleetsweep":"ready"}
//   worker -> bench   {"fleetsweep":"prepare","attempt_id":A,"params":{"BLOCK_SIZE_M":"64",...}}
//   bench -> worker   {"fleetsweep":"device","attempt_id":A} when the server UsesDevice() (CUDA):
//                     its whole prepare (inputs, reference, check launch) runs on the device, so
//                     it waits for the device's timing gate first; another slot on the same GPU
//                     then never times while this one prepares
//   worker -> bench   {"fleetsweep":"device_granted","attempt_id":A} (anything else: an error
//                     line of class bad_request, then exit 2; end of stdin: exit 0)
//   bench -> worker   {"fleetsweep":"prepared","attempt_id":A}, or the execution's lines, an
//                     `error` line and {"fleetsweep":"end","attempt_id":A} when it cannot run
//   worker -> bench   {"fleetsweep":"run","attempt_id":A}
//   bench -> worker   the execution's lines (info, check, fingerprint, samples), then `end`
//   end of stdin      exit 0
//
// The request's params override the process's (FLEETSWEEP_PARAM_*, --param) for that execution;
// flags and shapes are per process. A failure one-shot ends with an exit code (invalid argument,
// not implemented, wrong result, runtime error, out of memory) is reported as the same `error`
// line followed by `end`, and the session goes on. A CUDA error that may leave the context broken
// ends the process (exit 1 after the error line): the worker charges that execution and opens a
// new session. Request lines are untrusted: a line that is not JSON, longer than kMaxRequestBytes,
// of an unknown kind, without attempt_id, with non-scalar params, or a run that does not follow
// its prepare gets an `error` line of class bad_request and an `end` line (with the request's
// attempt_id when it had one), never a crash. Only one execution is prepared at a time: a new
// prepare drops a prepared execution that was never run.
//
// Nothing here depends on libtorch (the kernels implement ExecutionServer, harness.h).
// Thread-safety: single-threaded.
#pragma once

#include <cstddef>
#include <cstdio>
#include <exception>
#include <map>
#include <string>

#include "worker/executors/torch/emit.h"
#include "worker/executors/torch/options.h"

namespace fleetsweep::torchbench {

// The two phases of one execution, implemented per kernel family. Both write protocol lines to
// the emitter they were made with and return kExitOk, or the exit code one-shot would end with
// after writing the error (or failed check) line. They may throw std::exception.
class ExecutionServer {
 public:
  virtual ~ExecutionServer() = default;
  // The untimed part of one execution with `options` (the process's, params overridden by the
  // request): parameters, inputs, reference check, fingerprint.
  virtual int Prepare(const BenchOptions& options) = 0;
  // The timed part of the execution Prepare last made ready (warm-up, repetitions, samples).
  virtual int Run() = 0;
  // Forgets the prepared execution (a new prepare came, or it failed).
  virtual void Forget() = 0;
  // Frees every cached tensor (after out of memory).
  virtual void DropCaches() = 0;
  // Whether Prepare launches work on a device shared with other slots (CUDA): then the session
  // asks for the device (the worker's timing gate) before each prepare.
  virtual bool UsesDevice() const { return false; }
};

constexpr size_t kMaxRequestBytes = 1 << 20;

// Serves requests from `in` until its end and returns the exit status (0; kExitInvalid when the
// answer to a device request is not its device_granted), after writing the ready line. Ends the
// process itself (std::_Exit(kExitRuntimeError), stdout flushed) on an exception FatalException()
// calls fatal.
int ServeSession(ExecutionServer& server, const BenchOptions& options, std::FILE* in, Emitter& out);

// How a kernel exception is reported: error class runtime_error or out_of_memory, the message
// without the C++ backtrace c10::Error appends, and whether the process must end (a CUDA error
// that may leave the context unusable: "CUDA error", "device-side assert", "illegal memory
// access", CUBLAS/CUDNN status errors). Out of memory is never fatal.
struct ExceptionReport {
  std::string error_class;
  std::string detail;
  bool fatal = false;
};
ExceptionReport DescribeException(const std::exception& e);

}  // namespace fleetsweep::torchbench
