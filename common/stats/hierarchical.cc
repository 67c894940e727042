#include "common/stats/hierarchical.h"

#include <string>

#include "common/stats/descriptive.h"
#include "common/stats/rng.h"

namespace fleetsweep::stats {
namespace {

Status CheckExecutions(const std::vector<std::vector<double>>& executions, int resamples) {
  if (executions.empty()) {
    return Status::InvalidArgument("HierarchicalBootstrap: no executions");
  }
  for (size_t e = 0; e < executions.size(); ++e) {
    FS_RETURN_IF_ERROR(CheckSample(executions[e], "HierarchicalBootstrap")
                           .WithContext("execution " + std::to_string(e)));
  }
  if (resamples < 1) {
    return Status::InvalidArgument("HierarchicalBootstrap: resamples must be >= 1, got " +
                                   std::to_string(resamples));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::vector<double>> HierarchicalBootstrapMedians(
    const std::vector<std::vector<double>>& executions, int resamples, uint64_t seed) {
  FS_RETURN_IF_ERROR(CheckExecutions(executions, resamples));
  Rng rng(seed);
  const uint32_t k = static_cast<uint32_t>(executions.size());
  std::vector<double> pooled, medians;
  medians.reserve(static_cast<size_t>(resamples));
  for (int b = 0; b < resamples; ++b) {
    pooled.clear();
    for (uint32_t i = 0; i < k; ++i) {
      const std::vector<double>& ex = executions[rng.UniformIndex(k)];
      const uint32_t n = static_cast<uint32_t>(ex.size());
      for (uint32_t j = 0; j < n; ++j) pooled.push_back(ex[rng.UniformIndex(n)]);
    }
    medians.push_back(MedianInPlace(&pooled));
  }
  return medians;
}

StatusOr<Interval> HierarchicalBootstrapMedianCI(const std::vector<std::vector<double>>& executions,
                                                 double confidence, int resamples, uint64_t seed) {
  if (!(confidence > 0.0 && confidence < 1.0)) {
    return Status::InvalidArgument("HierarchicalBootstrap: confidence must be in (0, 1), got " +
                                   std::to_string(confidence));
  }
  FS_ASSIGN_OR_RETURN(std::vector<double> medians,
                      HierarchicalBootstrapMedians(executions, resamples, seed));
  const double alpha = 1.0 - confidence;
  Interval ci;
  ci.low = QuantileInPlace(&medians, alpha / 2);
  ci.high = QuantileInPlace(&medians, 1.0 - alpha / 2);
  return ci;
}

}  // namespace fleetsweep::stats
