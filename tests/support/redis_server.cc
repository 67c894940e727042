#include "tests/support/redis_server.h"

#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "tests/support/free_port.h"

namespace fleetsweep::testing {
namespace {

using Clock = std::chrono::steady_clock;

bool IsExecutable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

// Quotes a value for redis.conf (double quotes, backslash escapes).
std::string Quote(const std::string& v) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

std::string ExitText(int wstatus) {
  if (WIFEXITED(wstatus)) return "exited with status " + std::to_string(WEXITSTATUS(wstatus));
  if (WIFSIGNALED(wstatus)) return "killed by signal " + std::to_string(WTERMSIG(wstatus));
  return "stopped";
}

}  // namespace

RedisServer::RedisServer(RedisServerOptions options) : options_(std::move(options)) {}

RedisServer::~RedisServer() {
  if (running()) Kill();
}

StatusOr<std::string> RedisServer::FindBinary() {
  const char* env = std::getenv("FLEETSWEEP_REDIS_SERVER");
  if (env != nullptr && *env != '\0') {
    if (IsExecutable(env)) return std::string(env);
    return Status::NotFound(std::string("FLEETSWEEP_REDIS_SERVER=") + env +
                            " is not an executable file");
  }
  if (IsExecutable("/usr/bin/redis-server")) return std::string("/usr/bin/redis-server");
  const char* path = std::getenv("PATH");
  std::stringstream ss(path != nullptr ? path : "");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (!dir.empty() && IsExecutable(dir + "/redis-server")) return dir + "/redis-server";
  }
  return Status::NotFound(
      "redis-server not found (install the Debian package redis-server, or set "
      "FLEETSWEEP_REDIS_SERVER); skipping tests that need a real Redis");
}

std::string RedisServer::url() const {
  std::string auth;
  if (!options_.password.empty()) auth = options_.username + ":" + options_.password + "@";
  return "redis://" + auth + "127.0.0.1:" + std::to_string(port_);
}

std::string RedisServer::url_without_credentials() const {
  return "redis://127.0.0.1:" + std::to_string(port_);
}

std::string RedisServer::dir() const { return dir_ ? dir_->path() : std::string(); }

std::string RedisServer::LogTail(size_t max_bytes) const {
  if (!dir_) return "";
  std::ifstream in(dir_->Join("redis.log"), std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (all.size() > max_bytes) all = all.substr(all.size() - max_bytes);
  return all;
}

Status RedisServer::WriteConfig() const {
  std::ofstream out(dir_->Join("redis.conf"), std::ios::trunc);
  out << "port " << port_ << "\n"
      << "bind 127.0.0.1\n"
      << "protected-mode no\n"
      << "daemonize no\n"
      << "dir " << Quote(dir_->path()) << "\n"
      << "logfile " << Quote(dir_->Join("redis.log")) << "\n"
      << "save \"\"\n"
      << "appendonly " << (options_.appendonly ? "yes" : "no") << "\n"
      << "appendfsync always\n";
  if (!options_.password.empty()) {
    if (options_.username.empty()) {
      out << "requirepass " << Quote(options_.password) << "\n";
    } else {
      out << "user default off\n"
          << "user " << options_.username << " on >" << options_.password << " ~* &* +@all\n";
    }
  }
  out.close();
  if (!out) return Status::Internal("cannot write " + dir_->Join("redis.conf"));
  return Status::Ok();
}

Status RedisServer::Spawn() {
  std::string conf = dir_->Join("redis.conf");
  std::string out_path = dir_->Join("redis.stdout");
  // Everything the child needs is prepared before fork (only async-signal-safe calls after it).
  std::vector<char*> argv = {const_cast<char*>(binary_.c_str()), const_cast<char*>(conf.c_str()),
                             nullptr};
  pid_t pid = ::fork();
  if (pid < 0) return Status::Internal(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (out >= 0) {
      ::dup2(out, 1);
      ::dup2(out, 2);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  pid_ = pid;
  return Status::Ok();
}

Status RedisServer::Probe() const {
  timeval tv{0, 500 * 1000};
  redisContext* c = redisConnectWithTimeout("127.0.0.1", port_, tv);
  if (c == nullptr) return Status::Unavailable("out of memory");
  if (c->err != 0) {
    Status s = Status::Unavailable(c->errstr);
    redisFree(c);
    return s;
  }
  redisSetTimeout(c, tv);
  if (!options_.password.empty()) {
    redisReply* r = nullptr;
    if (options_.username.empty()) {
      r = static_cast<redisReply*>(redisCommand(c, "AUTH %s", options_.password.c_str()));
    } else {
      r = static_cast<redisReply*>(
          redisCommand(c, "AUTH %s %s", options_.username.c_str(), options_.password.c_str()));
    }
    if (r != nullptr) freeReplyObject(r);
  }
  redisReply* r = static_cast<redisReply*>(redisCommand(c, "PING"));
  Status s = Status::Unavailable("no reply to PING");
  if (r != nullptr) {
    std::string text(r->str != nullptr ? r->str : "", r->str != nullptr ? r->len : 0);
    if (r->type == REDIS_REPLY_STATUS && text == "PONG") {
      s = Status::Ok();
    } else {
      s = Status::Unavailable("PING answered " + text);
    }
    freeReplyObject(r);
  }
  redisFree(c);
  return s;
}

Status RedisServer::WaitReady() {
  auto deadline = Clock::now() + std::chrono::milliseconds(options_.startup_timeout_ms);
  Status last = Status::Unavailable("not probed yet");
  while (true) {
    int wstatus = 0;
    pid_t r = ::waitpid(pid_, &wstatus, WNOHANG);
    if (r == pid_) {
      pid_ = -1;
      return Status::Unavailable("redis-server on port " + std::to_string(port_) + " " +
                                 ExitText(wstatus) + " during startup; log tail:\n" + LogTail());
    }
    last = Probe();
    if (last.ok()) return Status::Ok();
    if (Clock::now() >= deadline) break;
    // Polling interval while the server boots; correctness never depends on it.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Kill();
  return Status::Unavailable("redis-server on port " + std::to_string(port_) +
                             " did not answer PING within " +
                             std::to_string(options_.startup_timeout_ms) +
                             " ms (last: " + last.message() + "); log tail:\n" + LogTail());
}

Status RedisServer::Start() {
  if (running()) return Status::FailedPrecondition("redis-server already running");
  if (binary_.empty()) {
    FS_ASSIGN_OR_RETURN(binary_, FindBinary());
  }
  if (!dir_) {
    FS_ASSIGN_OR_RETURN(TempDir d, TempDir::Create("fleetsweep-redis"));
    dir_.emplace(std::move(d));
  }
  const bool fixed_port = port_ != 0;  // a restart keeps its port
  Status s;
  for (int tries = 0; tries < (fixed_port ? 1 : 5); ++tries) {
    if (!fixed_port) {
      FS_ASSIGN_OR_RETURN(port_, FreePort());
    }
    FS_RETURN_IF_ERROR(WriteConfig());
    FS_RETURN_IF_ERROR(Spawn());
    s = WaitReady();
    if (s.ok()) return s;
    // Lost the race for the port with another process: try another one.
    if (s.message().find("Address already in use") == std::string::npos) break;
  }
  return s;
}

void RedisServer::Reap(int timeout_ms) {
  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (pid_ > 0) {
    int wstatus = 0;
    pid_t r = ::waitpid(pid_, &wstatus, WNOHANG);
    if (r == pid_ || (r < 0 && errno == ECHILD)) {
      pid_ = -1;
      return;
    }
    if (Clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &wstatus, 0);
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

Status RedisServer::Stop() {
  if (!running()) return Status::Ok();
  ::kill(pid_, SIGTERM);
  Reap(10000);
  return Status::Ok();
}

Status RedisServer::Kill() {
  if (!running()) return Status::Ok();
  ::kill(pid_, SIGKILL);
  Reap(10000);
  return Status::Ok();
}

Status RedisServer::Restart() {
  FS_RETURN_IF_ERROR(Stop());
  return Start();
}

}  // namespace fleetsweep::testing
