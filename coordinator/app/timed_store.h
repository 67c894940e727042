// TimedStore: a ResultStore decorator that reports each call's latency to a callback (the
// coordinator's store-latency histogram) and forwards everything else unchanged, PutAttempts as
// one call (the backend's one-pipeline batch, op "put_attempts"). Not owning the wrapped store.
// Thread-safety: as the wrapped store's (the observer may be called from the thread that writes).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/store/forwarding_store.h"

namespace fleetsweep {

class TimedStore : public ForwardingStore {
 public:
  using Observer = std::function<void(const char* op, double seconds)>;
  TimedStore(ResultStore* inner, Observer observer)
      : ForwardingStore(inner), observer_(std::move(observer)) {}

  Status PutSpec(const std::string& s, const std::string& y) override {
    return Time("put_spec", [&] { return inner()->PutSpec(s, y); });
  }
  StatusOr<std::optional<std::string>> GetSpec(const std::string& s) override {
    return Time("get_spec", [&] { return inner()->GetSpec(s); });
  }
  StatusOr<std::vector<std::string>> ListSweeps() override {
    return Time("list_sweeps", [&] { return inner()->ListSweeps(); });
  }
  Status PutConfigs(const std::string& s, const std::vector<v1::ConfigRecord>& c) override {
    return Time("put_configs", [&] { return inner()->PutConfigs(s, c); });
  }
  StatusOr<std::vector<v1::ConfigRecord>> LoadConfigs(const std::string& s) override {
    return Time("load_configs", [&] { return inner()->LoadConfigs(s); });
  }
  StatusOr<bool> PutAttempt(const std::string& s, const v1::Attempt& a) override {
    return Time("put_attempt", [&] { return inner()->PutAttempt(s, a); });
  }
  StatusOr<std::vector<bool>> PutAttempts(const std::string& s, const std::vector<v1::Attempt>& a,
                                          const std::vector<std::string>& e) override {
    return Time("put_attempts", [&] { return inner()->PutAttempts(s, a, e); });
  }
  StatusOr<std::vector<v1::Attempt>> LoadAttempts(const std::string& s) override {
    return Time("load_attempts", [&] { return inner()->LoadAttempts(s); });
  }
  Status ForEachAttempt(const std::string& s,
                        const std::function<Status(const v1::Attempt&)>& visit) override {
    return Time("load_attempts", [&] { return inner()->ForEachAttempt(s, visit); });
  }
  StatusOr<int64_t> CountAttempts(const std::string& s) override {
    return Time("count_attempts", [&] { return inner()->CountAttempts(s); });
  }
  Status AppendEvent(const std::string& s, const std::string& e) override {
    return Time("append_event", [&] { return inner()->AppendEvent(s, e); });
  }
  StatusOr<std::vector<std::string>> ReadEvents(const std::string& s, int64_t from,
                                                int64_t max) override {
    return Time("read_events", [&] { return inner()->ReadEvents(s, from, max); });
  }
  Status Flush() override {
    return Time("flush", [&] { return inner()->Flush(); });
  }

 private:
  template <typename F>
  auto Time(const char* op, F&& f) -> decltype(f()) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = f();
    if (observer_) {
      observer_(op, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return r;
  }
  Observer observer_;
};

}  // namespace fleetsweep
