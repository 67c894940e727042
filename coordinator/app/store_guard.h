// Store guard: catches a store that silently lost a running sweep's data (Redis restarted without
// persistence, a flushed database), so that a sweep missing finished work is never reported as
// complete (docs/store.md, "Faults").
//
// The coordinator knows what it stored: the spec text and every attempt it counted (an attempt
// is counted only after the store confirmed it). These checks compare that with what the store
// holds now. Free functions; they only read the store.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/space/spec.h"
#include "common/status.h"
#include "common/store/store.h"
#include "coordinator/scheduler/lease_table.h"
#include "fleetsweep/v1/data.pb.h"

namespace fleetsweep {

// Cheap (two reads), for every few seconds of a running sweep: the spec key still holds the
// sweep's spec text, and the store holds at least `counted_attempts` attempts. kDataLoss with a
// message saying what vanished; the store's own errors (kUnavailable: not reachable right now,
// nothing known to be lost yet) are returned unchanged.
Status CheckStoreIntact(ResultStore* store, const SweepSpec& spec, int64_t counted_attempts);

// Before aggregation: every attempt `counted` counted is among `loaded`. kDataLoss naming how
// many are missing, and one of them when it can be named (an attempt counted from the store
// when the sweep resumed: this run's are known by their lease's grant, not by id).
Status CheckAttemptsComplete(const std::vector<v1::Attempt>& loaded, const LeaseTable& counted);

}  // namespace fleetsweep
