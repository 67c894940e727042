#include "coordinator/aggregate/audit_blocks.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>

namespace fleetsweep {

std::string OthersKey(const ConfigResult& c, const std::string& p) {
  std::string k;
  for (const auto& [name, value] : c.params) {
    if (name == p) continue;
    k += name;
    k += '=';
    k += value;
    k += '\x1f';
  }
  return k;
}

ParamTable::ParamTable(const std::vector<ConfigResult>& configs) : configs_(configs) {
  // Names first (few), so that every configuration's row has one slot per name.
  std::map<std::string, int32_t> names;
  for (const ConfigResult& c : configs) {
    for (const auto& [name, value] : c.params) names.emplace(name, 0);
  }
  for (auto& [name, id] : names) {
    id = static_cast<int32_t>(names_.size());
    names_.push_back(name);
  }
  values_.resize(names_.size());
  std::vector<std::unordered_map<std::string, int32_t>> value_ids(names_.size());
  ids_.assign(configs.size() * names_.size(), -1);
  for (size_t i = 0; i < configs.size(); ++i) {
    // Both maps are in name order: walk them together instead of looking each name up.
    auto n = names.begin();
    for (const auto& [name, value] : configs[i].params) {
      while (n->first != name) ++n;
      const size_t p = static_cast<size_t>(n->second);
      auto [it, added] = value_ids[p].emplace(value, static_cast<int32_t>(values_[p].size()));
      if (added) values_[p].push_back(value);
      ids_[i * names_.size() + p] = it->second;
    }
  }
}

int32_t ParamTable::Param(const std::string& name) const {
  auto it = std::lower_bound(names_.begin(), names_.end(), name);
  return it != names_.end() && *it == name ? static_cast<int32_t>(it - names_.begin()) : -1;
}

std::vector<ParamBlock> ParamTable::BlocksDifferingIn(
    const std::string& p, const std::function<bool(size_t)>& keep) const {
  std::vector<ParamBlock> blocks;
  const int32_t pid = Param(p);
  if (pid < 0) return blocks;
  std::unordered_map<std::string, size_t> block_of;  // value ids of the others -> block
  std::string bytes;
  const size_t width = names_.size();
  for (size_t i = 0; i < configs_.size(); ++i) {
    if (Level(i, pid) < 0 || !keep(i)) continue;
    bytes.clear();
    for (size_t n = 0; n < width; ++n) {
      if (static_cast<int32_t>(n) == pid) continue;
      const int32_t id = ids_[i * width + n];
      bytes.append(reinterpret_cast<const char*>(&id), sizeof id);
    }
    auto [it, added] = block_of.emplace(bytes, blocks.size());
    if (added) blocks.push_back({OthersKey(configs_[i], p), {}});
    blocks[it->second].members.push_back(i);
  }
  std::stable_sort(blocks.begin(), blocks.end(),
                   [](const ParamBlock& a, const ParamBlock& b) { return a.key < b.key; });
  return blocks;
}

}  // namespace fleetsweep
