// Text helpers shared by results.json (results_json.cc) and summary.txt (results_summary.cc).
// Internal to coordinator/aggregate; defined in results_summary.cc. Pure functions.
#pragma once

#include <string>

#include "coordinator/aggregate/sweep_result.h"

namespace fleetsweep {

// "k1=v1 k2=v2": a configuration's parameters, in name order.
std::string ParamsText(const ConfigResult& c);
// "param=value: N of M configurations infeasible (classes)".
std::string RegionText(const InfeasibleRegion& g);

}  // namespace fleetsweep
