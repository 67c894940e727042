// Status and StatusOr: how every fallible call in fleetsweep reports failure.
//
// A Status is either OK or carries a code and a human-readable message that names the problem
// (file, line, field where one applies). Exceptions never cross fleetsweep's own interfaces:
// library edges (yaml-cpp, cppzmq, prometheus-cpp) catch and convert them to Status.
#pragma once

#include <cassert>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <utility>

namespace fleetsweep {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // bad spec, bad flag, bad message
  kNotFound,
  kAlreadyExists,
  kUnavailable,  // a service (Redis, coordinator) cannot be reached
  kDeadlineExceeded,
  kFailedPrecondition,
  kDataLoss,  // a stored record cannot be decoded
  kInternal,
};

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) {
    return {StatusCode::kInvalidArgument, std::move(m)};
  }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
  static Status DeadlineExceeded(std::string m) {
    return {StatusCode::kDeadlineExceeded, std::move(m)};
  }
  static Status FailedPrecondition(std::string m) {
    return {StatusCode::kFailedPrecondition, std::move(m)};
  }
  static Status DataLoss(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string ToString() const;

  // Returns a copy whose message is "context: message".
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Status(code_, context + ": " + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Holds a T or a non-OK Status. Accessing value() of a non-OK StatusOr aborts (a broken invariant).
template <typename T>
class StatusOr {
 public:
  StatusOr(Status s) : status_(std::move(s)) {  // NOLINT(runtime/explicit)
    if (status_.ok()) status_ = Status::Internal("StatusOr built from OK status without a value");
  }
  StatusOr(T v) : value_(std::move(v)) {}  // NOLINT(runtime/explicit)

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & {
    CheckOk();
    return *value_;
  }
  const T& value() const& {
    CheckOk();
    return *value_;
  }
  T&& value() && {
    CheckOk();
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  void CheckOk() const {
    if (!status_.ok()) {
      std::cerr << "fleetsweep: FATAL: value() of failed StatusOr: " << status_.ToString()
                << std::endl;
      std::abort();
    }
  }
  Status status_;
  std::optional<T> value_;
};

#define FS_RETURN_IF_ERROR(expr)          \
  do {                                    \
    ::fleetsweep::Status _fs_st = (expr); \
    if (!_fs_st.ok()) return _fs_st;      \
  } while (0)

#define FS_CONCAT_INNER(a, b) a##b
#define FS_CONCAT(a, b) FS_CONCAT_INNER(a, b)
#define FS_ASSIGN_OR_RETURN(lhs, expr) \
  FS_ASSIGN_OR_RETURN_IMPL(FS_CONCAT(_fs_so_, __LINE__), lhs, expr)
#define FS_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()

// Crash on a broken invariant (never for bad input).
#define FS_CHECK(cond)                                                                         \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      std::cerr << "fleetsweep: CHECK failed at " << __FILE__ << ":" << __LINE__ << ": " #cond \
                << std::endl;                                                                  \
      std::abort();                                                                            \
    }                                                                                          \
  } while (0)

}  // namespace fleetsweep
