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

Status CheckAttemptsComplete(const std::vector<v1::Attempt>& loaded, const LeaseTable& counted) {
  std::unordered_set<std::string> have;
  int64_t found = 0;  // distinct loaded attempts that were counted
  for (const auto& a : loaded) {
    if (counted.Counted(a.attempt_id()) && have.insert(a.attempt_id()).second) ++found;
  }
  const int64_t missing = counted.counted() - found;
  if (missing <= 0) return Status::Ok();
  std::string example;
  for (const auto& id : counted.counted_elsewhere()) {
    if (have.count(id) == 0) {
      example = " (e.g. " + id + ")";
      break;
    }
  }
  return Status::DataLoss(std::to_string(missing) + " of " + std::to_string(counted.counted()) +
                          " counted attempts are missing from the store" + example + kHint);
}

}  // namespace fleetsweep
