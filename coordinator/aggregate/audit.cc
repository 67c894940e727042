// Fingerprint (injection) audit and infeasible regions. The inert analysis is in audit_inert.cc.
#include "coordinator/aggregate/audit.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

namespace fleetsweep {
namespace {

std::string Join(const FlatSet<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ",") + x;
  return out.empty() ? "(none)" : out;
}

}  // namespace

namespace {

// Unordered pairs among n.
int64_t Pairs(int64_t n) { return n * (n - 1) / 2; }

// Pairs of `members` whose values of parameter `p` differ: all pairs less those within one value.
int64_t PairsWithDifferentValues(const ParamTable& t, const std::vector<size_t>& members, int32_t p,
                                 std::vector<int64_t>* by_value) {
  by_value->clear();
  for (size_t i : members) {
    const size_t level = static_cast<size_t>(t.Level(i, p));
    if (level >= by_value->size()) by_value->resize(level + 1, 0);
    ++(*by_value)[level];
  }
  int64_t same = 0;
  for (int64_t n : *by_value) same += Pairs(n);
  return Pairs(static_cast<int64_t>(members.size())) - same;
}

std::string PairExample(const std::string& p, const ConfigResult& a, const ConfigResult& b) {
  return p + "=" + a.params.at(p) + " -> " + Join(a.fingerprints) + " vs " + p + "=" +
         b.params.at(p) + " -> " + Join(b.fingerprints) + " (" + a.key + " vs " + b.key + ")";
}

// The first pair (in member order) with different values of `p` whose fingerprint sets are
// equal (`same`) or differ; "" when there is none.
std::string FirstExample(const std::vector<ConfigResult>& configs, const ParamTable& t,
                         const std::vector<size_t>& members, const std::string& p, int32_t pid,
                         bool same) {
  for (size_t i = 0; i < members.size(); ++i) {
    for (size_t j = i + 1; j < members.size(); ++j) {
      if (t.Level(members[i], pid) == t.Level(members[j], pid)) continue;
      const ConfigResult& a = configs[members[i]];
      const ConfigResult& b = configs[members[j]];
      if ((a.fingerprints == b.fingerprints) == same) return PairExample(p, a, b);
    }
  }
  return "";
}

}  // namespace

// Pairs are counted, not enumerated (a block of a large grid holds every level of `p`: 100
// levels are 4,950 pairs, and a 1,000,000-configuration sweep has 10,000 such blocks per
// parameter): pairs with fingerprints on both sides and different values, less those whose
// fingerprint sets are equal. Only the first example of each kind is searched pair by pair.
std::vector<InjectionVerdict> AuditInjection(const std::vector<ConfigResult>& configs,
                                             const std::vector<std::string>& params) {
  return AuditInjection(configs, ParamTable(configs), params);
}

std::vector<InjectionVerdict> AuditInjection(const std::vector<ConfigResult>& configs,
                                             const ParamTable& table,
                                             const std::vector<std::string>& params) {
  std::vector<InjectionVerdict> out;
  std::vector<int64_t> scratch;
  for (const auto& p : params) {
    InjectionVerdict v;
    v.param = p;
    const int32_t pid = table.Param(p);
    std::string same_example, diff_example;
    for (const ParamBlock& block :
         table.BlocksDifferingIn(p, [&](size_t i) { return configs[i].ok_attempts > 0; })) {
      const std::vector<size_t>& members = block.members;
      std::vector<size_t> with_fp;
      std::map<std::string, std::vector<size_t>> by_fingerprints;
      for (size_t i : members) {
        if (configs[i].fingerprints.empty()) continue;
        with_fp.push_back(i);
        by_fingerprints[Join(configs[i].fingerprints)].push_back(i);
      }
      const int64_t pairs = PairsWithDifferentValues(table, with_fp, pid, &scratch);
      int64_t same_fp = 0;
      for (const auto& [fps, group] : by_fingerprints)
        same_fp += PairsWithDifferentValues(table, group, pid, &scratch);
      v.pairs_without_fingerprint +=
          static_cast<int>(PairsWithDifferentValues(table, members, pid, &scratch) - pairs);
      v.pairs += static_cast<int>(pairs);
      v.differing_pairs += static_cast<int>(pairs - same_fp);
      if (diff_example.empty() && pairs > same_fp)
        diff_example = FirstExample(configs, table, with_fp, p, pid, false);
      if (same_example.empty() && same_fp > 0)
        same_example = FirstExample(configs, table, with_fp, p, pid, true);
    }
    if (v.differing_pairs > 0) {
      v.verdict = Injection::kInjected;
      v.example = diff_example;
    } else if (v.pairs > 0) {
      v.verdict = Injection::kNotInjected;
      v.example = same_example;
    } else if (v.pairs_without_fingerprint > 0) {
      v.verdict = Injection::kNoFingerprint;
    } else {
      v.verdict = Injection::kUntested;
    }
    out.push_back(std::move(v));
  }
  return out;
}

std::string InjectionInvalidReason(const std::vector<InjectionVerdict>& verdicts) {
  int tested = 0, injected = 0;
  std::string names;
  for (const auto& v : verdicts) {
    if (v.verdict == Injection::kInjected) ++injected;
    if (v.verdict == Injection::kInjected || v.verdict == Injection::kNotInjected) {
      ++tested;
      names += (names.empty() ? "" : ", ") + v.param;
    }
  }
  if (tested == 0 || injected > 0) return "";
  return "no swept parameter changed the fingerprint of what ran (" + names +
         "): every variant ran the same code, so any speedup between them is noise";
}

std::vector<InfeasibleRegion> InfeasibleRegions(const std::vector<ConfigResult>& configs,
                                                const std::vector<std::string>& params) {
  return InfeasibleRegions(configs, ParamTable(configs), params);
}

std::vector<InfeasibleRegion> InfeasibleRegions(const std::vector<ConfigResult>& configs,
                                                const ParamTable& table,
                                                const std::vector<std::string>& params) {
  // Counted per (parameter, value id) from the table, then keyed by their texts (the order of
  // the regions before the sort below).
  std::map<std::pair<std::string, std::string>, InfeasibleRegion> regions;
  for (const auto& p : params) {
    const int32_t pid = table.Param(p);
    if (pid < 0) continue;
    std::vector<InfeasibleRegion> by_level;
    for (size_t i = 0; i < configs.size(); ++i) {
      const int32_t level = table.Level(i, pid);
      if (level < 0) continue;
      if (static_cast<size_t>(level) >= by_level.size()) by_level.resize(level + 1);
      InfeasibleRegion& r = by_level[static_cast<size_t>(level)];
      ++r.total;
      const ConfigResult& c = configs[i];
      if (c.status == ConfigOutcome::kInfeasible) {
        ++r.infeasible;
        r.classes[c.failure_class.empty() ? "unknown" : c.failure_class]++;
      }
    }
    for (size_t level = 0; level < by_level.size(); ++level) {
      if (by_level[level].total == 0) continue;
      InfeasibleRegion& r = regions[{p, table.Text(pid, static_cast<int32_t>(level))}];
      r = std::move(by_level[level]);
      r.param = p;
      r.value = table.Text(pid, static_cast<int32_t>(level));
    }
  }
  std::vector<InfeasibleRegion> out;
  for (auto& [key, r] : regions) {
    if (r.infeasible == 0) continue;
    r.whole = r.infeasible == r.total;
    out.push_back(r);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const InfeasibleRegion& a, const InfeasibleRegion& b) {
                     if (a.whole != b.whole) return a.whole;
                     if (a.infeasible != b.infeasible) return a.infeasible > b.infeasible;
                     return a.total < b.total;
                   });
  return out;
}

std::vector<Contradiction> FindContradictions(const std::vector<InjectionVerdict>& injection,
                                              const std::vector<InertVerdict>& effects) {
  std::vector<Contradiction> out;
  for (const auto& e : effects) {
    if (e.verdict != Effect::kActive) continue;
    for (const auto& i : injection) {
      if (i.param != e.param || i.verdict != Injection::kNotInjected) continue;
      Contradiction c;
      c.param = e.param;
      c.injection = i.verdict;
      c.effect = e.verdict;
      char p[32];
      std::snprintf(p, sizeof p, "%.3g", e.p_value);
      c.text = "parameter " + e.param + " is not_injected (identical fingerprints in " +
               std::to_string(i.pairs) + " pairs) yet active by timing (p = " + p +
               "): the timing difference cannot come from code the parameter changed; suspect "
               "node, order or warm-up effects, or a fingerprint that misses what it changes";
      out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace fleetsweep
