// RedisStore's cursor scans (redis_store.h): the one SCAN/HSCAN loop that survives a reconnect
// (ScanCursor), the hash scans built on it (ScanFields, ScanHash) and ListSweeps.
#include <hiredis/hiredis.h>

#include <set>
#include <unordered_set>

#include "common/store/redis_store.h"

namespace fleetsweep {

Status RedisStore::ScanCursor(const std::string& what,
                              const std::function<Args(const std::string& cursor)>& command,
                              const std::function<Status(const redisReply* items)>& items,
                              const std::function<void()>& on_restart) {
  std::string cursor = "0";
  uint64_t connection = connections_made_;
  int restarts = 0;
  // for (;;), not do-while: `continue` after a restart must scan again from cursor 0, not end
  // the loop (a do-while tests cursor != "0" and stopped there: a partial result).
  for (;;) {
    const Args cmd = command(cursor);
    FS_ASSIGN_OR_RETURN(auto replies, Run({cmd}, Retry::kIdempotent));
    if (connections_made_ != connection) {
      if (++restarts > 3) {
        return Error(StatusCode::kUnavailable, "connection kept dropping during " + what);
      }
      connection = connections_made_;
      cursor = "0";
      on_restart();
      continue;
    }
    const redisReply* r = replies[0].get();
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
        r->element[1]->type != REDIS_REPLY_ARRAY) {
      return Error(StatusCode::kInternal, "unexpected reply to " + what);
    }
    cursor = Text(r->element[0]);
    FS_RETURN_IF_ERROR(items(r->element[1]));
    if (cursor == "0") return Status::Ok();
  }
}

Status RedisStore::ScanFields(
    const std::string& key,
    const std::function<Status(const std::string& field, const std::string& value)>& fn,
    const std::function<void()>& on_restart) {
  std::unordered_set<std::string> seen;
  return ScanCursor(
      "HSCAN " + key,
      [&](const std::string& cursor) -> Args {
        return {"HSCAN", key, cursor, "COUNT", std::to_string(options_.scan_count)};
      },
      [&](const redisReply* items) {
        if (items->elements % 2 != 0) {
          return Error(StatusCode::kInternal, "unexpected reply to HSCAN " + key);
        }
        for (size_t i = 0; i + 1 < items->elements; i += 2) {
          std::string field = Text(items->element[i]);
          if (!seen.insert(field).second) continue;
          FS_RETURN_IF_ERROR(fn(field, Text(items->element[i + 1])));
        }
        return Status::Ok();
      },
      [&] {
        if (!on_restart) return;  // immutable fields: those given are skipped
        on_restart();
        seen.clear();
      });
}

StatusOr<std::vector<std::pair<std::string, std::string>>> RedisStore::ScanHash(
    const std::string& key) {
  std::vector<std::pair<std::string, std::string>> out;
  FS_RETURN_IF_ERROR(ScanFields(
      key,
      [&](const std::string& field, const std::string& value) {
        out.emplace_back(field, value);
        return Status::Ok();
      },
      [&] { out.clear(); }));
  return out;
}

StatusOr<std::vector<std::string>> RedisStore::ListSweeps() {
  std::set<std::string> names;
  FS_RETURN_IF_ERROR(ScanCursor(
      "SCAN",
      [&](const std::string& cursor) -> Args {
        return {"SCAN",        cursor,  "MATCH",
                "fs:{*}:spec", "COUNT", std::to_string(options_.scan_count)};
      },
      [&](const redisReply* keys) {
        for (size_t i = 0; i < keys->elements; ++i) {
          const std::string key = Text(keys->element[i]);  // fs:{NAME}:spec
          if (key.size() > 10) names.insert(key.substr(4, key.size() - 10));
        }
        return Status::Ok();
      },
      [&] { names.clear(); }));
  return std::vector<std::string>(names.begin(), names.end());
}

}  // namespace fleetsweep
