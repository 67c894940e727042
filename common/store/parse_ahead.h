// Attempts parsed one batch ahead of their visitor, on a second thread: reading a large sweep
// back (fleetsweep run's Finish, the report) is mostly protobuf parsing, which then overlaps with
// what the caller does with each attempt (issue 16: the aggregation of 300,000 attempts).
//
// ParseAttemptsAhead(read, log_path, visit): `read(emit)` runs on the reader thread and calls
// emit(body, offset) for each stored Attempt body in order; the bodies are parsed in batches of
// 256 (each batch on its own arena, at most two batches ahead; a visited batch goes back to the
// reader, which resets and reuses its arena) and `visit` runs on the calling thread, in the same
// order; `visit` must not keep a pointer or reference to an attempt after it returns. The first
// error stops both threads and is returned: read's own, an undecodable body (kDataLoss naming
// `log_path` and the byte offset), or visit's. `read` must not touch anything the caller changes
// while visiting (FileStore copies its list of bodies first). An exception thrown by `visit` stops
// and joins the reader, then propagates.
//
// Thread-safety: one call starts and joins its own reader thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "fleetsweep/v1/data.pb.h"

namespace fleetsweep {

using EmitBody = std::function<Status(std::string_view body, uint64_t offset)>;

Status ParseAttemptsAhead(const std::function<Status(const EmitBody& emit)>& read,
                          const std::string& log_path,
                          const std::function<Status(const v1::Attempt&)>& visit);

}  // namespace fleetsweep
