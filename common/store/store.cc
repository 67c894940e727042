// ResultStore's defaults (store.h): the batch write (checked first, then written one call at a
// time; RedisStore overrides it with one pipeline) and the attempt visit (over LoadAttempts;
// FileStore overrides it with a read from its log).
#include "common/store/store.h"

#include "common/store/store_checks.h"

namespace fleetsweep {

StatusOr<std::vector<bool>> ResultStore::PutAttempts(const std::string& sweep,
                                                     const std::vector<v1::Attempt>& attempts,
                                                     const std::vector<std::string>& events) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  for (const v1::Attempt& a : attempts) FS_RETURN_IF_ERROR(CheckAttempt(a));
  std::vector<bool> fresh;
  fresh.reserve(attempts.size());
  for (const v1::Attempt& a : attempts) {
    FS_ASSIGN_OR_RETURN(bool stored, PutAttempt(sweep, a));
    fresh.push_back(stored);
  }
  for (const std::string& e : events) FS_RETURN_IF_ERROR(AppendEvent(sweep, e));
  return fresh;
}

StatusOr<std::vector<bool>> ResultStore::PutAttemptsTaking(const std::string& sweep,
                                                           std::vector<v1::Attempt>&& attempts,
                                                           const std::vector<std::string>& events) {
  return PutAttempts(sweep, attempts, events);
}

Status ResultStore::ForEachAttempt(const std::string& sweep,
                                   const std::function<Status(const v1::Attempt&)>& visit) {
  FS_ASSIGN_OR_RETURN(std::vector<v1::Attempt> attempts, LoadAttempts(sweep));
  for (const v1::Attempt& a : attempts) FS_RETURN_IF_ERROR(visit(a));
  return Status::Ok();
}

}  // namespace fleetsweep
