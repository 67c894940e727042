#include "common/metrics/labels.h"

#include <algorithm>
#include <cctype>

namespace fleetsweep {
namespace metrics {

const std::vector<std::string>& KnownFailureClasses() {
  static const std::vector<std::string> kClasses = {
      "timeout",    "signal",  "exit_code", "out_of_memory", "not_implemented", "wrong_result",
      "bad_output", "refused", "launch",    "lease_expired", "unknown",         "other"};
  return kClasses;
}

std::string FailureClassLabel(bool ok, const std::string& failure_class) {
  if (ok) return "none";
  std::string s = failure_class;
  const std::string prefix = "FAILURE_CLASS_";
  if (s.compare(0, prefix.size(), prefix) == 0) s = s.substr(prefix.size());
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::replace(s.begin(), s.end(), '-', '_');
  std::replace(s.begin(), s.end(), ' ', '_');
  if (s.empty() || s == "unspecified" || s == "none") return "unknown";
  const auto& known = KnownFailureClasses();
  if (std::find(known.begin(), known.end(), s) != known.end()) return s;
  return "other";
}

const std::vector<std::string>& KnownAuditVerdicts() {
  static const std::vector<std::string> kVerdicts = {"injected", "not_injected", "no_effect",
                                                     "no_fingerprint"};
  return kVerdicts;
}

}  // namespace metrics
}  // namespace fleetsweep
