#include "common/util/keys.h"

#include <sys/stat.h>
#include <zmq.h>

#include <fstream>

namespace fleetsweep {

static std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

StatusOr<std::vector<std::string>> ReadKeyLines(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::InvalidArgument(path + ": cannot read key file");
  std::vector<std::string> keys;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    line = Trim(line);
    if (line.empty() || line[0] == '#') continue;
    uint8_t bin[32];
    if (line.size() != 40 || zmq_z85_decode(bin, line.c_str()) == nullptr) {
      return Status::InvalidArgument(path + ":" + std::to_string(n) +
                                     ": expected a 40-character Z85 CurveZMQ key");
    }
    keys.push_back(line);
  }
  return keys;
}

StatusOr<std::string> ReadKeyFile(const std::string& path) {
  FS_ASSIGN_OR_RETURN(std::vector<std::string> keys, ReadKeyLines(path));
  if (keys.empty()) return Status::InvalidArgument(path + ": no key found");
  return keys.front();
}

std::string DecodeZ85Key(const std::string& z85) {
  uint8_t bin[32];
  if (z85.size() != 40 || zmq_z85_decode(bin, z85.c_str()) == nullptr) return "";
  return std::string(reinterpret_cast<char*>(bin), 32);
}

StatusOr<std::string> PublicKeyFromSecret(const std::string& secret_z85) {
  char pub[41] = {0};
  if (zmq_curve_public(pub, secret_z85.c_str()) != 0) {
    return Status::InvalidArgument("cannot derive a public key (is libzmq built with CURVE?)");
  }
  return std::string(pub);
}

StatusOr<std::string> GenerateKeyPair(const std::string& prefix) {
  char pub[41] = {0}, sec[41] = {0};
  if (zmq_curve_keypair(pub, sec) != 0) {
    return Status::Internal("zmq_curve_keypair failed (libzmq without CURVE support?)");
  }
  {
    std::ofstream out(prefix + ".key");
    if (!out) return Status::InvalidArgument(prefix + ".key: cannot write");
    out << "# fleetsweep CurveZMQ SECRET key: keep private\n" << sec << "\n";
  }
  chmod((prefix + ".key").c_str(), 0600);
  std::ofstream out(prefix + ".pub");
  if (!out) return Status::InvalidArgument(prefix + ".pub: cannot write");
  out << "# fleetsweep CurveZMQ public key\n" << pub << "\n";
  return std::string(pub);
}

}  // namespace fleetsweep
