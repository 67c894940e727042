// ForwardingStore: a ResultStore that forwards every call, PutAttempts included (so a backend's
// one-pipeline batch is kept), to another store it does not own; PutAttemptsTaking is not
// forwarded: it goes through this store's PutAttempts (so a decorator's override sees it).
// Decorators derive from it and override only what they change (TimedStore: latency; test stores:
// faults and gates). Errors: the inner store's. Thread-safety: as the inner store's.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/store/store.h"

namespace fleetsweep {

class ForwardingStore : public ResultStore {
 public:
  explicit ForwardingStore(ResultStore* inner) : inner_(inner) {}

  Status PutSpec(const std::string& s, const std::string& y) override {
    return inner_->PutSpec(s, y);
  }
  StatusOr<std::optional<std::string>> GetSpec(const std::string& s) override {
    return inner_->GetSpec(s);
  }
  StatusOr<std::vector<std::string>> ListSweeps() override { return inner_->ListSweeps(); }
  Status PutConfigs(const std::string& s, const std::vector<v1::ConfigRecord>& c) override {
    return inner_->PutConfigs(s, c);
  }
  StatusOr<std::vector<v1::ConfigRecord>> LoadConfigs(const std::string& s) override {
    return inner_->LoadConfigs(s);
  }
  StatusOr<bool> PutAttempt(const std::string& s, const v1::Attempt& a) override {
    return inner_->PutAttempt(s, a);
  }
  StatusOr<std::vector<bool>> PutAttempts(const std::string& s, const std::vector<v1::Attempt>& a,
                                          const std::vector<std::string>& e) override {
    return inner_->PutAttempts(s, a, e);
  }
  StatusOr<std::vector<v1::Attempt>> LoadAttempts(const std::string& s) override {
    return inner_->LoadAttempts(s);
  }
  Status ForEachAttempt(const std::string& s,
                        const std::function<Status(const v1::Attempt&)>& visit) override {
    return inner_->ForEachAttempt(s, visit);
  }
  StatusOr<int64_t> CountAttempts(const std::string& s) override {
    return inner_->CountAttempts(s);
  }
  Status AppendEvent(const std::string& s, const std::string& e) override {
    return inner_->AppendEvent(s, e);
  }
  StatusOr<std::vector<std::string>> ReadEvents(const std::string& s, int64_t from,
                                                int64_t max) override {
    return inner_->ReadEvents(s, from, max);
  }
  Status Flush() override { return inner_->Flush(); }
  std::string Describe() const override { return inner_->Describe(); }

 protected:
  ResultStore* inner() const { return inner_; }

 private:
  ResultStore* inner_;
};

}  // namespace fleetsweep
