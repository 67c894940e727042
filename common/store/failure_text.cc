#include "common/store/failure_text.h"

#include <algorithm>
#include <cctype>

namespace fleetsweep {

std::string FailureClassText(const std::string& enum_name) {
  const std::string prefix = "FAILURE_CLASS_";
  if (enum_name.rfind(prefix, 0) != 0) return enum_name;
  std::string n = enum_name.substr(prefix.size());
  std::transform(n.begin(), n.end(), n.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return n;
}

std::string FailureClassText(v1::FailureClass failure_class) {
  const std::string& name = v1::FailureClass_Name(failure_class);
  if (name.empty()) return std::to_string(static_cast<int>(failure_class));
  return FailureClassText(name);
}

}  // namespace fleetsweep
