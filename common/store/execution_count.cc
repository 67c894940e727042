#include "common/store/execution_count.h"

namespace fleetsweep {

ExecutionCount CountExecutions(const std::vector<v1::Attempt>& attempts) {
  ExecutionCount c;
  for (const auto& a : attempts) c.Add(a);
  return c;
}

std::string ExecutionsText(const ExecutionCount& count) {
  return std::to_string(count.executions) +
         (count.executions == 1 ? " execution (" : " executions (") + std::to_string(count.failed) +
         " failed)";
}

}  // namespace fleetsweep
