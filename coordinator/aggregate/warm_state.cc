#include "coordinator/aggregate/warm_state.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "common/space/value.h"
#include "common/stats/block_permutation.h"
#include "common/stats/descriptive.h"
#include "common/stats/seeded_subset.h"

namespace fleetsweep {
namespace {

// Sequential Monte Carlo: a test stops after this many re-dealings reach the observed statistic
// (Besag and Clifford; block_permutation.h): a sweep without a warm-state effect pays ~200 draws.
constexpr int kStopAfterHits = 100;

using Observations = std::vector<std::pair<int, double>>;  // (level, log median) of a block

struct LabelledBlock {
  const std::string* key;
  Observations obs;
};

struct Execution {
  int position = 0;
  int32_t session = -1;
  double log_median = 0;
};

using Blocks = std::vector<std::pair<std::string, std::vector<Execution>>>;

// Executions with a position and a finite positive median, by (config, node): the blocks are
// keyed by the text "<config>\x1f<node>" and in its order (the permutation test's order).
Blocks Collect(const ExecutionLog& log) {
  struct Tagged {
    int32_t config, node;
    size_t index;  // in log order: a block keeps its executions in the order they were logged
  };
  std::vector<Tagged> tagged;
  const auto& executions = log.executions();
  for (size_t i = 0; i < executions.size(); ++i) {
    const LoggedExecution& a = executions[i];
    if (a.position < 1) continue;
    if (!(a.median > 0)) continue;  // no samples (NaN) or a non-positive median
    tagged.push_back({a.config, a.node, i});
  }
  std::sort(tagged.begin(), tagged.end(), [](const Tagged& x, const Tagged& y) {
    return std::tie(x.config, x.node, x.index) < std::tie(y.config, y.node, y.index);
  });
  Blocks blocks;
  for (size_t i = 0; i < tagged.size();) {
    size_t j = i;
    std::vector<Execution> execs;
    for (; j < tagged.size() && tagged[j].config == tagged[i].config &&
           tagged[j].node == tagged[i].node;
         ++j) {
      const LoggedExecution& a = executions[tagged[j].index];
      execs.push_back({a.position, a.session, std::log(a.median)});
    }
    blocks.emplace_back(log.key(tagged[i].config) + "\x1f" + log.node(tagged[i].node),
                        std::move(execs));
    i = j;
  }
  std::sort(blocks.begin(), blocks.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  return blocks;
}

// The test's p, min_p and verdict from `r` ("untested" when it failed), and its change: the
// median of the blocks' log differences `diffs`, as a ratio - 1.
void Decide(const StatusOr<stats::BlockPermutationResult>& r, const std::vector<double>& diffs,
            const WarmStateOptions& options, WarmStateTest* t) {
  if (!r.ok()) {
    t->verdict = "untested";
    return;
  }
  t->p_value = r->p_value;
  t->min_p = r->min_p;
  t->exact = r->exact;
  t->change = std::exp(stats::MedianOf(diffs)) - 1;
  if (t->min_p > options.alpha) {
    t->verdict = "inconclusive";
  } else {
    t->verdict = t->p_value <= options.alpha ? "differs" : "no_difference";
  }
}

// The blocks a test can afford (WarmStateOptions::visits) in their order, with their levels
// renumbered 0, 1, ... in order of value (a subset may leave some out); `resamples` is lowered
// to fit.
std::vector<Observations> Afford(std::vector<LabelledBlock> blocks, uint64_t seed,
                                 const WarmStateOptions& budget, int* resamples, int* levels,
                                 int* tested_blocks) {
  double total = 0;
  for (const auto& b : blocks) total += static_cast<double>(b.obs.size());
  if (total * *resamples > budget.visits) {
    *resamples = std::min(*resamples,
                          std::max(budget.min_resamples, static_cast<int>(budget.visits / total)));
    const double cap = budget.visits / *resamples;
    if (total > cap) {
      std::vector<uint64_t> hashes;
      std::vector<size_t> sizes;
      for (const auto& b : blocks) {
        hashes.push_back(Fnv1a64(*b.key, seed));
        sizes.push_back(b.obs.size());
      }
      const std::vector<bool> keep = stats::SeededSubset(hashes, sizes, cap);
      size_t w = 0;
      for (size_t i = 0; i < blocks.size(); ++i) {
        if (keep[i]) blocks[w++] = std::move(blocks[i]);
      }
      blocks.resize(w);
    }
  }
  std::map<int, int> renumber;
  for (const auto& b : blocks) {
    for (const auto& o : b.obs) renumber.emplace(o.first, 0);
  }
  int next = 0;
  for (auto& [level, index] : renumber) index = next++;
  *levels = next;
  *tested_blocks = static_cast<int>(blocks.size());
  std::vector<Observations> out;
  out.reserve(blocks.size());
  for (auto& b : blocks) {
    for (auto& o : b.obs) o.first = renumber[o.first];
    out.push_back(std::move(b.obs));
  }
  return out;
}

// The test over `blocks` at the affordable size, decided into `t`.
void RunTest(std::vector<LabelledBlock> blocks, const std::vector<double>& changes,
             const WarmStateOptions& options, uint64_t seed, WarmStateTest* t) {
  int resamples = options.resamples, levels = 0;
  const auto tested =
      Afford(std::move(blocks), seed, options, &resamples, &levels, &t->tested_blocks);
  auto r = stats::BlockPermutationTest(tested, std::max(2, levels), resamples, seed,
                                       stats::kBlockPermutationExactLimit, kStopAfterHits);
  Decide(r, changes, options, t);
}

// Block permutation test of group a vs group b; `group(e)` is 0 (a), 1 (b) or -1 (left out).
template <class Group>
WarmStateTest Test(const Blocks& blocks, Group group, const WarmStateOptions& options,
                   uint64_t salt) {
  WarmStateTest t;
  std::vector<LabelledBlock> labelled;
  std::vector<double> changes;
  for (const auto& [key, execs] : blocks) {
    Observations obs;
    double sum[2] = {0, 0};
    int n[2] = {0, 0};
    for (const Execution& e : execs) {
      const int g = group(e);
      if (g < 0) continue;
      obs.emplace_back(g, e.log_median);
      sum[g] += e.log_median;
      ++n[g];
    }
    if (n[0] == 0 || n[1] == 0) continue;
    ++t.blocks;
    t.group_a += n[0];
    t.group_b += n[1];
    changes.push_back(sum[1] / n[1] - sum[0] / n[0]);
    labelled.push_back({&key, std::move(obs)});
  }
  if (labelled.empty()) return t;
  RunTest(std::move(labelled), changes, options, options.seed ^ salt, &t);
  return t;
}

// Between sessions: within each block, the executions' session labels are re-dealt (levels: the
// sessions themselves, so the statistic is the between-session sum of squares of block-centred
// log medians; a session spanning several blocks pools its executions of all of them). Blocks
// with executions of fewer than two sessions carry no information and are left out. change: the
// median over informative blocks of (highest - lowest session mean), as a ratio - 1.
WarmStateTest BetweenSessions(const Blocks& blocks, int32_t sessions,
                              const WarmStateOptions& options) {
  WarmStateTest t;
  std::vector<int> level(static_cast<size_t>(std::max(0, sessions)), -1);  // session -> level
  int levels = 0;
  std::vector<LabelledBlock> labelled;
  std::vector<double> spreads;
  for (const auto& [key, execs] : blocks) {
    std::vector<std::pair<int32_t, std::pair<double, int>>> means;  // a block meets few sessions
    for (const Execution& e : execs) {
      if (e.session < 0) continue;
      auto m = std::find_if(means.begin(), means.end(),
                            [&](const auto& x) { return x.first == e.session; });
      if (m == means.end()) m = means.insert(means.end(), {e.session, {0.0, 0}});
      m->second.first += e.log_median;
      ++m->second.second;
    }
    if (means.size() < 2) continue;
    Observations obs;
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& [session, m] : means) {
      lo = std::min(lo, m.first / m.second);
      hi = std::max(hi, m.first / m.second);
    }
    for (const Execution& e : execs) {
      if (e.session < 0) continue;
      int& l = level[static_cast<size_t>(e.session)];
      if (l < 0) l = levels++;
      obs.emplace_back(l, e.log_median);
    }
    ++t.blocks;
    t.group_a += static_cast<int>(means.size());
    t.group_b += static_cast<int>(obs.size());
    spreads.push_back(hi - lo);
    labelled.push_back({&key, std::move(obs)});
  }
  if (labelled.empty()) return t;
  RunTest(std::move(labelled), spreads, options, options.seed ^ 0x5eed3, &t);
  return t;
}

}  // namespace

WarmStateAudit AuditWarmState(const ExecutionLog& log, const WarmStateOptions& options) {
  WarmStateAudit w;
  w.session_starts = log.totals().session_starts;
  w.session_start_seconds = log.totals().session_start_seconds;
  w.attempt_seconds = log.totals().attempt_seconds;
  const auto blocks = Collect(log);
  std::vector<int> later;
  for (const auto& [key, execs] : blocks) {
    for (const Execution& e : execs) {
      ++w.executions;
      w.max_position = std::max(w.max_position, e.position);
      if (e.position >= 2) later.push_back(e.position);
    }
  }
  w.persistent = w.max_position >= 2;
  if (!w.persistent) {
    w.note = "every execution ran in a fresh process (one-shot sessions): nothing to check";
    return w;
  }
  w.first_vs_later = Test(
      blocks, [](const Execution& e) { return e.position == 1 ? 0 : 1; }, options, 0x5eed1);
  std::sort(later.begin(), later.end());
  const int split = later[(later.size() - 1) / 2];  // early: 2..split, late: above it
  w.drift = Test(
      blocks,
      [split](const Execution& e) { return e.position < 2 ? -1 : (e.position <= split ? 0 : 1); },
      options, 0x5eed2);
  w.between_sessions = BetweenSessions(blocks, log.session_count(), options);
  if (w.first_vs_later.verdict == "inconclusive" || w.first_vs_later.verdict == "untested") {
    w.note =
        "too few first executions beside later ones of the same configuration to test the first "
        "execution (recycle sessions with session.max_executions to get more)";
  }
  return w;
}

WarmStateAudit AuditWarmState(const std::vector<v1::Attempt>& attempts, const std::string& metric,
                              const WarmStateOptions& options) {
  ExecutionLog log(metric);
  for (const auto& a : attempts) log.Add(a);
  return AuditWarmState(log, options);
}

}  // namespace fleetsweep
