#include "common/status.h"

namespace fleetsweep {

std::string Status::ToString() const {
  if (ok()) return "OK";
  const char* name = "INTERNAL";
  switch (code_) {
    case StatusCode::kOk:
      name = "OK";
      break;
    case StatusCode::kInvalidArgument:
      name = "INVALID_ARGUMENT";
      break;
    case StatusCode::kNotFound:
      name = "NOT_FOUND";
      break;
    case StatusCode::kAlreadyExists:
      name = "ALREADY_EXISTS";
      break;
    case StatusCode::kUnavailable:
      name = "UNAVAILABLE";
      break;
    case StatusCode::kDeadlineExceeded:
      name = "DEADLINE_EXCEEDED";
      break;
    case StatusCode::kFailedPrecondition:
      name = "FAILED_PRECONDITION";
      break;
    case StatusCode::kDataLoss:
      name = "DATA_LOSS";
      break;
    case StatusCode::kInternal:
      name = "INTERNAL";
      break;
  }
  return std::string(name) + ": " + message_;
}

}  // namespace fleetsweep
