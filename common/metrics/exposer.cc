#include "common/metrics/exposer.h"

#include <prometheus/exposer.h>
#include <prometheus/registry.h>

#include <exception>
#include <utility>
#include <vector>

namespace fleetsweep {

StatusOr<std::unique_ptr<MetricsExposer>> MetricsExposer::Start(int port, const std::string& host) {
  if (port < 0 || port > 65535) {
    return Status::InvalidArgument("metrics port " + std::to_string(port) + " is outside 0..65535");
  }
  const std::string address = host + ":" + std::to_string(port);
  auto registry = std::make_shared<prometheus::Registry>();
  std::unique_ptr<prometheus::Exposer> exposer;
  try {
    exposer = std::make_unique<prometheus::Exposer>(address, /*num_threads=*/2);
    exposer->RegisterCollectable(registry);
  } catch (const std::exception& e) {
    return Status::Unavailable("cannot listen on " + address + " for metrics: " + e.what());
  }
  std::vector<int> ports;
  try {
    ports = exposer->GetListeningPorts();
  } catch (const std::exception& e) {
    return Status::Internal(std::string("cannot read back the metrics port: ") + e.what());
  }
  if (ports.empty() || ports.front() <= 0) {
    return Status::Internal("metrics server on " + address + " reports no listening port");
  }
  return std::unique_ptr<MetricsExposer>(
      new MetricsExposer(host, ports.front(), std::move(registry), std::move(exposer)));
}

MetricsExposer::MetricsExposer(std::string host, int port,
                               std::shared_ptr<prometheus::Registry> registry,
                               std::unique_ptr<prometheus::Exposer> exposer)
    : host_(std::move(host)),
      port_(port),
      registry_(std::move(registry)),
      exposer_(std::move(exposer)) {}

MetricsExposer::~MetricsExposer() {
  // Stop the HTTP server before the registry goes away; civetweb's destructor does not throw.
  exposer_.reset();
}

std::string MetricsExposer::url() const {
  return "http://" + host_ + ":" + std::to_string(port_) + "/metrics";
}

}  // namespace fleetsweep
