// Warm-state audit: a fresh process per execution was a guarantee that no execution measured the
// state another one left behind. Persistent sessions trade that guarantee for speed, so the sweep
// checks it instead (docs/honest-measurement.md "Warm state"):
//
//   first vs later  does the first execution of a session (position 1: cold caches, first
//                   allocations, lazy initialisation) measure differently from the later ones?
//   drift           do later executions drift over a session's life (early half vs late half of
//                   the positions >= 2: leaks, fragmentation, thermal state)?
//   between sessions  do a configuration's executions differ from one session to another (an
//                   offset the process keeps: its allocations, an engine's startup state)? Then
//                   executions of one session are not independent evidence; the effect and
//                   winner tests compare sessions where levels or configurations never shared
//                   one (audit.h, winner.h). Session labels (`session.id` per node) are
//                   re-dealt among a block's executions.
// Each test is sequential Monte Carlo (it stops after 100 re-dealings reach the observed
// statistic: a sweep without warm-state effects pays ~200 draws) and bounded in cost (`visits`).
//
// All are block permutation tests (common/stats/block_permutation.h) of log execution medians of
// the primary metric, with the position labels re-dealt within blocks of executions that share a
// configuration and a node, so configuration and node effects cancel and the test holds its
// level whatever the design. An execution without `session.position` info is left out. A test
// whose design cannot reach alpha (e.g. one session for the whole sweep: one first execution) is
// "inconclusive", never "no difference".
//
// Pure function, deterministic (seeded), never fails. Thread-safety: pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "coordinator/aggregate/execution_log.h"
#include "coordinator/aggregate/sweep_result.h"
#include "fleetsweep/v1/wire.pb.h"

namespace fleetsweep {

struct WarmStateOptions {
  double alpha = 0.01;  // per test; a warning is raised only when a test says "differs"
  int resamples = 4000;
  uint64_t seed = 1;
  // Cost bound: a test re-deals at most `visits` observations over all its draws (a 10,000-
  // configuration x 30-execution sweep audits in a fraction of a second, every live round
  // included). Above it the draws go down to `min_resamples` (the smallest p is then 1/1001, far
  // below alpha), and then a seeded subset of the blocks is tested (`tested_blocks`), picked by a
  // hash of their keys: chosen from the design, never from the values, so the test keeps its
  // level and gives up only power, of which a design that large has plenty.
  double visits = 5e6;
  int min_resamples = 1000;
};

// `log`: the sweep's attempts logged for the primary metric (execution_log.h).
WarmStateAudit AuditWarmState(const ExecutionLog& log, const WarmStateOptions& options = {});
// The same over `attempts` and `metric`: builds their log.
WarmStateAudit AuditWarmState(const std::vector<v1::Attempt>& attempts, const std::string& metric,
                              const WarmStateOptions& options = {});

}  // namespace fleetsweep
