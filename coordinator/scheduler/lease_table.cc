#include "coordinator/scheduler/lease_table.h"

#include <sys/random.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "common/wire/wire.h"

namespace fleetsweep {

namespace {

// 16 bytes from the kernel's CSPRNG, drawn 4 KiB at a time (one getrandom per 256 ids instead of
// one per id); each byte is handed out once and zeroed in the pool.
void RandomBytes16(unsigned char* out) {
  thread_local unsigned char pool[4096];
  thread_local size_t used = sizeof pool;
  if (used + 16 > sizeof pool) {
    size_t got = 0;
    while (got < sizeof pool) {
      ssize_t n = getrandom(pool + got, sizeof pool - got, 0);
      if (n > 0) got += static_cast<size_t>(n);
    }
    used = 0;
  }
  std::memcpy(out, pool + used, 16);
  std::memset(pool + used, 0, 16);
  used += 16;
}

}  // namespace

std::string LeaseTable::NewId(const std::string& config_key, const std::string& epoch,
                              bool reference) {
  unsigned char bits[16];
  RandomBytes16(bits);
  static const char kHex[] = "0123456789abcdef";
  std::string id;
  id.reserve(config_key.size() + epoch.size() + 38);
  id.append(config_key).append(1, '-').append(epoch).append(1, '-');
  for (unsigned char b : bits) {
    id.push_back(kHex[b >> 4]);
    id.push_back(kHex[b & 15]);
  }
  if (reference) id.append("-ref");
  return id;
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
