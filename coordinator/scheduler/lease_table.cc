#include "coordinator/scheduler/lease_table.h"

#include <sys/random.h>

#include <algorithm>
#include <cstdio>

#include "common/wire/wire.h"

namespace fleetsweep {

std::string LeaseTable::NewId(const std::string& config_key, const std::string& epoch,
                              bool reference) {
  unsigned char bits[16];
  size_t got = 0;
  while (got < sizeof bits) {
    ssize_t n = getrandom(bits + got, sizeof bits - got, 0);
    if (n > 0) got += static_cast<size_t>(n);
  }
  char hex[33];
  for (int i = 0; i < 16; ++i) std::snprintf(hex + 2 * i, 3, "%02x", bits[i]);
  return config_key + "-" + epoch + "-" + hex + (reference ? "-ref" : "");
}

void LeaseTable::Add(const std::string& lease_id, const LeaseInfo& info, LeaseGrant grant) {
  leases_[lease_id] = info;
  grants_[lease_id] = std::move(grant);
}

const LeaseGrant* LeaseTable::FindGrant(const std::string& lease_id) const {
  auto it = grants_.find(lease_id);
  return it == grants_.end() ? nullptr : &it->second;
}

const LeaseInfo* LeaseTable::Find(const std::string& lease_id) const {
  auto it = leases_.find(lease_id);
  return it == leases_.end() ? nullptr : &it->second;
}

std::optional<LeaseInfo> LeaseTable::Take(const std::string& lease_id) {
  auto it = leases_.find(lease_id);
  if (it == leases_.end()) return std::nullopt;
  LeaseInfo info = std::move(it->second);
  leases_.erase(it);
  return info;
}

void LeaseTable::RenewWaiting(const std::string& worker_id,
                              const google::protobuf::RepeatedPtrField<std::string>& waiting,
                              double now) {
  // A prefetched lease waits behind running executions: its holder renews it by naming it. A
  // running lease is not renewed (its deadline is the backstop against a hung slot). Renewal is
  // capped: an honest slot starts a waiting lease within (kMaxPrefetchPerSlot + 1) lease lengths
  // of its grant, so a worker that names a lease as waiting forever loses it then.
  for (const std::string& id : waiting) {
    auto it = leases_.find(id);
    if (it == leases_.end() || it->second.worker_id != worker_id) continue;
    LeaseInfo& l = it->second;
    const double cap = l.granted_at + (kMaxPrefetchPerSlot + 1) * l.lease_seconds;
    l.deadline = std::max(l.deadline, std::min(now + l.lease_seconds, cap));
  }
}

std::vector<std::string> LeaseTable::Overdue(double now) const {
  std::vector<std::string> out;
  for (const auto& [id, l] : leases_) {
    if (now > l.deadline) out.push_back(id);
  }
  return out;
}

}  // namespace fleetsweep
