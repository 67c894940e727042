#include "worker/agent/spec_cache.h"

#include <algorithm>

#include "common/space/spec.h"
#include "common/wire/wire.h"

namespace fleetsweep {

SpecInfo LoadSpec(const v1::SpecText& spec) {
  SpecInfo info;
  auto parsed = ParseSpecText(spec.spec_yaml(), "<spec of sweep " + spec.sweep() + ">");
  if (!parsed.ok()) {
    info.error = parsed.status().message();
    return info;
  }
  std::vector<std::string> restart;
  for (const ParamSpec& p : parsed->params) {
    if (p.restart) restart.push_back(p.name);
  }
  info.timeout = parsed->timeout_seconds;
  for (const auto& m : parsed->metrics) info.metrics.push_back(m.name);
  auto launcher = Launcher::Create(parsed->executor_yaml, restart, SweptLevels(*parsed));
  if (!launcher.ok()) {
    info.error = launcher.status().message();
  } else {
    info.launcher = std::move(launcher).value();
  }
  return info;
}

const SpecInfo* SpecCache::Find(const std::string& hash) const {
  auto it = specs_.find(hash);
  return it == specs_.end() ? nullptr : &it->second;
}

SpecCache::Added SpecCache::Add(const v1::SpecText& spec) {
  Added a;
  a.hash = SpecHash(spec.spec_yaml());
  if (a.hash != spec.spec_hash()) {
    a.error = "the coordinator's spec for sweep " + spec.sweep() + " claims hash " +
              spec.spec_hash() + " but its text hashes to " + a.hash;
    return a;
  }
  a.ok = true;
  auto it = specs_.find(a.hash);
  if (it == specs_.end()) {
    it = specs_.emplace(a.hash, LoadSpec(spec)).first;
    a.is_new = true;
  }
  a.info = &it->second;
  return a;
}

bool SpecCache::Await(const v1::Lease& lease) {
  waiting_[lease.spec_hash()].push_back(lease);
  return asked_.count(lease.spec_hash()) == 0;
}

std::map<std::string, std::vector<v1::Lease>> SpecCache::TakeWaiting() {
  std::map<std::string, std::vector<v1::Lease>> out;
  out.swap(waiting_);
  asked_.clear();
  return out;
}

std::vector<std::string> SpecCache::AsksDue(double now) const {
  std::vector<std::string> due;
  for (const auto& [hash, asked] : asked_) {
    if (now - asked >= retry_seconds_) due.push_back(hash);
  }
  return due;
}

double SpecCache::NextAskDue() const {
  double next = std::numeric_limits<double>::infinity();
  for (const auto& [hash, asked] : asked_) next = std::min(next, asked + retry_seconds_);
  return next;
}

int SpecCache::waiting() const {
  int n = 0;
  for (const auto& [hash, leases] : waiting_) n += static_cast<int>(leases.size());
  return n;
}

}  // namespace fleetsweep
