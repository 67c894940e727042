// MetricsExposer: serves one prometheus::Registry as Prometheus text exposition over HTTP.
//
// Start() binds HOST:PORT (default 0.0.0.0; port 0 picks a free port, read back with port()) and
// answers GET /metrics with the current value of every metric registered in registry(). It is
// also the process's health endpoint: a 200 on /metrics means the process is up.
//
// Errors: prometheus-cpp (civetweb) throws when the address cannot be bound; Start() catches that
// and returns kUnavailable ("cannot listen on HOST:PORT: ...") or kInvalidArgument for a port
// outside 0..65535. Nothing here throws.
//
// Ownership: the exposer owns the registry and the HTTP server; metric classes built on
// registry() (CoordinatorMetrics, WorkerMetrics) must not outlive it. Destroying the exposer
// stops serving (joins the server threads).
//
// Thread-safety: all methods are safe to call from any thread; prometheus::Registry and its
// metrics are thread-safe, and scrapes run on the server's own threads.
#pragma once

#include <memory>
#include <string>

#include "common/status.h"

namespace prometheus {
class Exposer;
class Registry;
}  // namespace prometheus

namespace fleetsweep {

class MetricsExposer {
 public:
  // Binds host:port and starts serving /metrics. See the file comment for errors.
  static StatusOr<std::unique_ptr<MetricsExposer>> Start(int port,
                                                         const std::string& host = "0.0.0.0");

  ~MetricsExposer();
  MetricsExposer(const MetricsExposer&) = delete;
  MetricsExposer& operator=(const MetricsExposer&) = delete;

  // The TCP port actually listened on (the picked one when Start() was given 0).
  int port() const { return port_; }
  // "http://HOST:PORT/metrics" with HOST as given to Start() (0.0.0.0 stays 0.0.0.0).
  std::string url() const;

  // The registry served at /metrics; owned by this exposer.
  prometheus::Registry& registry() { return *registry_; }

 private:
  MetricsExposer(std::string host, int port, std::shared_ptr<prometheus::Registry> registry,
                 std::unique_ptr<prometheus::Exposer> exposer);

  std::string host_;
  int port_ = 0;
  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<prometheus::Exposer> exposer_;  // destroyed first: stops scrapes of registry_
};

}  // namespace fleetsweep
