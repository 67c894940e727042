// AuditEffects: does a parameter change the timing? A permutation test of the within-block ranks of
// log execution medians whose level labels are re-dealt within blocks of configurations sharing
// every other parameter. Ranks keep the test exact (any statistic is) and make it robust: one
// execution slowed 1.5x by a shared machine moves a rank by at most the block's size, where it
// moved a mean by log 1.5 (40x a 1% noise), which cost the value-based test most of its power.
// In large designs (audit.h: kConfigurationRedealing*) the labels of whole configurations are
// re-dealt instead (each carries its executions' count and rank sum): the same statistic, a
// subgroup of the re-dealings, ~30x fewer units to shuffle at 30 executions a configuration.
// When each persistent benchmark session ran one level of the parameter, whole sessions are
// re-dealt (audit.h: a session's own offset would otherwise read as the level's effect).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/space/value.h"
#include "common/stats/block_permutation.h"
#include "common/stats/descriptive.h"
#include "common/stats/rank_tests.h"
#include "coordinator/aggregate/audit.h"

namespace fleetsweep {
namespace {

// Replaces each value of the block by its midrank (stats::MidRanks: ties share their mean rank).
void RankWithinBlock(std::vector<std::pair<int, double>>* block) {
  std::vector<double> values;
  values.reserve(block->size());
  for (const auto& [level, x] : *block) values.push_back(x);
  const stats::Ranking r = stats::MidRanks(values);
  for (size_t i = 0; i < block->size(); ++i) (*block)[i].second = r.ranks[i];
}

std::string Num(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", x);
  return b;
}

// Level effects (median over blocks of config median / block median) and their spread.
void DescribeLevels(const std::vector<ConfigResult>& configs, const ParamTable& t,
                    const std::vector<ParamBlock>& blocks, int32_t p, InertVerdict* v) {
  std::map<std::string, std::vector<double>> ratios;
  std::vector<std::vector<double>*> of_level;  // value id -> its entry of ratios
  for (const ParamBlock& b : blocks) {
    const std::vector<size_t>& members = b.members;
    std::vector<double> meds;
    for (size_t i : members) meds.push_back(configs[i].primary.median);
    const double block = stats::MedianOf(meds);
    if (!(std::isfinite(block) && block != 0)) continue;
    for (size_t i : members) {
      const size_t level = static_cast<size_t>(t.Level(i, p));
      if (level >= of_level.size()) of_level.resize(level + 1, nullptr);
      if (of_level[level] == nullptr) {
        of_level[level] = &ratios[t.Text(p, static_cast<int32_t>(level))];
      }
      of_level[level]->push_back(configs[i].primary.median / block);
    }
  }
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& [level, xs] : ratios) {
    const double e = stats::MedianOf(xs);
    v->level_effects[level] = e;
    lo = std::min(lo, e);
    hi = std::max(hi, e);
  }
  v->spread = lo > 0 ? hi / lo - 1 : INFINITY;
}

// The configurations of each block holding two levels of p, and the levels' indices.
struct Design {
  std::vector<ParamBlock> blocks;  // by the key of the other parameters
  std::map<std::string, int> level_index;
  std::vector<int> index_of_id;  // p's value id -> its level index (-1: in no block)
};

Design BlocksOf(const std::vector<ConfigResult>& configs, const ParamTable& t,
                const std::vector<std::vector<double>>& log_exec_medians, const std::string& p) {
  const int32_t pid = t.Param(p);
  Design d;
  std::set<int32_t> ids;
  for (ParamBlock& b : t.BlocksDifferingIn(p, [&](size_t i) {
         if (i >= log_exec_medians.size() || log_exec_medians[i].empty()) return false;
         const double m = configs[i].primary.median;
         return std::isfinite(m) && m > 0;
       })) {
    std::set<int32_t> levels;
    for (size_t i : b.members) levels.insert(t.Level(i, pid));
    if (levels.size() < 2) continue;
    ids.insert(levels.begin(), levels.end());
    d.blocks.push_back(std::move(b));
  }
  for (int32_t id : ids) d.level_index.emplace(t.Text(pid, id), 0);
  int next = 0;
  for (auto& [level, idx] : d.level_index) idx = next++;
  for (int32_t id : ids) {
    if (static_cast<size_t>(id) >= d.index_of_id.size()) d.index_of_id.resize(id + 1, -1);
    d.index_of_id[static_cast<size_t>(id)] = d.level_index.at(t.Text(pid, id));
  }
  return d;
}

// One unit per configuration (level, executions; no values yet): the design alone.
std::vector<std::vector<stats::PermutationUnit>> ConfigurationUnits(
    const ParamTable& t, const std::vector<std::vector<double>>& log_exec_medians, int32_t p,
    const Design& d) {
  std::vector<std::vector<stats::PermutationUnit>> units;
  for (const ParamBlock& block : d.blocks) {
    std::vector<stats::PermutationUnit> b;
    for (size_t i : block.members) {
      b.push_back({d.index_of_id[static_cast<size_t>(t.Level(i, p))],
                   static_cast<int>(log_exec_medians[i].size()), 0.0});
    }
    units.push_back(std::move(b));
  }
  return units;
}

template <typename Count>
int Total(const std::vector<std::vector<stats::PermutationUnit>>& units, Count count) {
  int n = 0;
  for (const auto& b : units) {
    for (const auto& u : b) n += count(u);
  }
  return n;
}

// kAuto's choice (audit.h: kConfigurationRedealing*), from the design only: the number of
// executions, configurations and levels.
bool RedealConfigurations(int executions, int configurations, int levels, Redealing asked) {
  if (asked != Redealing::kAuto) return asked == Redealing::kConfigurations;
  return executions > kConfigurationRedealingMinExecutions &&
         static_cast<double>(configurations) >= kConfigurationRedealingMinPerLevel * levels;
}

// The executions of each block, ranked within it (configurations in block order, each one's
// executions consecutive); `units` (one per configuration, same order) get their rank sums.
std::vector<std::vector<std::pair<int, double>>> RankedExecutions(
    const std::vector<std::vector<double>>& log_exec_medians, const Design& d,
    std::vector<std::vector<stats::PermutationUnit>>* units) {
  std::vector<std::vector<std::pair<int, double>>> obs;
  size_t bi = 0;
  for (const ParamBlock& block : d.blocks) {
    const std::vector<size_t>& members = block.members;
    std::vector<std::pair<int, double>> b;
    std::vector<stats::PermutationUnit>& block_units = (*units)[bi++];
    for (size_t m = 0; m < members.size(); ++m) {
      for (double x : log_exec_medians[members[m]]) b.emplace_back(block_units[m].level, x);
    }
    RankWithinBlock(&b);
    size_t k = 0;
    for (stats::PermutationUnit& u : block_units) {
      u.value_sum = 0;
      for (int e = 0; e < u.observations; ++e) u.value_sum += b[k++].second;
    }
    obs.push_back(std::move(b));
  }
  return obs;
}

// Union-find over block indices (strata: blocks joined by a session that spans them).
int Root(std::vector<int>* parent, int b) {
  std::vector<int>& up = *parent;
  while (up[b] != b) b = up[b] = up[up[b]];
  return b;
}

// The units for re-dealing sessions (audit.h), one stratum per group of blocks joined by
// sessions; an execution without a session is a unit of its own. Returns false (and leaves
// `strata` empty) when no sessions are given, some session holds two levels of the parameter, or
// none holds two executions of the design (then sessions are executions). `obs`: the ranked
// executions of RankedExecutions, in its order (blocks, their configurations, executions).
bool SessionUnits(const Design& d, const std::vector<std::vector<double>>& log_exec_medians,
                  const std::vector<std::vector<int32_t>>& sessions,
                  const std::vector<std::vector<std::pair<int, double>>>& obs,
                  std::vector<std::vector<stats::PermutationUnit>>* strata) {
  if (sessions.empty()) return false;
  struct Unit {
    int block = 0;  // a block it touches (its stratum once blocks are joined)
    stats::PermutationUnit u;
  };
  std::vector<Unit> units;
  std::map<int32_t, size_t> of_session;  // session -> its index in units
  std::vector<int> parent(obs.size());
  for (size_t b = 0; b < parent.size(); ++b) parent[b] = static_cast<int>(b);
  bool shared = false;
  size_t bi = 0;
  for (const ParamBlock& block : d.blocks) {
    const std::vector<size_t>& members = block.members;
    double mean_rank = 0;
    for (const auto& o : obs[bi]) mean_rank += o.second;
    mean_rank /= static_cast<double>(std::max<size_t>(1, obs[bi].size()));
    size_t k = 0;
    for (size_t i : members) {
      for (size_t e = 0; e < log_exec_medians[i].size(); ++e, ++k) {
        const auto& [level, rank] = obs[bi][k];
        const int32_t s =
            i < sessions.size() && e < sessions[i].size() ? sessions[i][e] : int32_t{-1};
        const auto it = s < 0 ? of_session.end() : of_session.find(s);
        if (it == of_session.end()) {
          if (s >= 0) of_session.emplace(s, units.size());
          units.push_back({static_cast<int>(bi), {level, 1, rank - mean_rank}});
          continue;
        }
        Unit& u = units[it->second];
        if (u.u.level != level) return false;  // the session held two levels
        ++u.u.observations;
        u.u.value_sum += rank - mean_rank;
        shared = true;
        const int ra = Root(&parent, u.block), rb = Root(&parent, static_cast<int>(bi));
        if (ra != rb) parent[static_cast<size_t>(rb)] = ra;
      }
    }
    ++bi;
  }
  if (!shared) return false;
  std::map<int, size_t> stratum_of_root;
  for (const Unit& u : units) {
    const int r = Root(&parent, u.block);
    auto [it, added] = stratum_of_root.emplace(r, strata->size());
    if (added) strata->emplace_back();
    (*strata)[it->second].push_back(u.u);
  }
  return true;
}

// The verdict from p, min_p and the spread (audit.h).
void Decide(const EffectOptions& options, InertVerdict* v) {
  if (v->p_value <= options.alpha) {
    v->verdict = Effect::kActive;
  } else if (v->min_p > options.alpha) {
    v->verdict = Effect::kInconclusive;
    v->note = (v->redealing == "sessions"
                   ? "each session ran one level, too few sessions to tell a session's own "
                     "offset from the level's effect: "
                   : "too few blocks or executions: ") +
              Num(v->arrangements) + " arrangements, the smallest reachable p is " + Num(v->min_p) +
              " > " + Num(options.alpha);
  } else if (v->spread < options.max_spread) {
    v->verdict = Effect::kNoEffect;
  } else {
    v->verdict = Effect::kInconclusive;
    v->note = "p > " + Num(options.alpha) + " but the level effects spread by " +
              Num(100 * v->spread) + "%: too noisy to say";
  }
}

InertVerdict AuditOne(const std::vector<ConfigResult>& configs, const ParamTable& table,
                      const std::vector<std::vector<double>>& log_exec_medians,
                      const std::vector<std::vector<int32_t>>& sessions, const std::string& p,
                      const EffectOptions& options) {
  InertVerdict v;
  v.param = p;
  v.test = "block_permutation_ranks_log_execution_medians";
  const Design d = BlocksOf(configs, table, log_exec_medians, p);
  const int32_t pid = table.Param(p);
  v.blocks = static_cast<int>(d.blocks.size());
  v.levels = static_cast<int>(d.level_index.size());
  if (v.levels < 2) {
    v.note = "no two configurations differ only in this parameter with samples";
    return v;
  }
  std::vector<std::vector<stats::PermutationUnit>> units =
      ConfigurationUnits(table, log_exec_medians, pid, d);
  v.observations = Total(units, [](const stats::PermutationUnit& u) { return u.observations; });
  const int configurations = Total(units, [](const stats::PermutationUnit&) { return 1; });
  const bool per_configuration =
      RedealConfigurations(v.observations, configurations, v.levels, options.redealing);
  v.redealing = per_configuration ? "configurations" : "executions";
  v.units = per_configuration ? configurations : v.observations;
  const auto obs = RankedExecutions(log_exec_medians, d, &units);
  std::vector<std::vector<stats::PermutationUnit>> strata;
  const bool per_session = options.redealing == Redealing::kAuto &&
                           SessionUnits(d, log_exec_medians, sessions, obs, &strata);
  if (per_session) {
    v.redealing = "sessions";
    v.units = Total(strata, [](const stats::PermutationUnit&) { return 1; });
    v.test += "_sessions_redealt";
  } else if (per_configuration) {
    v.test += "_configurations_redealt";
  }
  DescribeLevels(configs, table, d.blocks, pid, &v);
  // Bounded cost for very large sweeps: about 2e7 visits of re-dealt units, at least 500
  // re-dealings.
  const int resamples =
      std::max(500, std::min(options.resamples, static_cast<int>(2e7 / std::max(1, v.units))));
  const uint64_t seed = Fnv1a64(p, options.seed);
  auto r = per_session || per_configuration
               ? stats::BlockPermutationTestOfUnits(
                     per_session ? strata : units, v.levels, resamples, seed,
                     stats::kBlockPermutationExactLimit, options.stop_after_hits)
               : stats::BlockPermutationTest(obs, v.levels, resamples, seed,
                                             stats::kBlockPermutationExactLimit,
                                             options.stop_after_hits);
  if (!r.ok()) {
    v.note = r.status().message();
    return v;
  }
  v.statistic = r->statistic;
  v.p_value = r->p_value;
  v.min_p = r->min_p;
  v.exact = r->exact;
  v.arrangements = r->arrangements;
  Decide(options, &v);
  return v;
}

}  // namespace

std::vector<InertVerdict> AuditEffects(const std::vector<ConfigResult>& configs,
                                       const std::vector<std::vector<double>>& log_exec_medians,
                                       const std::vector<std::string>& params,
                                       const EffectOptions& options) {
  return AuditEffects(configs, log_exec_medians, {}, params, options);
}

std::vector<InertVerdict> AuditEffects(const std::vector<ConfigResult>& configs,
                                       const std::vector<std::vector<double>>& log_exec_medians,
                                       const std::vector<std::vector<int32_t>>& log_exec_sessions,
                                       const std::vector<std::string>& params,
                                       const EffectOptions& options) {
  return AuditEffects(configs, ParamTable(configs), log_exec_medians, log_exec_sessions, params,
                      options);
}

std::vector<InertVerdict> AuditEffects(const std::vector<ConfigResult>& configs,
                                       const ParamTable& table,
                                       const std::vector<std::vector<double>>& log_exec_medians,
                                       const std::vector<std::vector<int32_t>>& log_exec_sessions,
                                       const std::vector<std::string>& params,
                                       const EffectOptions& options) {
  // Each parameter's test reads only the inputs and has its own seed: any split over threads
  // gives the same verdicts, in parameter order.
  std::vector<InertVerdict> out(params.size());  // `table` is read-only: shared by the threads
  const size_t threads = std::min(params.size(), static_cast<size_t>(std::max(1, options.threads)));
  auto run = [&](size_t first) {
    for (size_t i = first; i < params.size(); i += std::max<size_t>(1, threads)) {
      if (options.cancel != nullptr && options.cancel->load()) {
        out[i].param = params[i];
        continue;
      }
      out[i] = AuditOne(configs, table, log_exec_medians, log_exec_sessions, params[i], options);
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(run, t);
  run(0);
  for (auto& th : pool) th.join();
  return out;
}

}  // namespace fleetsweep
