// InternTable: each distinct string stored once and numbered in the order first seen, so that a
// table of many rows holds a 4-byte index instead of a copy (the execution log's keys, nodes and
// sessions; the aggregate's parameter names and values, metrics and fingerprints; issue 16).
//
// Errors: none. Ownership: owns its strings; name(i) stays valid while the table lives (the
// names sit in a deque: appending never moves them). Not thread-safe for Intern; the const
// members may be called from several threads while no Intern runs.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace fleetsweep {

class InternTable {
 public:
  // The index of `s`, added when new.
  int32_t Intern(std::string_view s);
  // The index of `s`; -1 when it was never interned.
  int32_t Find(std::string_view s) const {
    auto it = index_.find(s);
    return it == index_.end() ? -1 : it->second;
  }
  const std::string& name(int32_t i) const { return names_[static_cast<size_t>(i)]; }
  int32_t size() const { return static_cast<int32_t>(names_.size()); }
  void Reserve(size_t n) { index_.reserve(n); }

 private:
  std::deque<std::string> names_;  // stable addresses for the views below
  std::unordered_map<std::string_view, int32_t> index_;
};

}  // namespace fleetsweep
