#include "coordinator/app/store_guard.h"

namespace fleetsweep {
namespace {

const char kHint[] =
    " (was Redis restarted without persistence, or its database flushed?). The results would "
    "be incomplete, so they are not reported; restart the sweep to run the lost work again";

}  // namespace

Status CheckStoreIntact(ResultStore* store, const SweepSpec& spec, int64_t counted_attempts) {
  FS_ASSIGN_OR_RETURN(std::optional<std::string> text, store->GetSpec(spec.name));
  if (!text) {
    return Status::DataLoss("the store " + store->Describe() + " no longer holds sweep '" +
                            spec.name + "' (its spec key is gone)" + kHint);
  }
  if (*text != spec.text) {
    return Status::DataLoss("the store " + store->Describe() + " holds another spec for sweep '" +
                            spec.name + "'" + kHint);
  }
  FS_ASSIGN_OR_RETURN(int64_t stored, store->CountAttempts(spec.name));
  if (stored < counted_attempts) {
    return Status::DataLoss("the store " + store->Describe() + " holds " + std::to_string(stored) +
                            " attempts of sweep '" + spec.name + "' but " +
                            std::to_string(counted_attempts) + " were stored and counted" + kHint);
  }
  return Status::Ok();
}

Status CheckAttemptsComplete(const std::vector<v1::Attempt>& loaded,
                             const std::unordered_set<std::string>& counted) {
  std::unordered_set<std::string> have;
  have.reserve(loaded.size());
  for (const auto& a : loaded) have.insert(a.attempt_id());
  int64_t missing = 0;
  std::string example;
  for (const auto& id : counted) {
    if (have.count(id)) continue;
    if (missing++ == 0) example = id;
  }
  if (missing == 0) return Status::Ok();
  return Status::DataLoss(std::to_string(missing) + " of " + std::to_string(counted.size()) +
                          " counted attempts are missing from the store (e.g. " + example + ")" +
                          kHint);
}

}  // namespace fleetsweep
