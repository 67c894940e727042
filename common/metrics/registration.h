// Internal to common/metrics: registers families and adds series, turning prometheus-cpp's
// exceptions (invalid name, family re-registered with another type) into a crash with a message.
// Those exceptions only come from programming errors in this directory, never from input.
//
// Thread-safety: as prometheus-cpp's Registry and Family (thread-safe).
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <utility>

namespace fleetsweep {
namespace metrics {

[[noreturn]] inline void DieOnMetricsError(const std::string& what, const std::exception& e) {
  std::cerr << "fleetsweep: FATAL: metrics: " << what << ": " << e.what() << std::endl;
  std::abort();
}

inline prometheus::Family<prometheus::Gauge>& GaugeFamily(prometheus::Registry& registry,
                                                          const std::string& name,
                                                          const std::string& help) {
  try {
    return prometheus::BuildGauge().Name(name).Help(help).Register(registry);
  } catch (const std::exception& e) {
    DieOnMetricsError("registering " + name, e);
  }
}

inline prometheus::Family<prometheus::Counter>& CounterFamily(prometheus::Registry& registry,
                                                              const std::string& name,
                                                              const std::string& help) {
  try {
    return prometheus::BuildCounter().Name(name).Help(help).Register(registry);
  } catch (const std::exception& e) {
    DieOnMetricsError("registering " + name, e);
  }
}

inline prometheus::Family<prometheus::Histogram>& HistogramFamily(prometheus::Registry& registry,
                                                                  const std::string& name,
                                                                  const std::string& help) {
  try {
    return prometheus::BuildHistogram().Name(name).Help(help).Register(registry);
  } catch (const std::exception& e) {
    DieOnMetricsError("registering " + name, e);
  }
}

// Family::Add returns the existing series when the labels are already present.
template <typename T, typename... Args>
T& Series(prometheus::Family<T>& family, const prometheus::Labels& labels, Args&&... args) {
  try {
    return family.Add(labels, std::forward<Args>(args)...);
  } catch (const std::exception& e) {
    DieOnMetricsError("adding a series to " + family.GetName(), e);
  }
}

}  // namespace metrics
}  // namespace fleetsweep
