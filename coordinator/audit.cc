// Fingerprint (injection) audit and infeasible regions. The inert analysis is in audit_inert.cc.
#include "coordinator/audit.h"

#include <algorithm>
#include <map>
#include <utility>

namespace fleetsweep {
namespace {

// All parameters except `skip`, as "a=1,b=2": configurations with equal keys differ only in
// `skip`.
std::string OthersKey(const ConfigResult& c, const std::string& skip) {
  std::string k;
  for (const auto& [name, value] : c.params) {
    if (name == skip) continue;
    k += name + "=" + value + "\x1f";
  }
  return k;
}

std::string Join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ",") + x;
  return out.empty() ? "(none)" : out;
}

}  // namespace

std::vector<InjectionVerdict> AuditInjection(const std::vector<ConfigResult>& configs,
                                             const std::vector<std::string>& params) {
  std::vector<InjectionVerdict> out;
  for (const auto& p : params) {
    InjectionVerdict v;
    v.param = p;
    std::map<std::string, std::vector<const ConfigResult*>> blocks;
    for (const auto& c : configs) {
      if (c.ok_attempts == 0 || !c.params.count(p)) continue;
      blocks[OthersKey(c, p)].push_back(&c);
    }
    std::string same_example, diff_example;
    for (const auto& [key, members] : blocks) {
      for (size_t i = 0; i < members.size(); ++i) {
        for (size_t j = i + 1; j < members.size(); ++j) {
          const ConfigResult& a = *members[i];
          const ConfigResult& b = *members[j];
          if (a.params.at(p) == b.params.at(p)) continue;
          if (a.fingerprints.empty() || b.fingerprints.empty()) {
            ++v.pairs_without_fingerprint;
            continue;
          }
          ++v.pairs;
          const std::string ex = p + "=" + a.params.at(p) + " -> " + Join(a.fingerprints) + " vs " +
                                 p + "=" + b.params.at(p) + " -> " + Join(b.fingerprints) + " (" +
                                 a.key + " vs " + b.key + ")";
          if (a.fingerprints != b.fingerprints) {
            ++v.differing_pairs;
            if (diff_example.empty()) diff_example = ex;
          } else if (same_example.empty()) {
            same_example = ex;
          }
        }
      }
    }
    if (v.differing_pairs > 0) {
      v.verdict = "injected";
      v.example = diff_example;
    } else if (v.pairs > 0) {
      v.verdict = "not_injected";
      v.example = same_example;
    } else if (v.pairs_without_fingerprint > 0) {
      v.verdict = "no_fingerprint";
    } else {
      v.verdict = "untested";
    }
    out.push_back(std::move(v));
  }
  return out;
}

std::string InjectionInvalidReason(const std::vector<InjectionVerdict>& verdicts) {
  int tested = 0, injected = 0;
  std::string names;
  for (const auto& v : verdicts) {
    if (v.verdict == "injected") ++injected;
    if (v.verdict == "injected" || v.verdict == "not_injected") {
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
  std::map<std::pair<std::string, std::string>, InfeasibleRegion> regions;
  for (const auto& c : configs) {
    for (const auto& p : params) {
      auto it = c.params.find(p);
      if (it == c.params.end()) continue;
      InfeasibleRegion& r = regions[{p, it->second}];
      r.param = p;
      r.value = it->second;
      ++r.total;
      if (c.status == "infeasible") {
        ++r.infeasible;
        r.classes[c.failure_class.empty() ? "unknown" : c.failure_class]++;
      }
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

}  // namespace fleetsweep
