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
#include "coordinator/scheduler/dispatch.h"

#include <algorithm>
#include <tuple>

#include "common/stats/rng.h"

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

Dispatcher::Dispatcher(ConfigTable* table, AdaptiveRepetitions* reps, int reference_every,
                       uint64_t seed_state)
    : table_(table), reps_(reps), reference_every_(reference_every), draw_state_(seed_state) {}

void Dispatcher::SetReference(Config reference) {
  reference_key_ = ConfigHash(reference);
  reference_ = std::move(reference);
}

int Dispatcher::ReferencePeriod() const {
  return std::max(2, std::min(reference_every_, table_->size()));
}

int Dispatcher::PickConfig(const std::string& node, SessionKeys* sessions) {
  std::vector<int> candidates;
  while (candidates.size() < kWindow) {
    const int idx = table_->PopReady();
    if (idx < 0) break;
    if (reps_->NeedsWork(idx)) candidates.push_back(idx);
  }
  if (candidates.empty()) return -1;
  using Score = std::tuple<int, int, int, uint64_t>;
  int best = -1;
  size_t best_session = 0;
  Score best_score{};
  for (int idx : candidates) {
    const ConfigState& c = table_->Get(idx);  // an untouched one: no runs anywhere
    auto on_node = c.node_runs.find(node);
    size_t session = sessions->size();
    if (!sessions->empty()) {
      const Config params = table_->Params(idx);
      for (size_t k = 0; k < sessions->size(); ++k) {
        if (Matches(params, (*sessions)[k])) {
          session = k;
          break;
        }
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
    if (*it != best) table_->PushReadyFront(*it);
  }
  if (best_session < sessions->size()) sessions->erase(sessions->begin() + best_session);
  return best;
}

std::optional<Dispatcher::Choice> Dispatcher::Next(const ReferenceSchedule& schedule,
                                                   const std::string& node, SessionKeys* sessions) {
  // The reference as a held configuration, or -1 (the lease then carries reference() itself).
  if (reference_ && schedule.due) return Choice{table_->Find(reference_key_), true};
  const int idx = PickConfig(node, sessions);
  if (idx < 0) return std::nullopt;
  return Choice{idx, false};
}

void Dispatcher::Granted(const Choice& choice, const std::string& node,
                         ReferenceSchedule* schedule) {
  if (choice.reference) {
    schedule->due = false;
    schedule->leases_since_reference = 0;
    const int period = ReferencePeriod();  // next gap drawn in [period/2, 3 period/2]
    schedule->gap = period / 2 + static_cast<int>(stats::SplitMix64(&draw_state_) %
                                                  static_cast<uint64_t>(period + 1));
    return;
  }
  table_->at(choice.config).node_runs[node]++;
  if (reference_ && ++schedule->leases_since_reference >= std::max(1, schedule->gap)) {
    schedule->due = true;
  }
  if (reps_->NeedsWork(choice.config)) table_->MarkReady(choice.config);
}

}  // namespace fleetsweep
