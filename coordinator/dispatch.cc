// Assignment of executions to nodes (docs/honest-measurement.md "Randomised, balanced
// assignment"): a blocked randomised design instead of round-robin. Round-robin leasing pins
// configurations to nodes (with two single-slot workers one configuration ran 30 of 44 times on
// one node), which confounds configuration with node. Here every lease is chosen among the next
// kWindow ready configurations by, in order:
//   1. a match with one of the request's open session keys (warm-session affinity, issue 13): a
//      key is only sent when the spec has one (parameters in the command, env or files, or
//      declared `restart: true`), i.e. when changing it restarts the benchmark (an engine start
//      can cost minutes), so a slot stays on its key while it has work;
//   2. fewest executions already leased on THIS node (every configuration spreads over nodes),
//   3. fewest executions overall (configurations progress together: several time windows each),
//   4. a seeded random draw (no systematic order).
// Without session keys (the common case) the order is 2-3-4. With them, a configuration's
// executions can gather on one node; the reference configuration still runs on every node, so
// node effects are still estimated and removed.
// The reference configuration runs first on every node and again after a randomly drawn number
// of leases around ReferencePeriod(), so it is interleaved through the sweep.
#include <algorithm>
#include <tuple>

#include "common/stats/rng.h"
#include "coordinator/scheduler.h"

namespace fleetsweep {
namespace {

constexpr size_t kWindow = 32;

bool Matches(const Config& params, const std::map<std::string, std::string>& key) {
  for (const auto& [name, value] : key) {
    auto it = params.find(name);
    if (it == params.end() || it->second.ToString() != value) return false;
  }
  return true;
}

}  // namespace

int Scheduler::ReferencePeriod() const {
  const int configs = static_cast<int>(configs_.size());
  return std::max(2, std::min(options_.reference_every, configs));
}

int Scheduler::PickConfig(const std::string& node,
                          std::vector<std::map<std::string, std::string>>* sessions) {
  std::vector<int> candidates;
  while (candidates.size() < kWindow && !ready_.empty()) {
    const int idx = ready_.front();
    ready_.pop_front();
    configs_[idx].in_ready = false;
    if (NeedsWork(configs_[idx])) candidates.push_back(idx);
  }
  if (candidates.empty()) return -1;
  using Score = std::tuple<int, int, int, uint64_t>;
  int best = -1;
  size_t best_session = 0;
  Score best_score{};
  for (int idx : candidates) {
    const ConfigState& c = configs_[idx];
    auto on_node = c.node_runs.find(node);
    size_t session = sessions->size();
    for (size_t k = 0; k < sessions->size(); ++k) {
      if (Matches(c.params, (*sessions)[k])) {
        session = k;
        break;
      }
    }
    const Score score{session < sessions->size() ? 0 : 1,
                      on_node == c.node_runs.end() ? 0 : on_node->second,
                      c.ok_attempts + c.inflight, stats::SplitMix64(&draw_state_)};
    if (best < 0 || score < best_score) {
      best = idx;
      best_score = score;
      best_session = session;
    }
  }
  for (auto it = candidates.rbegin(); it != candidates.rend(); ++it) {
    if (*it == best) continue;
    configs_[*it].in_ready = true;
    ready_.push_front(*it);
  }
  if (best_session < sessions->size()) sessions->erase(sessions->begin() + best_session);
  return best;
}

std::vector<v1::Lease> Scheduler::OnWorkRequest(const std::string& worker_id, int free_slots,
                                                double now) {
  v1::WorkRequest request;
  request.set_free_slots(free_slots);
  return OnWorkRequest(worker_id, request, now);
}

std::vector<v1::Lease> Scheduler::OnWorkRequest(const std::string& worker_id,
                                                const v1::WorkRequest& request, double now) {
  std::vector<v1::Lease> out;
  now_ = now;
  auto wit = workers_.find(worker_id);
  if (wit == workers_.end()) return out;
  WorkerInfo& w = wit->second;
  w.last_seen = now;
  if (Finished()) return out;
  if (store_failing_) return out;  // nothing would be stored: do not run it
  std::vector<std::map<std::string, std::string>> sessions;
  for (const auto& key : request.open_sessions()) {
    sessions.emplace_back(key.params().begin(), key.params().end());
  }
  const std::string node = w.node.node().empty() ? worker_id : w.node.node();
  int free_slots = request.free_slots();
  while (free_slots > 0) {
    if (reference_ && w.reference_due) {
      auto it = index_by_key_.find(reference_key_);
      out.push_back(MakeLease(it == index_by_key_.end() ? -1 : it->second, worker_id, true, now));
      w.reference_due = false;
      w.leases_since_reference = 0;
      const int period = ReferencePeriod();  // next gap drawn in [period/2, 3 period/2]
      w.reference_gap = period / 2 + static_cast<int>(stats::SplitMix64(&draw_state_) %
                                                      static_cast<uint64_t>(period + 1));
      --free_slots;
      continue;
    }
    const int idx = PickConfig(node, &sessions);
    if (idx < 0) break;
    out.push_back(MakeLease(idx, worker_id, false, now));
    configs_[idx].node_runs[node]++;
    --free_slots;
    if (reference_ && ++w.leases_since_reference >= std::max(1, w.reference_gap)) {
      w.reference_due = true;
    }
    if (NeedsWork(configs_[idx])) MarkReady(idx);
  }
  return out;
}

}  // namespace fleetsweep
