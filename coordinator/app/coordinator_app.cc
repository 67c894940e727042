#include "coordinator/app/coordinator_app.h"

#include <iostream>

#include "coordinator/app/sweep_runner.h"

namespace fleetsweep {

int RunSweep(const SweepRunOptions& options, const std::atomic<bool>& stop) {
  SweepRunner runner(options, std::cout);
  RunOutcome outcome = runner.Open();
  if (outcome.ok()) outcome = runner.Serve(stop);
  if (outcome.ok()) outcome = runner.Finish();
  for (const std::string& m : outcome.messages) std::cerr << "fleetsweep: " << m << "\n";
  return ToInt(outcome.code);
}

}  // namespace fleetsweep
