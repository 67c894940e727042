#include "coordinator/app/exit_codes.h"

namespace fleetsweep {

const char kStoppedAtOnceMessage[] =
    "\nsecond interrupt: exiting now without writing results (what was stored stays in the "
    "store: run the same command again to resume)\n";

const std::vector<ExitCode>& AllExitCodes() {
  static const std::vector<ExitCode> kAll = {ExitCode::kOk,
                                             ExitCode::kBadInput,
                                             ExitCode::kStartOrIoFailure,
                                             ExitCode::kNothingSucceeded,
                                             ExitCode::kAuditRefused,
                                             ExitCode::kStoreLostData,
                                             ExitCode::kStoreRefusedWrites,
                                             ExitCode::kStoppedAtOnce};
  return kAll;
}

const char* Describe(ExitCode code) {
  switch (code) {
    case ExitCode::kOk:
      return "finished, or stopped by SIGINT/SIGTERM (what is stored is aggregated and written)";
    case ExitCode::kBadInput:
      return "bad flags, spec, executor section or --out directory, or the store holds another "
             "spec under the sweep's name";
    case ExitCode::kStartOrIoFailure:
      return "the store cannot be opened or read back, a port cannot be bound, local workers "
             "cannot start, or the results cannot be written";
    case ExitCode::kNothingSucceeded:
      return "finished, but no configuration succeeded: the result is invalid";
    case ExitCode::kAuditRefused:
      return "the honest-measurement audit refused the result (results written, valid: false)";
    case ExitCode::kStoreLostData:
      return "the store lost data the coordinator had stored (no results written)";
    case ExitCode::kStoreRefusedWrites:
      return "store writes failed for longer than --store-give-up (no results written)";
    case ExitCode::kStoppedAtOnce:
      return "a second SIGINT/SIGTERM while stopping: exited at once, no results written (the "
             "store keeps what it made durable: run the same command again to resume)";
  }
  return "unknown";
}

std::string ExitCodesHelp() {
  std::string text = "Exit codes:\n";
  for (ExitCode c : AllExitCodes()) {
    text += "  " + std::to_string(ToInt(c)) + "  " + Describe(c) + "\n";
  }
  return text;
}

}  // namespace fleetsweep
