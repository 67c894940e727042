#include "coordinator/aggregate/aggregator.h"

#include "coordinator/aggregate/incremental_aggregate.h"

namespace fleetsweep {

SweepResult Aggregate(const SweepSpec& spec, const std::vector<v1::ConfigRecord>& records,
                      const std::vector<v1::Attempt>& attempts, const AggregateOptions& options) {
  IncrementalAggregate aggregate(spec, records, options);
  for (const auto& a : attempts) aggregate.Add(a);
  return aggregate.TakeResult();
}

}  // namespace fleetsweep
