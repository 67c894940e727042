#include "common/store/store_checks.h"

#include <algorithm>
#include <cmath>

#include "common/store/utf8_fields.h"

namespace fleetsweep {

Status CheckSweepName(const std::string& sweep) {
  if (sweep.empty()) return Status::InvalidArgument("empty sweep name");
  if (sweep.size() > 200) return Status::InvalidArgument("sweep name longer than 200 bytes");
  for (char c : sweep) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7F || c == '{' || c == '}' || c == '/') {
      return Status::InvalidArgument("sweep name '" + sweep +
                                     "' may hold only printable ASCII without spaces, '{', '}' "
                                     "or '/'");
    }
  }
  return Status::Ok();
}

static Status CheckConfigKey(const std::string& key, const char* what) {
  if (key.empty()) return Status::InvalidArgument(std::string(what) + " has an empty config_key");
  if (!IsValidUtf8(key)) {
    return Status::InvalidArgument(std::string(what) + " config_key is not valid UTF-8");
  }
  if (key.find('/') != std::string::npos) {
    return Status::InvalidArgument(std::string(what) + " config_key '" + key + "' contains '/'");
  }
  return Status::Ok();
}

Status CheckConfigRecord(const v1::ConfigRecord& config) {
  return CheckConfigKey(config.config_key(), "config record");
}

Status CheckAttempt(const v1::Attempt& attempt) {
  FS_RETURN_IF_ERROR(CheckConfigKey(attempt.config_key(), "attempt"));
  if (attempt.attempt_id().empty()) {
    return Status::InvalidArgument("attempt for config " + attempt.config_key() +
                                   " has an empty attempt_id");
  }
  if (!IsValidUtf8(attempt.attempt_id())) {
    return Status::InvalidArgument("attempt for config " + attempt.config_key() +
                                   " has an attempt_id that is not valid UTF-8");
  }
  if (!SamplesAreFinite(attempt)) {
    return Status::InvalidArgument("attempt " + attempt.attempt_id() + " for config " +
                                   attempt.config_key() + " has a sample that is NaN or infinite");
  }
  return Status::Ok();
}

bool SamplesAreFinite(const v1::Attempt& attempt) {
  for (const auto& s : attempt.samples()) {
    if (!std::isfinite(s.value())) return false;
  }
  return true;
}

Status CheckEventRange(int64_t from, int64_t max) {
  if (from < 0 || max < 0) {
    return Status::InvalidArgument("event range from=" + std::to_string(from) +
                                   " max=" + std::to_string(max) + " must be non-negative");
  }
  return Status::Ok();
}

std::string AttemptKey(const v1::Attempt& attempt) {
  return attempt.config_key() + "/" + attempt.attempt_id();
}

void SortConfigs(std::vector<v1::ConfigRecord>* configs) {
  std::sort(configs->begin(), configs->end(),
            [](const v1::ConfigRecord& a, const v1::ConfigRecord& b) {
              if (a.seq() != b.seq()) return a.seq() < b.seq();
              return a.config_key() < b.config_key();
            });
}

}  // namespace fleetsweep
