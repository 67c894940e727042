#include "common/store/redis_url.h"

#include <cstdlib>

namespace fleetsweep {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool PercentDecode(const std::string& in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out->push_back(in[i]);
      continue;
    }
    if (i + 2 >= in.size()) return false;
    int hi = HexDigit(in[i + 1]), lo = HexDigit(in[i + 2]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return true;
}

bool ParseInt(const std::string& s, int lo, int hi, int* out) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  int v = std::atoi(s.c_str());
  if (v < lo || v > hi) return false;
  *out = v;
  return true;
}

}  // namespace

StatusOr<RedisUrl> ParseRedisUrl(const std::string& url) {
  const std::string scheme = "redis://";
  if (url.rfind("rediss://", 0) == 0) {
    return Status::InvalidArgument("redis URL: TLS (rediss://) is not supported");
  }
  if (url.rfind(scheme, 0) != 0) {
    return Status::InvalidArgument("redis URL must start with redis:// (got a different scheme)");
  }
  std::string rest = url.substr(scheme.size());
  if (rest.find('?') != std::string::npos || rest.find('#') != std::string::npos) {
    return Status::InvalidArgument("redis URL: query parameters are not supported");
  }
  RedisUrl out;
  // Credentials end at the LAST '@' (an unencoded '@' in a password stays in the password).
  size_t at = rest.rfind('@');
  if (at != std::string::npos) {
    std::string userinfo = rest.substr(0, at);
    rest = rest.substr(at + 1);
    size_t colon = userinfo.find(':');
    std::string user = userinfo.substr(0, colon);
    std::string pw = colon == std::string::npos ? "" : userinfo.substr(colon + 1);
    if (!PercentDecode(user, &out.user) || !PercentDecode(pw, &out.password)) {
      return Status::InvalidArgument("redis URL: bad percent-encoding in the credentials");
    }
  }
  std::string hostport = rest, path;
  size_t slash = rest.find('/');
  if (slash != std::string::npos) {
    hostport = rest.substr(0, slash);
    path = rest.substr(slash + 1);
  }
  std::string port_text;
  if (!hostport.empty() && hostport[0] == '[') {
    size_t close = hostport.find(']');
    if (close == std::string::npos)
      return Status::InvalidArgument("redis URL: unclosed '[' in host");
    out.host = hostport.substr(1, close - 1);
    std::string after = hostport.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return Status::InvalidArgument("redis URL: junk after ']' in host");
      port_text = after.substr(1);
      if (port_text.empty()) return Status::InvalidArgument("redis URL: empty port");
    }
  } else {
    size_t colon = hostport.find(':');
    out.host = hostport.substr(0, colon);
    if (colon != std::string::npos) {
      port_text = hostport.substr(colon + 1);
      if (port_text.empty()) return Status::InvalidArgument("redis URL: empty port");
    }
  }
  if (out.host.empty()) return Status::InvalidArgument("redis URL: missing host");
  if (!port_text.empty() && !ParseInt(port_text, 1, 65535, &out.port)) {
    return Status::InvalidArgument("redis URL: bad port '" + port_text + "' (want 1..65535)");
  }
  if (!path.empty() && !ParseInt(path, 0, 1 << 20, &out.db)) {
    return Status::InvalidArgument("redis URL: bad database '/" + path +
                                   "' (want a number, e.g. /0)");
  }
  return out;
}

RedisUrl WithEnvPassword(RedisUrl url) {
  if (!url.password.empty()) return url;
  const char* env = std::getenv("FLEETSWEEP_REDIS_PASSWORD");
  if (env != nullptr && *env != '\0') url.password = env;
  return url;
}

std::string RedisEndpoint(const RedisUrl& url) {
  bool v6 = url.host.find(':') != std::string::npos;
  return (v6 ? "[" + url.host + "]" : url.host) + ":" + std::to_string(url.port);
}

std::string DescribeRedisUrl(const RedisUrl& url) {
  std::string creds;
  if (!url.password.empty()) {
    creds = url.user + ":***@";
  } else if (!url.user.empty()) {
    creds = url.user + "@";
  }
  return "redis://" + creds + RedisEndpoint(url) + "/" + std::to_string(url.db);
}

}  // namespace fleetsweep
