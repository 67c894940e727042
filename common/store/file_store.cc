#include "common/store/file_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "common/store/file_store_io.h"
#include "common/store/parse_ahead.h"
#include "common/store/store_checks.h"

namespace fleetsweep {

using file_store_io::BodyOffset;
using file_store_io::Errno;
using file_store_io::Payload;
using file_store_io::PreadAll;

uint64_t FileStore::HashAttemptKey(std::string_view key) const {
  if (options_.attempt_key_hash != nullptr) return options_.attempt_key_hash(key);
  return std::hash<std::string_view>{}(key);
}

StatusOr<bool> FileStore::HasAttempt(const Sweep& s, uint64_t hash, const std::string& key) const {
  auto [begin, end] = s.attempt_hashes.equal_range(hash);
  std::string body;
  for (auto it = begin; it != end; ++it) {
    const BodyRef r = s.attempts[it->second];
    body.resize(r.size);
    size_t got = 0;
    FS_RETURN_IF_ERROR(PreadAll(log_fd_, log_path(), body.data(), r.size, r.offset, &got));
    v1::Attempt a;
    if (got < r.size || !a.ParseFromArray(body.data(), static_cast<int>(r.size))) {
      return Status::DataLoss("file store " + log_path() + ": the attempt at byte offset " +
                              std::to_string(r.offset) + " cannot be read back");
    }
    if (AttemptKey(a) == key) return true;
  }
  return false;
}

Status FileStore::Append(const std::string& batch, int records) {
  if (broken_) {
    return Status::Internal("file store " + log_path() +
                            ": an earlier write failed and could not be rolled back; reopen");
  }
  size_t done = 0;
  while (done < batch.size()) {
    ssize_t n = ::pwrite(log_fd_, batch.data() + done, batch.size() - done,
                         static_cast<off_t>(size_ + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Status s = Status::Internal(Errno("file store: write " + log_path()));
      if (::ftruncate(log_fd_, static_cast<off_t>(size_)) != 0) broken_ = true;
      return s;
    }
    done += static_cast<size_t>(n);
  }
  size_ += batch.size();
  unsynced_records_ += records;
  auto since = std::chrono::steady_clock::now() - last_sync_;
  bool by_count =
      options_.sync_every_records > 0 && unsynced_records_ >= options_.sync_every_records;
  bool by_time =
      options_.sync_every_ms > 0 && since >= std::chrono::milliseconds(options_.sync_every_ms);
  if (by_count || by_time) return Sync();
  return Status::Ok();
}

Status FileStore::Sync() {
  if (::fdatasync(log_fd_) != 0)
    return Status::Internal(Errno("file store: fdatasync " + log_path()));
  unsynced_records_ = 0;
  last_sync_ = std::chrono::steady_clock::now();
  return Status::Ok();
}

Status FileStore::Flush() { return unsynced_records_ > 0 ? Sync() : Status::Ok(); }

Status FileStore::ReadBodies(
    const std::vector<BodyRef>& refs,
    const std::function<Status(std::string_view body, uint64_t offset)>& fn) const {
  constexpr uint64_t kWindow = 1u << 20;  // read forward 1 MiB at a time
  std::string window;
  uint64_t start = 0, end = 0;
  const size_t count = refs.size();  // by index: an append during `fn` cannot invalidate it
  for (size_t i = 0; i < count; ++i) {
    const BodyRef r = refs[i];
    if (r.offset < start || r.offset + r.size > end) {
      const uint64_t want = std::max<uint64_t>(r.size, kWindow);
      window.resize(want);
      size_t got = 0;
      FS_RETURN_IF_ERROR(PreadAll(log_fd_, log_path(), window.data(), want, r.offset, &got));
      if (got < r.size) {
        return Status::DataLoss("file store " + log_path() + ": the record at byte offset " +
                                std::to_string(r.offset) +
                                " is gone (the log was truncated while open)");
      }
      start = r.offset;
      end = r.offset + got;
    }
    FS_RETURN_IF_ERROR(fn(std::string_view(window.data() + (r.offset - start), r.size), r.offset));
  }
  return Status::Ok();
}

Status FileStore::PutSpec(const std::string& sweep, const std::string& spec_yaml) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  auto it = sweeps_.find(sweep);
  if (it != sweeps_.end() && it->second.spec.has_value()) {
    if (*it->second.spec == spec_yaml) return Status::Ok();
    return Status::AlreadyExists("sweep '" + sweep +
                                 "' already has a different spec; a resumed sweep must keep its "
                                 "spec (start a new sweep name to change it)");
  }
  std::string batch;
  AppendRecord(&batch, RecordType::kSpec, Payload(sweep, spec_yaml));
  FS_RETURN_IF_ERROR(Append(batch, 1));
  sweeps_[sweep].spec = spec_yaml;
  return Status::Ok();
}

StatusOr<std::optional<std::string>> FileStore::GetSpec(const std::string& sweep) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  auto it = sweeps_.find(sweep);
  if (it == sweeps_.end()) return std::optional<std::string>();
  return it->second.spec;
}

StatusOr<std::vector<std::string>> FileStore::ListSweeps() {
  std::vector<std::string> names;
  for (const auto& [name, sweep] : sweeps_) {
    if (sweep.spec) names.push_back(name);  // std::map: sorted
  }
  return names;
}

Status FileStore::PutConfigs(const std::string& sweep,
                             const std::vector<v1::ConfigRecord>& configs) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  for (const auto& c : configs) FS_RETURN_IF_ERROR(CheckConfigRecord(c));
  if (configs.empty()) return Status::Ok();
  std::vector<std::pair<std::string, BodyRef>> refs;
  refs.reserve(configs.size());
  std::string batch;
  for (const auto& config : configs) {
    v1::ConfigRecord c = config;
    SanitizeUtf8Fields(&c);
    const std::string body = c.SerializeAsString();
    refs.emplace_back(c.config_key(), BodyRef{BodyOffset(size_ + batch.size(), sweep),
                                              static_cast<uint32_t>(body.size())});
    AppendRecord(&batch, RecordType::kConfig, Payload(sweep, body));
  }
  FS_RETURN_IF_ERROR(Append(batch, static_cast<int>(refs.size())));
  Sweep& s = sweeps_[sweep];
  for (auto& [key, ref] : refs) s.configs[std::move(key)] = ref;
  return Status::Ok();
}

StatusOr<std::vector<v1::ConfigRecord>> FileStore::LoadConfigs(const std::string& sweep) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  std::vector<v1::ConfigRecord> out;
  auto it = sweeps_.find(sweep);
  if (it == sweeps_.end()) return out;
  std::vector<BodyRef> refs;
  refs.reserve(it->second.configs.size());
  for (const auto& [key, ref] : it->second.configs) refs.push_back(ref);
  std::sort(refs.begin(), refs.end(),
            [](const BodyRef& a, const BodyRef& b) { return a.offset < b.offset; });
  // Parsed in two halves on two threads when there are many (a large sweep's Finish reads every
  // record back while nothing else runs; issue 16: SIGINT to exit). ReadBodies reads with pread
  // into a window of its own, so the halves do not share any state but `out`'s disjoint slots.
  out.resize(refs.size());
  auto parse = [&](size_t begin, size_t end) {
    const std::vector<BodyRef> part(refs.begin() + static_cast<std::ptrdiff_t>(begin),
                                    refs.begin() + static_cast<std::ptrdiff_t>(end));
    size_t next = begin;
    return ReadBodies(part, [&](std::string_view body, uint64_t offset) {
      if (!out[next++].ParseFromArray(body.data(), static_cast<int>(body.size()))) {
        return Status::DataLoss("file store " + log_path() + ": undecodable ConfigRecord at byte " +
                                std::to_string(offset));
      }
      return Status::Ok();
    });
  };
  constexpr size_t kParallelFrom = 20000;
  const size_t half = refs.size() >= kParallelFrom ? refs.size() / 2 : refs.size();
  Status second;
  std::thread other;
  if (half < refs.size()) other = std::thread([&] { second = parse(half, refs.size()); });
  Status first = parse(0, half);
  if (other.joinable()) other.join();
  FS_RETURN_IF_ERROR(first);  // the lower offset's error first
  FS_RETURN_IF_ERROR(second);
  SortConfigs(&out);
  return out;
}

StatusOr<bool> FileStore::PutAttempt(const std::string& sweep, const v1::Attempt& attempt) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  FS_RETURN_IF_ERROR(CheckAttempt(attempt));
  const std::string key = AttemptKey(attempt);
  const uint64_t hash = HashAttemptKey(key);
  auto it = sweeps_.find(sweep);
  if (it != sweeps_.end()) {
    FS_ASSIGN_OR_RETURN(const bool stored, HasAttempt(it->second, hash, key));
    if (stored) return false;
  }
  std::optional<v1::Attempt> copy;
  const v1::Attempt& clean = Sanitized(attempt, &copy);
  const std::string body = clean.SerializeAsString();
  const BodyRef ref{BodyOffset(size_, sweep), static_cast<uint32_t>(body.size())};
  std::string batch;
  AppendRecord(&batch, RecordType::kAttempt, Payload(sweep, body));
  FS_RETURN_IF_ERROR(Append(batch, 1));
  Sweep& s = sweeps_[sweep];
  s.attempt_hashes.emplace(hash, static_cast<uint32_t>(s.attempts.size()));
  s.attempts.push_back(ref);
  return true;
}

Status FileStore::ForEachAttempt(const std::string& sweep,
                                 const std::function<Status(const v1::Attempt&)>& visit) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  auto it = sweeps_.find(sweep);
  if (it == sweeps_.end()) return Status::Ok();
  // Parsed on arenas one batch ahead, on a second thread (parse_ahead.h). The list of bodies is
  // copied first: a `visit` that appends through this store cannot move it under the reader.
  const std::vector<BodyRef> refs = it->second.attempts;
  return ParseAttemptsAhead([&](const EmitBody& emit) { return ReadBodies(refs, emit); },
                            log_path(), visit);
}

StatusOr<std::vector<v1::Attempt>> FileStore::LoadAttempts(const std::string& sweep) {
  std::vector<v1::Attempt> out;
  auto it = sweeps_.find(sweep);
  if (it != sweeps_.end()) out.reserve(it->second.attempts.size());
  FS_RETURN_IF_ERROR(ForEachAttempt(sweep, [&](const v1::Attempt& a) {
    out.push_back(a);
    return Status::Ok();
  }));
  return out;
}

StatusOr<int64_t> FileStore::CountAttempts(const std::string& sweep) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  auto it = sweeps_.find(sweep);
  return it == sweeps_.end() ? int64_t{0} : static_cast<int64_t>(it->second.attempts.size());
}

Status FileStore::AppendEvent(const std::string& sweep, const std::string& event_json) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  std::string batch;
  AppendRecord(&batch, RecordType::kEvent, Payload(sweep, event_json));
  FS_RETURN_IF_ERROR(Append(batch, 1));
  sweeps_[sweep].events.push_back(event_json);
  return Status::Ok();
}

StatusOr<std::vector<std::string>> FileStore::ReadEvents(const std::string& sweep, int64_t from,
                                                         int64_t max) {
  FS_RETURN_IF_ERROR(CheckSweepName(sweep));
  FS_RETURN_IF_ERROR(CheckEventRange(from, max));
  std::vector<std::string> out;
  auto it = sweeps_.find(sweep);
  if (it == sweeps_.end()) return out;
  const auto& events = it->second.events;
  for (int64_t i = from; i < static_cast<int64_t>(events.size()) && i - from < max; ++i) {
    out.push_back(events[static_cast<size_t>(i)]);
  }
  return out;
}

}  // namespace fleetsweep
