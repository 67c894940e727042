#include "coordinator/server/curve_flags.h"

#include "common/util/keys.h"

namespace fleetsweep {

StatusOr<CurveServerOptions> CurveFromFlags(bool insecure, const std::string& secret_key_file,
                                            const std::string& authorized_keys_file) {
  CurveServerOptions curve;
  if (insecure) return curve;
  if (secret_key_file.empty() || authorized_keys_file.empty()) {
    return Status::InvalidArgument(
        "CurveZMQ needs --curve-secret-key and --authorized-keys (or --insecure for plain TCP)");
  }
  FS_ASSIGN_OR_RETURN(curve.secret_key_z85, ReadKeyFile(secret_key_file));
  curve.enabled = true;
  curve.authorized_keys_file = authorized_keys_file;
  return curve;
}

}  // namespace fleetsweep
