// The coordinator's CurveZMQ options from its flags (fleetsweep-coordinator: --insecure,
// --curve-secret-key, --authorized-keys).
#pragma once

#include <string>

#include "common/status.h"
#include "coordinator/server/server.h"

namespace fleetsweep {

// insecure: CurveZMQ off (plain TCP; the caller warns). Otherwise both files are required and the
// secret key is read now; the authorised keys are read when the server starts
// (ZapAuthenticator::Start). Errors: kInvalidArgument naming the missing flags, or the key file
// that cannot be read or holds no valid key (keys.h).
StatusOr<CurveServerOptions> CurveFromFlags(bool insecure, const std::string& secret_key_file,
                                            const std::string& authorized_keys_file);

}  // namespace fleetsweep
