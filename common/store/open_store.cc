// OpenStore: picks the ResultStore implementation from a URL (store.h).
#include <memory>
#include <string>

#include "common/store/file_store.h"
#include "common/store/redis_store.h"
#include "common/store/store.h"

namespace fleetsweep {

StatusOr<std::unique_ptr<ResultStore>> OpenStore(const std::string& url) {
  if (url.empty()) return Status::InvalidArgument("empty store URL (want redis://... or file:DIR)");
  if (url.rfind("redis://", 0) == 0 || url.rfind("rediss://", 0) == 0) {
    FS_ASSIGN_OR_RETURN(std::unique_ptr<RedisStore> redis, RedisStore::Open(url));
    return std::unique_ptr<ResultStore>(std::move(redis));
  }
  std::string dir = url;
  if (url.rfind("file://", 0) == 0) {
    dir = url.substr(7);  // file:///abs/path -> /abs/path
  } else if (url.rfind("file:", 0) == 0) {
    dir = url.substr(5);
  } else if (url.find("://") != std::string::npos) {
    return Status::InvalidArgument("unknown store URL scheme in '" +
                                   url.substr(0, url.find("://")) +
                                   "://...' (want redis://... or file:DIR)");
  }
  if (dir.empty()) return Status::InvalidArgument("store URL '" + url + "' names no directory");
  FS_ASSIGN_OR_RETURN(std::unique_ptr<FileStore> file, FileStore::Open(dir));
  return std::unique_ptr<ResultStore>(std::move(file));
}

}  // namespace fleetsweep
