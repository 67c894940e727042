// MemStore: a ResultStore of one sweep in memory, for benches that measure statistics, not
// storage (bench/verdict_error_rates.cc). Not thread-safe; ListSweeps is refused.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/store/store.h"

namespace fleetsweep {

class MemStore : public ResultStore {
 public:
  Status PutSpec(const std::string&, const std::string& text) override {
    spec_ = text;
    return Status::Ok();
  }
  StatusOr<std::optional<std::string>> GetSpec(const std::string&) override {
    return std::optional<std::string>(spec_);
  }
  StatusOr<std::vector<std::string>> ListSweeps() override {
    return Status::FailedPrecondition("an in-memory store of one sweep: nothing to list");
  }
  Status PutConfigs(const std::string&, const std::vector<v1::ConfigRecord>& cs) override {
    for (const auto& c : cs) configs_[c.config_key()] = c;
    return Status::Ok();
  }
  StatusOr<std::vector<v1::ConfigRecord>> LoadConfigs(const std::string&) override {
    std::vector<v1::ConfigRecord> out;
    for (const auto& [k, c] : configs_) out.push_back(c);
    return out;
  }
  StatusOr<bool> PutAttempt(const std::string&, const v1::Attempt& a) override {
    attempts_.push_back(a);
    return true;
  }
  StatusOr<std::vector<v1::Attempt>> LoadAttempts(const std::string&) override { return attempts_; }
  StatusOr<int64_t> CountAttempts(const std::string&) override {
    return static_cast<int64_t>(attempts_.size());
  }
  Status AppendEvent(const std::string&, const std::string&) override { return Status::Ok(); }
  StatusOr<std::vector<std::string>> ReadEvents(const std::string&, int64_t, int64_t) override {
    return std::vector<std::string>{};
  }
  Status Flush() override { return Status::Ok(); }
  std::string Describe() const override { return "memory"; }

 private:
  std::string spec_;
  std::map<std::string, v1::ConfigRecord> configs_;
  std::vector<v1::Attempt> attempts_;
};

}  // namespace fleetsweep
