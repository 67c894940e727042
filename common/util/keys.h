// CurveZMQ key helpers: key files, key generation and public-from-secret derivation.
// Key files hold one Z85 key (40 characters); lines starting with '#' are comments.
#pragma once

#include <string>

#include "common/status.h"

namespace fleetsweep {

// Reads the first key line of a key file. Errors name the file (and line for a malformed key).
StatusOr<std::string> ReadKeyFile(const std::string& path);
// Derives the Z85 public key from a Z85 secret key.
StatusOr<std::string> PublicKeyFromSecret(const std::string& secret_z85);
// Writes PREFIX.key (secret, mode 0600) and PREFIX.pub (public). Returns the public key.
StatusOr<std::string> GenerateKeyPair(const std::string& prefix);

}  // namespace fleetsweep
