#include "common/store/redis_store.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <thread>

#include "common/store/store_checks.h"
#include "common/util/sigpipe_guard.h"

namespace fleetsweep {
namespace {

using Clock = std::chrono::steady_clock;

// Appends the next event as stream entry "<n>-0" where n = XLEN + 1 (1-based index).
constexpr char kAppendEventLua[] =
    "local n = redis.call('XLEN', KEYS[1]) + 1\n"
    "redis.call('XADD', KEYS[1], n .. '-0', 'e', ARGV[1])\n"
    "return n\n";

timeval Millis(int ms) {
  timeval tv{};
  tv.tv_sec = ms / 1000;
  tv.tv_usec = (ms % 1000) * 1000;
  return tv;
}

std::string LowerFirst(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// The first error reply in `r` (EXEC arrays are searched one level deep), or null.
const redisReply* FindError(const redisReply* r) {
  if (r->type == REDIS_REPLY_ERROR) return r;
  if (r->type == REDIS_REPLY_ARRAY) {
    for (size_t i = 0; i < r->elements; ++i) {
      if (r->element[i] != nullptr && r->element[i]->type == REDIS_REPLY_ERROR) {
        return r->element[i];
      }
    }
  }
  return nullptr;
}

}  // namespace

void RedisStore::ReplyDeleter::operator()(redisReply* r) const { freeReplyObject(r); }

std::string RedisStore::Text(const redisReply* r) {
  return r->str != nullptr ? std::string(r->str, r->len) : std::string();
}

StatusOr<std::unique_ptr<RedisStore>> RedisStore::Open(const std::string& url,
                                                       RedisStoreOptions options) {
  FS_ASSIGN_OR_RETURN(RedisUrl parsed, ParseRedisUrl(url));
  return Open(WithEnvPassword(parsed), options);
}

StatusOr<std::unique_ptr<RedisStore>> RedisStore::Open(const RedisUrl& url,
                                                       RedisStoreOptions options) {
  if (options.batch_size < 1) options.batch_size = 1;
  if (options.scan_count < 1) options.scan_count = 1;
  std::unique_ptr<RedisStore> store(new RedisStore(url, options));
  FS_ASSIGN_OR_RETURN(auto replies, store->Run({{"PING"}}, Retry::kIdempotent));
  (void)replies;
  return store;
}

RedisStore::~RedisStore() { Disconnect(); }

Status RedisStore::Error(StatusCode code, const std::string& what) const {
  return Status(code, "redis " + RedisEndpoint(url_) + ": " + what);
}

void RedisStore::Disconnect() {
  if (ctx_ != nullptr) redisFree(ctx_);
  ctx_ = nullptr;
}

Status RedisStore::Connect() {
  Disconnect();
  redisContext* c =
      redisConnectWithTimeout(url_.host.c_str(), url_.port, Millis(options_.connect_timeout_ms));
  if (c == nullptr) return Error(StatusCode::kUnavailable, "cannot allocate a connection");
  if (c->err != 0) {
    std::string why = LowerFirst(c->errstr);
    redisFree(c);
    return Error(StatusCode::kUnavailable, why);
  }
  redisSetTimeout(c, Millis(options_.command_timeout_ms));
  redisEnableKeepAlive(c);
  ctx_ = c;
  ++connections_made_;

  std::vector<Args> hello;
  if (!url_.password.empty()) {
    hello.push_back(url_.user.empty() ? Args{"AUTH", url_.password}
                                      : Args{"AUTH", url_.user, url_.password});
  }
  if (url_.db != 0) hello.push_back({"SELECT", std::to_string(url_.db)});
  hello.push_back({"PING"});
  std::vector<Reply> replies;
  Failure failure;
  Status s = Pipeline(hello, &replies, &failure);
  if (s.ok()) return s;
  Disconnect();
  if (s.code() == StatusCode::kUnavailable) return s;
  const std::string& m = s.message();
  const std::string who = url_.user.empty() ? "the default user" : "user '" + url_.user + "'";
  if (m.find("NOAUTH") != std::string::npos) {
    return Error(StatusCode::kFailedPrecondition,
                 "the server requires a password; give it in the URL (redis://:PASSWORD@host:port"
                 ") or in FLEETSWEEP_REDIS_PASSWORD");
  }
  if (m.find("WRONGPASS") != std::string::npos || m.find("invalid password") != std::string::npos ||
      m.find("invalid username-password") != std::string::npos) {
    return Error(StatusCode::kFailedPrecondition,
                 "authentication failed for " + who + ": wrong password or user disabled");
  }
  if (m.find("AUTH") != std::string::npos && m.find("without any password") != std::string::npos) {
    return Error(StatusCode::kFailedPrecondition,
                 "a password was given but the server has none configured for " + who);
  }
  return Error(StatusCode::kFailedPrecondition, "connection setup failed: " + m);
}

Status RedisStore::Pipeline(const std::vector<Args>& cmds, std::vector<Reply>* replies,
                            Failure* failure) {
  ScopedSigpipeGuard no_sigpipe;
  replies->clear();
  auto io_error = [&]() {
    std::string why = LowerFirst(ctx_->errstr);
    const int err = errno;
    if (ctx_->err == REDIS_ERR_IO && (err == EAGAIN || err == EWOULDBLOCK ||
                                      why.find("temporarily unavailable") != std::string::npos)) {
      failure->timed_out = true;
      why = "no reply within " + std::to_string(options_.command_timeout_ms) + " ms";
    } else if (ctx_->err == REDIS_ERR_EOF) {
      why = "connection closed by the server";
    }
    Disconnect();
    return Error(StatusCode::kUnavailable, why);
  };
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const Args& cmd : cmds) {
    argv.clear();
    lens.clear();
    for (const std::string& a : cmd) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    if (redisAppendCommandArgv(ctx_, static_cast<int>(argv.size()), argv.data(), lens.data()) !=
        REDIS_OK) {
      return io_error();
    }
  }
  for (size_t i = 0; i < cmds.size(); ++i) {
    void* raw = nullptr;
    if (redisGetReply(ctx_, &raw) != REDIS_OK || raw == nullptr) return io_error();
    replies->emplace_back(static_cast<redisReply*>(raw));
  }
  for (size_t i = 0; i < replies->size(); ++i) {
    const redisReply* err = FindError((*replies)[i].get());
    if (err == nullptr) continue;
    std::string text = Text(err);
    if (StartsWith(text, "LOADING")) {
      failure->not_executed = true;
      return Error(StatusCode::kUnavailable, "the server is still loading its data set");
    }
    if (StartsWith(text, "NOAUTH") || StartsWith(text, "WRONGPASS") || StartsWith(text, "NOPERM")) {
      return Error(StatusCode::kFailedPrecondition, cmds[i][0] + ": " + text);
    }
    return Error(StatusCode::kInternal, cmds[i][0] + ": " + text);
  }
  return Status::Ok();
}

StatusOr<std::vector<RedisStore::Reply>> RedisStore::Run(const std::vector<Args>& cmds,
                                                         Retry retry) {
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::milliseconds(options_.retry_budget_ms);
  int backoff_ms = 25;
  while (true) {
    Status s;
    bool fresh = false;
    if (ctx_ == nullptr) {
      s = Connect();
      fresh = true;
    }
    if (s.ok()) {
      std::vector<Reply> replies;
      Failure failure;
      s = Pipeline(cmds, &replies, &failure);
      if (s.ok()) return replies;
      if (s.code() != StatusCode::kUnavailable || failure.timed_out) return s;
      const bool may_retry = failure.not_executed || retry == Retry::kIdempotent || !fresh;
      if (!may_retry) return s;
    } else if (s.code() != StatusCode::kUnavailable) {
      return s;
    }
    auto now = Clock::now();
    if (now + std::chrono::milliseconds(backoff_ms) > deadline) {
      auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(now - start).count();
      return Status(s.code(), s.message() + " (gave up after " + std::to_string(spent) + " ms)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(backoff_ms));
    backoff_ms = std::min(backoff_ms * 2, 400);
  }
}

Status RedisStore::PutSpec(const std::string& sweep, const std::string& spec_yaml) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  const std::string key = SpecKey(sweep);
  for (int round = 0; round < 3; ++round) {
    FS_ASSIGN_OR_RETURN(auto set, Run({{"SET", key, spec_yaml, "NX"}}, Retry::kIdempotent));
    if (set[0]->type == REDIS_REPLY_STATUS) return Status::Ok();
    FS_ASSIGN_OR_RETURN(auto get, Run({{"GET", key}}, Retry::kIdempotent));
    if (get[0]->type == REDIS_REPLY_NIL) continue;  // deleted in between: set again
    if (Text(get[0].get()) == spec_yaml) return Status::Ok();
    return Status::AlreadyExists("sweep '" + sweep + "' already has a different spec in " +
                                 Describe() +
                                 "; a resumed sweep must keep its spec (start a new sweep name to "
                                 "change it)");
  }
  return Error(StatusCode::kInternal, "spec of sweep '" + sweep + "' keeps disappearing");
}

StatusOr<std::optional<std::string>> RedisStore::GetSpec(const std::string& sweep) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  FS_ASSIGN_OR_RETURN(auto r, Run({{"GET", SpecKey(sweep)}}, Retry::kIdempotent));
  if (r[0]->type == REDIS_REPLY_NIL) return std::optional<std::string>();
  return std::optional<std::string>(Text(r[0].get()));
}

Status RedisStore::PutConfigs(const std::string& sweep,
                              const std::vector<v1::ConfigRecord>& configs) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  for (const auto& c : configs) FS_RETURN_IF_ERROR(CheckConfigRecord(c));
  if (configs.empty()) return Status::Ok();
  const std::string key = ConfigsKey(sweep);
  std::vector<Args> cmds;
  cmds.push_back({"MULTI"});
  for (size_t i = 0; i < configs.size(); i += options_.batch_size) {
    Args hset = {"HSET", key};
    size_t end = std::min(configs.size(), i + static_cast<size_t>(options_.batch_size));
    for (size_t j = i; j < end; ++j) {
      std::optional<v1::ConfigRecord> copy;
      hset.push_back(configs[j].config_key());
      hset.push_back(Sanitized(configs[j], &copy).SerializeAsString());
    }
    cmds.push_back(std::move(hset));
  }
  cmds.push_back({"EXEC"});
  FS_ASSIGN_OR_RETURN(auto r, Run(cmds, Retry::kIdempotent));
  if (r.back()->type != REDIS_REPLY_ARRAY) {
    return Error(StatusCode::kInternal, "PutConfigs transaction was not executed");
  }
  return Status::Ok();
}

StatusOr<std::vector<v1::ConfigRecord>> RedisStore::LoadConfigs(const std::string& sweep) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  const std::string key = ConfigsKey(sweep);
  FS_ASSIGN_OR_RETURN(auto fields, ScanHash(key));
  std::vector<v1::ConfigRecord> out(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!out[i].ParseFromString(fields[i].second)) {
      return Error(StatusCode::kDataLoss,
                   key + " field '" + fields[i].first + "': undecodable ConfigRecord");
    }
  }
  SortConfigs(&out);
  return out;
}

StatusOr<bool> RedisStore::PutAttempt(const std::string& sweep, const v1::Attempt& attempt) {
  FS_ASSIGN_OR_RETURN(std::vector<bool> fresh, PutBatch(sweep, {&attempt}, {}));
  return static_cast<bool>(fresh[0]);
}

StatusOr<std::vector<bool>> RedisStore::PutAttempts(const std::string& sweep,
                                                    const std::vector<v1::Attempt>& attempts,
                                                    const std::vector<std::string>& events) {
  std::vector<const v1::Attempt*> refs;
  refs.reserve(attempts.size());
  for (const v1::Attempt& a : attempts) refs.push_back(&a);
  return PutBatch(sweep, refs, events);
}

StatusOr<std::vector<bool>> RedisStore::PutBatch(const std::string& sweep,
                                                 const std::vector<const v1::Attempt*>& attempts,
                                                 const std::vector<std::string>& events) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  std::vector<Args> cmds;
  cmds.reserve(attempts.size() + events.size());
  for (const v1::Attempt* a : attempts) {
    FS_RETURN_IF_ERROR(CheckAttempt(*a));
    std::optional<v1::Attempt> copy;
    cmds.push_back(
        {"HSETNX", AttemptsKey(sweep), AttemptKey(*a), Sanitized(*a, &copy).SerializeAsString()});
  }
  for (const std::string& e : events) {
    cmds.push_back({"EVAL", kAppendEventLua, "1", EventsKey(sweep), e});
  }
  std::vector<bool> fresh;
  if (cmds.empty()) return fresh;
  FS_ASSIGN_OR_RETURN(auto r,
                      Run(cmds, events.empty() ? Retry::kIdempotent : Retry::kOnlyIfNotExecuted));
  for (size_t i = 0; i < attempts.size(); ++i) {
    if (r[i]->type != REDIS_REPLY_INTEGER) {
      return Error(StatusCode::kInternal, "HSETNX: not an integer");
    }
    fresh.push_back(r[i]->integer == 1);
  }
  return fresh;
}

Status RedisStore::ForEachAttempt(const std::string& sweep,
                                  const std::function<Status(const v1::Attempt&)>& visit) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  const std::string key = AttemptsKey(sweep);
  v1::Attempt a;
  return ScanFields(key, [&](const std::string& field, const std::string& bytes) {
    a.Clear();
    if (!a.ParseFromString(bytes)) {
      return Error(StatusCode::kDataLoss, key + " field '" + field + "': undecodable Attempt");
    }
    // PutAttempt never writes one: a NaN/Inf sample came around the checks and is not loaded.
    return SamplesAreFinite(a) ? visit(a) : Status::Ok();
  });
}

StatusOr<std::vector<v1::Attempt>> RedisStore::LoadAttempts(const std::string& sweep) {
  std::vector<v1::Attempt> out;
  FS_RETURN_IF_ERROR(ForEachAttempt(sweep, [&](const v1::Attempt& a) {
    out.push_back(a);
    return Status::Ok();
  }));
  return out;
}

StatusOr<int64_t> RedisStore::CountAttempts(const std::string& sweep) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  FS_ASSIGN_OR_RETURN(auto r, Run({{"HLEN", AttemptsKey(sweep)}}, Retry::kIdempotent));
  if (r[0]->type != REDIS_REPLY_INTEGER)
    return Error(StatusCode::kInternal, "HLEN: not an integer");
  return static_cast<int64_t>(r[0]->integer);
}

Status RedisStore::AppendEvent(const std::string& sweep, const std::string& event_json) {
  return PutBatch(sweep, {}, {event_json}).status();
}

StatusOr<std::vector<std::string>> RedisStore::ReadEvents(const std::string& sweep, int64_t from,
                                                          int64_t max) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  FS_RETURN_IF_ERROR(CheckEventRange(from, max));
  std::vector<std::string> out;
  if (max == 0 || from >= INT64_MAX - 1) return out;
  FS_ASSIGN_OR_RETURN(auto r, Run({{"XRANGE", EventsKey(sweep), std::to_string(from + 1) + "-0",
                                    "+", "COUNT", std::to_string(max)}},
                                  Retry::kIdempotent));
  const redisReply* entries = r[0].get();
  if (entries->type != REDIS_REPLY_ARRAY)
    return Error(StatusCode::kInternal, "XRANGE: not an array");
  for (size_t i = 0; i < entries->elements; ++i) {
    const redisReply* e = entries->element[i];
    if (e->type != REDIS_REPLY_ARRAY || e->elements != 2 ||
        e->element[1]->type != REDIS_REPLY_ARRAY || e->element[1]->elements < 2) {
      return Error(StatusCode::kDataLoss, EventsKey(sweep) + ": malformed stream entry");
    }
    out.push_back(Text(e->element[1]->element[1]));
  }
  return out;
}

}  // namespace fleetsweep
