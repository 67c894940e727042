#include "common/store/parse_ahead.h"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "google/protobuf/arena.h"

namespace fleetsweep {
namespace {

constexpr size_t kBatch = 256;
constexpr size_t kAhead = 2;  // batches parsed but not yet visited, at most
// Each batch's arena starts in a block of its own that outlives Reset: a batch of 256 attempts of
// a sweep (~10 info entries each) fits in it, so a recycled batch parses without allocating
// blocks; larger attempts spill into blocks the arena allocates and frees as usual.
constexpr size_t kBlockBytes = size_t{1} << 20;

// A batch's arena and its parsed attempts. Recycled: the visitor hands a visited batch back and
// the reader resets it (on the reader's thread: the attempts' destructors and freed blocks stay
// off the visitor's path; issue 16: they were ~15% of a 1M-configuration sweep's Finish).
struct Batch {
  std::unique_ptr<char[]> block;  // the arena's initial block; declared first: outlives arena
  std::unique_ptr<google::protobuf::Arena> arena;
  std::vector<v1::Attempt*> attempts;

  static Batch Fresh() {
    Batch b;
    b.block.reset(new char[kBlockBytes]);
    google::protobuf::ArenaOptions options;
    options.initial_block = b.block.get();
    options.initial_block_size = kBlockBytes;
    b.arena = std::make_unique<google::protobuf::Arena>(options);
    b.attempts.reserve(kBatch);
    return b;
  }
  void Recycle() {
    attempts.clear();
    arena->Reset();
  }
};

// The hand-over between the reader and the visitor.
class Queue {
 public:
  // False when the visitor stopped (the reader must stop too).
  bool Push(Batch b) {
    std::unique_lock<std::mutex> lock(mu_);
    room_.wait(lock, [&] { return stopped_ || batches_.size() < kAhead; });
    if (stopped_) return false;
    batches_.push_back(std::move(b));
    ready_.notify_one();
    return true;
  }
  // The reader is done: `status` is its outcome.
  void Finish(Status status) {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
    status_ = std::move(status);
    ready_.notify_one();
  }
  // The next batch; false once the reader is done and every batch was taken.
  bool Pop(Batch* b) {
    std::unique_lock<std::mutex> lock(mu_);
    ready_.wait(lock, [&] { return done_ || !batches_.empty(); });
    if (batches_.empty()) return false;
    *b = std::move(batches_.front());
    batches_.pop_front();
    room_.notify_one();
    return true;
  }
  void Stop() {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
    room_.notify_one();
  }
  // A visited batch, for the reader to reuse.
  void GiveBack(Batch b) {
    std::lock_guard<std::mutex> lock(mu_);
    spent_.push_back(std::move(b));
  }
  // A batch to parse into: a visited one, reset, or a fresh one when none came back yet.
  Batch Empty() {
    Batch b;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (spent_.empty()) return Batch::Fresh();
      b = std::move(spent_.front());
      spent_.pop_front();
    }
    b.Recycle();
    return b;
  }
  Status status() {
    std::lock_guard<std::mutex> lock(mu_);
    return status_;
  }

 private:
  std::mutex mu_;
  std::condition_variable ready_, room_;
  std::deque<Batch> batches_;
  std::deque<Batch> spent_;  // visited, not yet reused
  bool done_ = false, stopped_ = false;
  Status status_;
};

}  // namespace

Status ParseAttemptsAhead(const std::function<Status(const EmitBody& emit)>& read,
                          const std::string& log_path,
                          const std::function<Status(const v1::Attempt&)>& visit) {
  Queue queue;
  std::thread reader([&] {
    Batch batch = queue.Empty();
    Status st = read([&](std::string_view body, uint64_t offset) {
      auto* a = google::protobuf::Arena::CreateMessage<v1::Attempt>(batch.arena.get());
      if (!a->ParseFromArray(body.data(), static_cast<int>(body.size()))) {
        return Status::DataLoss("file store " + log_path + ": undecodable Attempt at byte " +
                                std::to_string(offset));
      }
      batch.attempts.push_back(a);
      if (batch.attempts.size() < kBatch) return Status::Ok();
      if (!queue.Push(std::exchange(batch, queue.Empty())))
        return Status::Internal("the visitor stopped");
      return Status::Ok();
    });
    if (st.ok() && !batch.attempts.empty()) queue.Push(std::move(batch));
    queue.Finish(st);
  });
  Status visited;
  try {
    Batch batch;
    while (visited.ok() && queue.Pop(&batch)) {
      for (const v1::Attempt* a : batch.attempts) {
        visited = visit(*a);
        if (!visited.ok()) break;
      }
      queue.GiveBack(std::move(batch));
    }
  } catch (...) {  // the reader is stopped and joined before the exception goes on
    queue.Stop();
    reader.join();
    throw;
  }
  if (!visited.ok()) queue.Stop();
  reader.join();
  return visited.ok() ? queue.status() : visited;
}

}  // namespace fleetsweep
