#include "worker/agent/node_info.h"

#include <sys/utsname.h>
#include <unistd.h>

namespace fleetsweep {

std::string Hostname() {
  char buf[256] = {0};
  gethostname(buf, sizeof buf - 1);
  return buf[0] ? buf : "localhost";
}

v1::NodeInfo MakeNodeInfo(const AgentOptions& o) {
  v1::NodeInfo n;
  n.set_worker_id(o.worker_id);
  n.set_node(o.node);
  n.set_slots(o.slots);
  for (const auto& d : o.devices) n.add_devices(d);
  n.set_platform(o.platform);
  struct utsname u;
  if (uname(&u) == 0) {
    (*n.mutable_software())["kernel"] = std::string(u.sysname) + " " + u.release;
    (*n.mutable_software())["machine"] = u.machine;
  }
  (*n.mutable_software())["fleetsweep"] = "0.2.0";
  (*n.mutable_software())["compiler"] = __VERSION__;
  return n;
}

SlotJob MakeSlotJob(const AgentOptions& o, const v1::Lease& lease, Config params,
                    const SpecInfo& spec, const Slot& slot) {
  SlotJob job;
  job.lease = lease;
  job.launcher = spec.launcher.get();
  job.spec_error = spec.error;
  ExecutionRequest& req = job.request;
  req.sweep = lease.sweep();
  req.params = std::move(params);
  req.config_key = lease.config_key();
  req.attempt_id = lease.lease_id();
  req.slot = slot.index();
  req.device = slot.device();
  req.device_env = o.device_env;
  req.timeout_seconds = spec.timeout;
  req.allow_exec = o.allow_exec;
  req.scratch_root = o.scratch_root;
  req.env_policy = o.env_policy;
  if (!o.platform_surface_file.empty()) {
    req.extra_env["FLEETSWEEP_PLATFORM_SURFACE"] = o.platform_surface_file;
  }
  req.extra_env["FLEETSWEEP_NODE"] = o.node;
  req.extra_env["FLEETSWEEP_PARAMS"] = ParamsJson(req.params);
  req.worker_bin_dir = o.worker_bin_dir;
  return job;
}

}  // namespace fleetsweep
