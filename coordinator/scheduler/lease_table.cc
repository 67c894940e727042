#include "coordinator/scheduler/lease_table.h"

#include <sys/random.h>

#include <algorithm>
#include <cstring>

#include "common/wire/wire.h"

namespace fleetsweep {

namespace {

// 8 bytes from the kernel's CSPRNG, drawn 4 KiB at a time (one getrandom per 512 ids instead of
// one per id); each byte is handed out once and zeroed in the pool.
uint64_t RandomWord() {
  thread_local unsigned char pool[4096];
  thread_local size_t used = sizeof pool;
  if (used + 8 > sizeof pool) {
    size_t got = 0;
    while (got < sizeof pool) {
      ssize_t n = getrandom(pool + got, sizeof pool - got, 0);
      if (n > 0) got += static_cast<size_t>(n);
    }
    used = 0;
  }
  uint64_t w;
  std::memcpy(&w, pool + used, 8);
  std::memset(pool + used, 0, 8);
  used += 8;
  return w;
}

constexpr char kHex[] = "0123456789abcdef";

void AppendHex64(uint64_t v, std::string* out) {
  for (int shift = 60; shift >= 0; shift -= 4) out->push_back(kHex[(v >> shift) & 15]);
}

// The 16 lowercase hex digits at p as a number; false when one is not a lowercase hex digit.
bool ParseHex64(const char* p, uint64_t* v) {
  uint64_t x = 0;
  for (int i = 0; i < 16; ++i) {
    const char c = p[i];
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else {
      return false;
    }
    x = (x << 4) | static_cast<uint64_t>(d);
  }
  *v = x;
  return true;
}

}  // namespace

uint32_t LeaseTable::Holder(const std::string& worker_id, const std::string& identity) {
  std::string key;
  key.reserve(worker_id.size() + 1 + identity.size());
  key.append(worker_id).append(1, '\0').append(identity);
  auto [it, added] = holder_index_.emplace(std::move(key), static_cast<uint32_t>(holders_.size()));
  if (added) holders_.emplace_back(worker_id, identity);
  return it->second;
}

std::string LeaseTable::Grant(const std::string& config_key, const std::string& epoch,
                              const LeaseInfo& info, const std::string& identity) {
  Row row;
  row.secret = RandomWord();
  row.config = info.config;
  row.holder = Holder(info.worker_id, identity) | (info.reference ? kReference : 0);
  const uint64_t number = rows_.size();
  rows_.push_back(row);
  std::string id;
  id.reserve(config_key.size() + epoch.size() + 38);
  id.append(config_key).append(1, '-').append(epoch).append(1, '-');
  AppendHex64(number, &id);
  AppendHex64(row.secret, &id);
  if (info.reference) id.append("-ref");
  leases_[id] = info;
  return id;
}

size_t LeaseTable::RowOf(const std::string& lease_id) const {
  size_t end = lease_id.size();
  if (end >= 4 && lease_id.compare(end - 4, 4, "-ref") == 0) end -= 4;
  if (end < 33 || lease_id[end - 33] != '-') return kNoRow;
  uint64_t number = 0, secret = 0;
  if (!ParseHex64(lease_id.data() + end - 32, &number) ||
      !ParseHex64(lease_id.data() + end - 16, &secret) || number >= rows_.size()) {
    return kNoRow;
  }
  const Row& row = rows_[static_cast<size_t>(number)];
  const bool reference = end != lease_id.size();
  if (row.secret != secret || ((row.holder & kReference) != 0) != reference) return kNoRow;
  return static_cast<size_t>(number);
}

std::optional<LeaseGrant> LeaseTable::FindGrant(const std::string& lease_id) const {
  const size_t at = RowOf(lease_id);
  if (at == kNoRow) return std::nullopt;
  const Row* row = &rows_[at];
  const auto& holder = holders_[row->holder & kHolder];
  LeaseGrant g;
  g.worker_id = &holder.first;
  g.identity = &holder.second;
  g.config = row->config;
  g.reference = (row->holder & kReference) != 0;
  g.counted = (row->holder & kCounted) != 0;
  return g;
}

bool LeaseTable::Count(const std::string& attempt_id) {
  const size_t at = RowOf(attempt_id);
  if (at == kNoRow) return counted_elsewhere_.insert(attempt_id).second;
  Row& row = rows_[at];
  if ((row.holder & kCounted) != 0) return false;
  row.holder |= kCounted;
  ++counted_;
  return true;
}

bool LeaseTable::Counted(const std::string& attempt_id) const {
  const size_t at = RowOf(attempt_id);
  if (at == kNoRow) return counted_elsewhere_.count(attempt_id) > 0;
  return (rows_[at].holder & kCounted) != 0;
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
