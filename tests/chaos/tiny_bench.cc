// fleetsweep-tiny-bench: the smallest benchmark that speaks the stdout protocol, for the chaos
// test and the orchestration benchmark (bench/orchestration_bench.py).
//
//   fleetsweep-tiny-bench [--value V] [--ledger FILE] [--sleep-ms MS] [--garbage-bytes N]
//                         [--escape-sleep ARG] [--noise F]
//
// Prints one sample line {"type":"sample","metric":"time_ms","value":V}. With --ledger it first
// appends "<FLEETSWEEP_ATTEMPT_ID>\n" to FILE with one write() on an O_APPEND descriptor, so
// concurrent executions never interleave lines: the file is the benchmark's own record of what
// ran. --sleep-ms sleeps before printing (1-second executions); --garbage-bytes prints that many
// bytes of non-protocol noise first (bad-input tests). Exits 2 on a bad argument or an unwritable
// ledger.
//
// With FLEETSWEEP_SESSION=persistent it serves a persistent session (docs/executors.md
// "Sessions"): prints {"fleetsweep":"ready"}, answers each `prepare` line with `prepared` and
// each `run` line with the execution (ledger line = the run's attempt id, sleep, one sample whose
// value is the request's param VALUE when given, else --value) and `end`; exits at end of stdin.
// With --escape-sleep ARG the session's first run leaves a process that escapes the process
// group: a double fork whose grandchild calls setsid() and execs `sleep ARG` (the chaos test
// checks that the worker kills it once the session is gone). --noise F multiplies the sample by
// exp(F * z), z standard normal drawn from a hash of the attempt id (the same attempt id gives
// the same value): log-normal execution noise for the aggregation benches.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "common/stats/rng.h"

namespace {

// The text of "key":"..." in a request line the worker wrote (values are canonical texts without
// quotes or escapes: parameter values, attempt ids); "" when absent.
std::string Field(const std::string& line, const std::string& key) {
  std::string pat = "\"" + key + "\":\"";
  size_t at = line.find(pat);
  if (at == std::string::npos) return "";
  at += pat.size();
  size_t end = line.find('"', at);
  return end == std::string::npos ? "" : line.substr(at, end - at);
}

bool AppendLedger(const char* ledger, const std::string& id) {
  if (ledger == nullptr) return true;
  std::string line = id + "\n";
  int fd = ::open(ledger, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  bool ok = fd >= 0 && ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  if (!ok)
    std::fprintf(stderr, "tiny-bench: cannot append to %s: %s\n", ledger, std::strerror(errno));
  if (fd >= 0) ::close(fd);
  return ok;
}

// Double fork: the grandchild calls setsid() and execs `sleep arg`; the child exits at once, so
// the grandchild is re-parented (to the worker, a child subreaper).
void Escape(const char* arg) {
  pid_t child = fork();
  if (child == 0) {
    if (fork() == 0) {
      setsid();
      int null = ::open("/dev/null", O_RDWR);
      if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
      }
      execlp("sleep", "sleep", arg, static_cast<char*>(nullptr));
      _exit(127);
    }
    _exit(0);
  }
  if (child > 0) waitpid(child, nullptr, 0);
}

double g_noise = 0;  // --noise

// `v` times exp(g_noise * z), z a standard normal drawn from a hash (FNV-1a) of `id`.
double Noisy(double v, const std::string& id) {
  if (g_noise == 0) return v;
  uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : id) h = (h ^ c) * 1099511628211ULL;
  return v * std::exp(g_noise * fleetsweep::stats::Rng(h).StandardNormal());
}

int Serve(double value, const char* ledger, long sleep_ms, const char* escape_sleep) {
  std::printf("{\"fleetsweep\":\"ready\",\"run_after_prepare\":true}\n");
  std::fflush(stdout);
  char* buf = nullptr;
  size_t cap = 0;
  std::string prepared_value;  // VALUE of the prepared execution (the run line names no params)
  // The timed part of execution `id`: ledger, sample, end. False when the ledger cannot be written.
  auto run = [&](const std::string& id, const std::string& line) {
    if (!AppendLedger(ledger, id)) return false;
    if (escape_sleep != nullptr) {
      Escape(escape_sleep);
      escape_sleep = nullptr;  // once per session
    }
    if (sleep_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
    std::string v = Field(line, "VALUE");
    if (v.empty()) v = prepared_value;
    std::printf("{\"type\":\"sample\",\"metric\":\"time_ms\",\"value\":%.17g}\n",
                Noisy(v.empty() ? value : std::strtod(v.c_str(), nullptr), id));
    std::printf("{\"fleetsweep\":\"end\",\"attempt_id\":\"%s\"}\n", id.c_str());
    return true;
  };
  while (getline(&buf, &cap, stdin) > 0) {
    std::string line(buf);
    std::string id = Field(line, "attempt_id");
    if (line.find("\"prepare\"") != std::string::npos) {
      prepared_value = Field(line, "VALUE");
      std::printf("{\"fleetsweep\":\"prepared\",\"attempt_id\":\"%s\"}\n", id.c_str());
      // "run": true: run at once (the ready line offered run_after_prepare).
      if (line.find("\"run\":true") != std::string::npos && !run(id, line)) return 2;
    } else if (!run(id, line)) {
      return 2;
    }
    std::fflush(stdout);
  }
  std::free(buf);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  double value = 1.0;
  const char* ledger = nullptr;
  long sleep_ms = 0;
  long long garbage = 0;
  const char* escape_sleep = nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "tiny-bench: %s needs a value\n", a.c_str());
      return 2;
    }
    const char* v = argv[++i];
    if (a == "--value") {
      value = std::strtod(v, nullptr);
    } else if (a == "--ledger") {
      ledger = v;
    } else if (a == "--sleep-ms") {
      sleep_ms = std::strtol(v, nullptr, 10);
    } else if (a == "--escape-sleep") {
      escape_sleep = v;
    } else if (a == "--noise") {
      char* end = nullptr;
      g_noise = std::strtod(v, &end);
      if (end == v || *end != '\0' || !(g_noise >= 0) || !std::isfinite(g_noise)) {
        std::fprintf(stderr, "tiny-bench: --noise needs a finite number >= 0, got '%s'\n", v);
        return 2;
      }
    } else if (a == "--garbage-bytes") {
      garbage = std::strtoll(v, nullptr, 10);
    } else {
      std::fprintf(stderr, "tiny-bench: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  const char* session = std::getenv("FLEETSWEEP_SESSION");
  if (session != nullptr && std::string(session) == "persistent") {
    return Serve(value, ledger, sleep_ms, escape_sleep);
  }
  if (ledger != nullptr) {
    const char* id = std::getenv("FLEETSWEEP_ATTEMPT_ID");
    std::string line = std::string(id != nullptr ? id : "-") + "\n";
    int fd = ::open(ledger, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || ::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
      std::fprintf(stderr, "tiny-bench: cannot append to %s: %s\n", ledger, std::strerror(errno));
      return 2;
    }
    ::close(fd);
  }
  if (garbage > 0) {
    std::string chunk(64 * 1024, 'x');
    for (size_t k = 0; k < chunk.size(); k += 97) chunk[k] = '\n';
    for (long long left = garbage; left > 0;) {
      size_t n =
          left < static_cast<long long>(chunk.size()) ? static_cast<size_t>(left) : chunk.size();
      if (std::fwrite(chunk.data(), 1, n, stdout) != n) break;
      left -= static_cast<long long>(n);
    }
    std::fputs("\n", stdout);
  }
  if (sleep_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
  const char* attempt = std::getenv("FLEETSWEEP_ATTEMPT_ID");
  std::printf("{\"type\":\"sample\",\"metric\":\"time_ms\",\"value\":%.17g}\n",
              Noisy(value, attempt != nullptr ? attempt : ""));
  return 0;
}
