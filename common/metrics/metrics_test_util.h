// Test helpers for common/metrics tests: a loopback HTTP GET over plain sockets, a parser of
// the Prometheus text exposition, and `promtool check metrics`. Test-only; not thread-safe
// beyond what each function says (each is self-contained).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <prometheus/registry.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/metrics/coordinator_metrics.h"
#include "common/metrics/exposer.h"
#include "common/metrics/labels.h"
#include "common/metrics/worker_metrics.h"
#include "gtest/gtest.h"

namespace fleetsweep {
namespace metrics_testing {

struct HttpResponse {
  int status = 0;
  std::string body;
};

// GET http://127.0.0.1:PORT/PATH with HTTP/1.0 (the server closes the connection at the end).
inline std::optional<HttpResponse> HttpGet(int port, const std::string& path) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return std::nullopt;
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return std::nullopt;
  }
  const std::string req = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
  if (send(fd, req.data(), req.size(), 0) != static_cast<ssize_t>(req.size())) {
    close(fd);
    return std::nullopt;
  }
  std::string raw;
  char buf[8192];
  ssize_t n;
  while ((n = recv(fd, buf, sizeof buf, 0)) > 0) raw.append(buf, static_cast<size_t>(n));
  close(fd);
  const size_t header_end = raw.find("\r\n\r\n");
  if (raw.compare(0, 5, "HTTP/") != 0 || header_end == std::string::npos) return std::nullopt;
  HttpResponse r;
  r.status = std::atoi(raw.c_str() + raw.find(' ') + 1);
  r.body = raw.substr(header_end + 4);
  return r;
}

using LabelMap = std::map<std::string, std::string>;

// Parses `name{a="x",b="y"} value` lines (no escapes needed for the values used here).
struct SampleLine {
  std::string name;
  LabelMap labels;
  double value = 0;
};

inline std::vector<SampleLine> ParseExposition(const std::string& text) {
  std::vector<SampleLine> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    SampleLine s;
    size_t pos = line.find_first_of("{ ");
    s.name = line.substr(0, pos);
    if (line[pos] == '{') {
      size_t end = line.find("} ", pos);
      std::string body = line.substr(pos + 1, end - pos - 1);
      size_t i = 0;
      while (i < body.size()) {
        size_t eq = body.find("=\"", i);
        size_t close_quote = body.find('"', eq + 2);
        s.labels[body.substr(i, eq - i)] = body.substr(eq + 2, close_quote - eq - 2);
        i = close_quote + 1;
        if (i < body.size() && body[i] == ',') ++i;
      }
      pos = end + 1;
    }
    s.value = std::strtod(line.c_str() + pos + 1, nullptr);
    out.push_back(s);
  }
  return out;
}

// The value of the series `name` whose labels include all of `want`, or nullopt.
inline std::optional<double> Value(const std::string& text, const std::string& name,
                                   const LabelMap& want) {
  for (const SampleLine& s : ParseExposition(text)) {
    if (s.name != name) continue;
    bool match = true;
    for (const auto& [k, v] : want) {
      auto it = s.labels.find(k);
      if (it == s.labels.end() || it->second != v) match = false;
    }
    if (match) return s.value;
  }
  return std::nullopt;
}

inline int CountSeries(const std::string& text, const std::string& name) {
  int n = 0;
  for (const SampleLine& s : ParseExposition(text)) n += s.name == name;
  return n;
}

inline std::string Scrape(const MetricsExposer& exposer) {
  auto r = HttpGet(exposer.port(), "/metrics");
  EXPECT_TRUE(r.has_value()) << "no HTTP answer from port " << exposer.port();
  if (!r) return "";
  EXPECT_EQ(r->status, 200);
  return r->body;
}

inline std::string FindPromtool() {
  if (const char* env = std::getenv("PROMTOOL")) return env;
  for (const char* p : {"/usr/bin/promtool", "/usr/local/bin/promtool"}) {
    if (access(p, X_OK) == 0) return p;
  }
  return "";
}

// Runs `promtool check metrics` on `text`; returns (exit status, output).
inline std::pair<int, std::string> PromtoolCheck(const std::string& promtool,
                                                 const std::string& text) {
  char path[] = "/tmp/fleetsweep_metrics_XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  const std::string cmd = promtool + " check metrics < " + path + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = pclose(p);
  unlink(path);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

inline std::unique_ptr<MetricsExposer> StartLoopback() {
  auto e = MetricsExposer::Start(0, "127.0.0.1");
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  if (!e.ok()) return nullptr;
  return std::move(e).value();
}

}  // namespace metrics_testing
}  // namespace fleetsweep
