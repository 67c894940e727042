#include "coordinator/aggregate/intern_table.h"

namespace fleetsweep {

int32_t InternTable::Intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  const auto i = static_cast<int32_t>(names_.size());
  names_.emplace_back(s);
  index_.emplace(names_.back(), i);
  return i;
}

}  // namespace fleetsweep
