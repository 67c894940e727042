// What a worker says about itself and gives each execution: the node's description for Hello
// (slots, devices, platform, kernel, compiler) and the job a slot runs for a lease (the execution
// request built from the lease, the spec and the agent's options).
//
// Never fails: a spec that could not be used travels in the job (SlotJob::spec_error) and the
// slot reports it as a LAUNCH failure. Nothing is owned beyond the returned values.
#pragma once

#include <string>

#include "fleetsweep/v1/wire.pb.h"
#include "worker/agent.h"
#include "worker/agent/slot.h"
#include "worker/agent/spec_cache.h"

namespace fleetsweep {

// The host name, or "localhost" when it cannot be read.
std::string Hostname();

v1::NodeInfo MakeNodeInfo(const AgentOptions& o);

// The job for `lease` on `slot`: its parameters (already parsed), the spec's launcher and
// timeout, the slot's device, and the options' executable allow-list, scratch root, environment
// policy and FLEETSWEEP_* variables.
SlotJob MakeSlotJob(const AgentOptions& o, const v1::Lease& lease, Config params,
                    const SpecInfo& spec, const Slot& slot);

}  // namespace fleetsweep
