#include "worker/executors/output_stream.h"

#include <cstring>

namespace fleetsweep {

void OutputStream::AppendTail(const char* data, size_t n) {
  if (n >= tail_bytes_) {
    tail_.assign(data + (n - tail_bytes_), tail_bytes_);
    return;
  }
  tail_.append(data, n);
  if (tail_.size() > 2 * tail_bytes_) tail_.erase(0, tail_.size() - tail_bytes_);
}

std::string OutputStream::Tail() const {
  if (tail_.size() <= tail_bytes_) return tail_;
  return tail_.substr(tail_.size() - tail_bytes_);
}

void OutputStream::EmitLine() {
  ++lines_;
  if (on_line_) on_line_(line_);
  line_.clear();
}

void OutputStream::Append(const char* data, size_t n) {
  total_bytes_ += n;
  AppendTail(data, n);
  while (n > 0) {
    const char* nl = static_cast<const char*>(memchr(data, '\n', n));
    size_t chunk = nl ? static_cast<size_t>(nl - data) : n;
    if (!skipping_) {
      size_t room = max_line_ - line_.size();
      if (chunk <= room) {
        line_.append(data, chunk);
      } else {
        line_.append(data, room);
        ++long_lines_;
        EmitLine();  // hand the first max_line_ bytes once
        skipping_ = true;
      }
    }
    if (!nl) return;
    if (skipping_) {
      skipping_ = false;
    } else {
      EmitLine();
    }
    data = nl + 1;
    n -= chunk + 1;
  }
}

void OutputStream::Finish() {
  if (!skipping_ && !line_.empty()) EmitLine();
  skipping_ = false;
  line_.clear();
}

}  // namespace fleetsweep
