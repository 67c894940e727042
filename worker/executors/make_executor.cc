// MakeExecutor: picks the executor for an executor section (see executor.h).
//
//   type: exec (or no type)  -> ExecExecutor
//   type: torch              -> the torch section is translated to an exec section (a child
//                               process running the libtorch kernel runner) by
//                               TorchSectionToExecYaml (common/exec/torch_section.h, written
//                               by the torch executor), then run by an ExecExecutor. That function
//                               is linked only when the build defines
//                               FLEETSWEEP_HAVE_TORCH_SECTION.
#include <yaml-cpp/yaml.h>

#include "worker/executors/exec_executor.h"
#include "worker/executors/executor.h"

#ifdef FLEETSWEEP_HAVE_TORCH_SECTION
#include "common/exec/torch_section.h"  // StatusOr<std::string> TorchSectionToExecYaml(...)
#endif

namespace fleetsweep {
namespace {

StatusOr<std::string> SectionType(const std::string& executor_yaml) {
  try {
    YAML::Node root = YAML::Load(executor_yaml);
    if (!root.IsMap()) return Status::InvalidArgument("executor section: expected a map");
    YAML::Node type = root["type"];
    if (!type) return std::string("exec");
    if (!type.IsScalar()) return Status::InvalidArgument("executor section: type must be a name");
    return type.Scalar();
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("executor section: ") + e.what());
  }
}

}  // namespace

StatusOr<std::unique_ptr<Executor>> MakeExecutor(const std::string& executor_yaml) {
  FS_ASSIGN_OR_RETURN(std::string type, SectionType(executor_yaml));
  if (type == "exec") {
    FS_ASSIGN_OR_RETURN(std::unique_ptr<ExecExecutor> exec, ExecExecutor::Create(executor_yaml));
    return std::unique_ptr<Executor>(std::move(exec));
  }
  if (type == "torch") {
    // --- torch hook: the torch section becomes an exec section ---
#ifdef FLEETSWEEP_HAVE_TORCH_SECTION
    FS_ASSIGN_OR_RETURN(std::string exec_yaml, TorchSectionToExecYaml(executor_yaml));
    FS_ASSIGN_OR_RETURN(std::unique_ptr<ExecExecutor> exec, ExecExecutor::Create(exec_yaml));
    return std::unique_ptr<Executor>(std::move(exec));
#else
    return Status::InvalidArgument(
        "executor section: type 'torch' is not available: torch executor not built "
        "(configure with -DFLEETSWEEP_WITH_TORCH=ON)");
#endif
  }
  return Status::InvalidArgument("executor section: unknown type '" + type +
                                 "' (expected exec or torch)");
}

}  // namespace fleetsweep
