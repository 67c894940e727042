#include "coordinator/app/store_watch.h"

#include <cstdint>

#include "common/metrics/coordinator_metrics.h"
#include "coordinator/app/progress_line.h"
#include "coordinator/app/store_guard.h"

namespace fleetsweep {

StoreWatch::StoreWatch(const SweepSpec& spec, ResultStore* store, double give_up_seconds,
                       double intact_every_s)
    : spec_(spec),
      store_(store),
      give_up_seconds_(give_up_seconds),
      intact_every_s_(intact_every_s) {}

Status StoreWatch::Check(const Scheduler& scheduler, double now, CoordinatorMetrics* metrics) {
  const double failing = scheduler.StoreFailingSeconds(now);
  if (metrics != nullptr) metrics->SetStoreWritable(failing == 0);
  if (failing > give_up_seconds_) {
    return Status::Unavailable(
        "the store " + store_->Describe() + " refused writes for " + FormatDuration(failing) +
        " (limit " + FormatDuration(give_up_seconds_) + "): " + scheduler.StoreError().message());
  }
  if (!first_ && now - last_intact_ < intact_every_s_) return Status::Ok();
  first_ = false;
  last_intact_ = now;
  Status intact = CheckStoreIntact(store_, spec_, scheduler.CountedAttempts());
  // kUnavailable (not reachable right now) is not a loss: the scheduler pauses and probes.
  return intact.code() == StatusCode::kDataLoss ? intact : Status::Ok();
}

ExitCode StoreWatch::CodeOf(const Status& fault) {
  return fault.code() == StatusCode::kDataLoss ? ExitCode::kStoreLostData
                                               : ExitCode::kStoreRefusedWrites;
}

}  // namespace fleetsweep
