// The swept parameters of a sweep's configurations as small integers, read once from the
// configurations' maps, and the blocks both audits test: configurations that differ only in one
// parameter (the fingerprint audit's pairs, audit.cc; the effect test's blocks, audit_inert.cc).
//
// A block is every kept configuration with the same values of all parameters but `p` (names and
// values compared as given, so configurations with different parameter sets never share one).
// Blocks come in the order of their key "name=value\x1f..." over the other parameters (what a
// std::map keyed by that text gave, so seeded tests see the same order as before), members in
// configuration order. The key text is built once per block, not once per configuration, and
// the audits read levels from the table instead of each configuration's map (issue 16: Finish of
// a large sweep walked ~10 string maps per configuration).
//
// Errors: none. Ownership: borrows `configs` (must outlive the table and stay unchanged).
// Thread-safety: const methods may be called from several threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "coordinator/aggregate/sweep_result.h"

namespace fleetsweep {

struct ParamBlock {
  std::string key;              // "name=value\x1f" of every parameter but p, in name order
  std::vector<size_t> members;  // indices into configs, ascending
};

class ParamTable {
 public:
  explicit ParamTable(const std::vector<ConfigResult>& configs);

  // The id of parameter `name` (-1: no configuration has it).
  int32_t Param(const std::string& name) const;
  // Configuration i's value id of parameter `param` (-1: it has no value).
  int32_t Level(size_t i, int32_t param) const {
    return param < 0 ? -1 : ids_[i * names_.size() + static_cast<size_t>(param)];
  }
  // The text of value id `level` of parameter `param`.
  const std::string& Text(int32_t param, int32_t level) const {
    return values_[static_cast<size_t>(param)][static_cast<size_t>(level)];
  }
  size_t size() const { return configs_.size(); }

  // The blocks of the configurations i with keep(i) that have parameter `p`.
  std::vector<ParamBlock> BlocksDifferingIn(const std::string& p,
                                            const std::function<bool(size_t)>& keep) const;

 private:
  const std::vector<ConfigResult>& configs_;
  std::vector<std::string> names_;                // by id, in name order
  std::vector<std::vector<std::string>> values_;  // per parameter id, by value id
  std::vector<int32_t> ids_;                      // configs x names_, -1: absent
};

// The key of configuration c's block for `p` (ParamBlock::key).
std::string OthersKey(const ConfigResult& c, const std::string& p);

}  // namespace fleetsweep
