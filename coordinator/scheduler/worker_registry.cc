#include "coordinator/scheduler/worker_registry.h"

namespace fleetsweep {

std::set<std::string> WorkerRegistry::Hello(const std::string& worker_id, const v1::NodeInfo& node,
                                            const std::string& identity, double now) {
  WorkerInfo& w = workers_[worker_id];
  std::set<std::string> taken_over;
  if (!w.leases.empty() && w.identity != identity) taken_over.swap(w.leases);
  w.identity = identity;
  w.node = node;
  w.last_seen = now;
  return taken_over;
}

WorkerInfo* WorkerRegistry::Find(const std::string& worker_id) {
  auto it = workers_.find(worker_id);
  return it == workers_.end() ? nullptr : &it->second;
}

const WorkerInfo* WorkerRegistry::Find(const std::string& worker_id) const {
  auto it = workers_.find(worker_id);
  return it == workers_.end() ? nullptr : &it->second;
}

bool WorkerRegistry::Touch(const std::string& worker_id, double now) {
  WorkerInfo* w = Find(worker_id);
  if (w == nullptr) return false;
  w->last_seen = now;
  return true;
}

std::string WorkerRegistry::NodeName(const std::string& worker_id) const {
  const WorkerInfo* w = Find(worker_id);
  if (w == nullptr) return "";
  return w->node.node().empty() ? worker_id : w->node.node();
}

void WorkerRegistry::AddLease(const std::string& worker_id, const std::string& lease_id) {
  if (WorkerInfo* w = Find(worker_id)) w->leases.insert(lease_id);
}

void WorkerRegistry::DropLease(const std::string& worker_id, const std::string& lease_id) {
  if (WorkerInfo* w = Find(worker_id)) w->leases.erase(lease_id);
}

std::optional<std::set<std::string>> WorkerRegistry::Remove(const std::string& worker_id) {
  auto it = workers_.find(worker_id);
  if (it == workers_.end()) return std::nullopt;
  std::set<std::string> leases = std::move(it->second.leases);
  workers_.erase(it);
  return leases;
}

std::vector<std::string> WorkerRegistry::Silent(double now, double timeout) const {
  std::vector<std::string> out;
  for (const auto& [id, w] : workers_) {
    if (now - w.last_seen > timeout) out.push_back(id);
  }
  return out;
}

std::vector<std::string> WorkerRegistry::Ids() const {
  std::vector<std::string> ids;
  for (const auto& [id, w] : workers_) ids.push_back(id);
  return ids;
}

int64_t WorkerRegistry::Slots() const {
  int64_t n = 0;
  for (const auto& [id, w] : workers_) n += w.node.slots();
  return n;
}

int64_t WorkerRegistry::Busy() const {
  int64_t n = 0;
  for (const auto& [id, w] : workers_) n += static_cast<int64_t>(w.leases.size());
  return n;
}

}  // namespace fleetsweep
