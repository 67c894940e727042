// CurveZMQ key helpers: key files, key generation and public-from-secret derivation.
// Key files hold one Z85 key (40 characters); lines starting with '#' are comments.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace fleetsweep {

// Reads every key line of a key file (Z85, 40 characters each, validated). Errors name the file
// (and the line for a malformed key). An empty list is not an error here.
StatusOr<std::vector<std::string>> ReadKeyLines(const std::string& path);
// Reads the first key line of a key file; no key at all is an error.
StatusOr<std::string> ReadKeyFile(const std::string& path);
// Decodes a Z85 key to its 32 bytes (the key must have been validated, e.g. by ReadKeyLines).
std::string DecodeZ85Key(const std::string& z85);
// Derives the Z85 public key from a Z85 secret key.
StatusOr<std::string> PublicKeyFromSecret(const std::string& secret_z85);
// Writes PREFIX.key (secret, mode 0600) and PREFIX.pub (public). Returns the public key.
StatusOr<std::string> GenerateKeyPair(const std::string& prefix);

}  // namespace fleetsweep
