#include "coordinator/cli/run_command.h"

#include <sys/stat.h>

#include <iostream>

#include "common/util/process.h"
#include "coordinator/app/coordinator_app.h"
#include "coordinator/app/exit_codes.h"
#include "coordinator/cli/local_workers.h"

namespace fleetsweep {
namespace {

bool MakeDirs(const std::string& path) {
  std::string cur;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (!cur.empty()) mkdir(cur.c_str(), 0755);
    }
    if (i < path.size()) cur += path[i];
  }
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

int RunCommand(const RunCommandOptions& options, const std::atomic<bool>& stop) {
  const std::string& out = options.out;
  if (!MakeDirs(out) || !MakeDirs(out + "/logs")) {
    std::cerr << "fleetsweep: cannot create output directory " << out << "\n";
    return ToInt(ExitCode::kBadInput);
  }
  LocalWorkerOptions lw;
  lw.count = options.workers;
  lw.slots_per_worker = options.slots;
  lw.worker_binary = SelfDir() + "/fleetsweep-worker";
  lw.log_dir = out + "/logs";
  lw.extra_args = options.worker_args;
  lw.devices = options.devices;
  LocalWorkers local(lw);

  SweepRunOptions o;
  o.spec_path = options.spec;
  o.store_url = "file:" + out + "/store";
  o.server.bind = "tcp://127.0.0.1:0";
  o.server.exit_when_done = true;
  o.scheduler.worker_timeout_seconds = options.worker_timeout;
  o.metrics_port = options.metrics_port;
  o.out_dir = out;
  o.results = options.results;
  o.free_at_exit = false;  // main returns right after RunSweep
  o.check_executor = ExecutorCheckOptions{SelfDir(), true, ""};
  bool started = false;
  o.on_bound = [&](const std::string& endpoint, int total, bool finished) -> Status {
    if (finished) {
      std::cerr << "fleetsweep: all " << total << " configurations already finished in " << out
                << " (resumed)\n";
      return Status::Ok();
    }
    started = true;
    return local.StartAll(endpoint);
  };
  o.on_tick = [&](const std::string&) {
    // Interrupted: the workers stop now (SIGTERM cancels their executions), not after the
    // results are written, and are not restarted.
    if (stop.load()) {
      local.TermAll();
    } else if (started) {
      local.Supervise(true);
    }
  };
  int rc = RunSweep(o, stop);
  // A finished sweep's workers exit by themselves (grace); an interrupted one's were sent SIGTERM.
  local.StopAll(stop.load() ? 0.0 : 5.0);
  return rc;
}

}  // namespace fleetsweep
