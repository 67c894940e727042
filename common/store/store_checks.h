// Argument checks shared by every ResultStore implementation, so that both backends accept and
// reject exactly the same inputs (the shared test suite relies on it).
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/store/utf8_fields.h"
#include "fleetsweep/v1/data.pb.h"

namespace fleetsweep {

// A sweep name: 1..200 bytes of printable ASCII without spaces, '{', '}' or '/'. (Braces would
// break the Redis hash tag; '/' keeps names usable as file and key components.) kInvalidArgument.
Status CheckSweepName(const std::string& sweep);
// config_key non-empty, valid UTF-8, without '/'. kInvalidArgument. (Other string fields are
// repaired, not rejected: see utf8_fields.h and Sanitized() below.)
Status CheckConfigRecord(const v1::ConfigRecord& config);
// config_key as above; attempt_id non-empty and valid UTF-8; every sample value finite (NaN or
// Inf would rank first and poison medians). kInvalidArgument.
Status CheckAttempt(const v1::Attempt& attempt);
// True when every sample value is finite. The loaders skip stored attempts for which it is false
// (written around the checks, e.g. straight into Redis): they are never returned.
bool SamplesAreFinite(const v1::Attempt& attempt);
// from >= 0 and max >= 0. kInvalidArgument.
Status CheckEventRange(int64_t from, int64_t max);

// The identity of an attempt: "<config_key>/<attempt_id>" (unambiguous: config_key has no '/').
std::string AttemptKey(const v1::Attempt& attempt);

// `in` itself when all its strings are UTF-8, else a repaired copy kept in `*copy`.
template <typename M>
const M& Sanitized(const M& in, std::optional<M>* copy) {
  if (!HasInvalidUtf8(in)) return in;
  copy->emplace(in);
  SanitizeUtf8Fields(&**copy);
  return **copy;
}

// The order LoadConfigs returns: by seq (expansion order), then config_key.
void SortConfigs(std::vector<v1::ConfigRecord>* configs);

}  // namespace fleetsweep
