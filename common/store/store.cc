// ResultStore's default batch write (store.h): the batch checked first, then written one call at
// a time. Backends that can do better (RedisStore: one pipeline) override it.
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

}  // namespace fleetsweep
