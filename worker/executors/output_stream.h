// OutputStream: one child output stream (stdout or stderr) consumed with bounded memory.
//
// Bytes are appended as they arrive. Complete lines are handed to the line callback; a line
// longer than max_line is cut there (the callback sees its first max_line bytes once; the rest up
// to the newline is skipped and counted). Only the last tail_bytes bytes are kept as the tail.
// Memory use is O(max_line + tail_bytes) whatever the child prints.
//
// Thread-safety: none; one owner.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace fleetsweep {

class OutputStream {
 public:
  using LineFn = std::function<void(std::string_view line)>;

  OutputStream(size_t tail_bytes, size_t max_line, LineFn on_line)
      : tail_bytes_(tail_bytes), max_line_(max_line), on_line_(std::move(on_line)) {}

  void Append(const char* data, size_t n);
  // Hands a final unterminated line, if any, to the callback.
  void Finish();

  // The last tail_bytes bytes (cut at a UTF-8 boundary is not attempted: bytes as printed).
  std::string Tail() const;
  uint64_t total_bytes() const { return total_bytes_; }
  uint64_t lines() const { return lines_; }
  uint64_t long_lines() const { return long_lines_; }  // lines cut at max_line

 private:
  void AppendTail(const char* data, size_t n);
  void EmitLine();

  const size_t tail_bytes_;
  const size_t max_line_;
  LineFn on_line_;
  std::string tail_;       // grows to 2 * tail_bytes_ then is trimmed (amortised O(1))
  std::string line_;       // the current partial line, at most max_line_ bytes
  bool skipping_ = false;  // inside an over-long line, discarding until its newline
  uint64_t total_bytes_ = 0;
  uint64_t lines_ = 0;
  uint64_t long_lines_ = 0;
};

}  // namespace fleetsweep
