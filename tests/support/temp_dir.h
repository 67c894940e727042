// TempDir: a fresh, private directory that is removed (recursively) when the object dies.
//
// Created with mkdtemp under $TMPDIR (or /tmp) as "<prefix>-XXXXXX". Move-only: the directory
// belongs to exactly one TempDir; a moved-from TempDir owns nothing and removes nothing.
// Removal errors in the destructor are ignored (it is test scaffolding).
//
// Thread-safety: not thread-safe; one owner.
#pragma once

#include <string>

#include "common/status.h"

namespace fleetsweep::testing {

class TempDir {
 public:
  // Creates the directory; kInternal (with errno text) if mkdtemp fails.
  static StatusOr<TempDir> Create(const std::string& prefix = "fleetsweep-test");

  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&& other) noexcept;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();

  // Absolute path, no trailing slash. Empty for a moved-from TempDir.
  const std::string& path() const { return path_; }
  // path() + "/" + name.
  std::string Join(const std::string& name) const { return path_ + "/" + name; }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  void Remove();
  std::string path_;
};

}  // namespace fleetsweep::testing
