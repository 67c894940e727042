// Confinement of everything a spec names on a worker's disk (the workdir, the files it writes, the
// result file it reads) to one worker-owned scratch root (docs/security.md).
//
// A spec is untrusted input: its paths are templated with parameter values, may be absolute, may
// hold "..", and may point through symlinks that an earlier execution left behind. Every path is
// therefore resolved AFTER templating: lexically normalised, joined to its base when relative, and
// the longest existing prefix resolved with realpath(3) (symlinks followed), the rest appended. It
// is accepted only when the result lies inside the scratch root (itself resolved the same way).
// Files are opened with O_NOFOLLOW so the final component cannot be a symlink either.
//
// Errors are kFailedPrecondition with a message naming the path as written, where it resolves, and
// the scratch root; I/O errors are kInternal naming the path. Free functions, no state except
// the default scratch root's once-per-process directory; thread-safe.
#pragma once

#include <cstddef>
#include <string>

#include "common/status.h"

namespace fleetsweep {

// The scratch root to use: `configured` created (mode 0700, parents too) when it does not exist,
// or, when empty, a private directory made once per process (mkdtemp, mode 0700, under $TMPDIR or
// /tmp, "fleetsweep-scratch-XXXXXX"). Returns its canonical path (symlinks resolved).
StatusOr<std::string> PrepareScratchRoot(const std::string& configured);

// Removes the default scratch root (recursively) if this process made one; a configured root is
// never touched. The next PrepareScratchRoot("") makes a new one. Also done when the process
// exits normally (return from main, exit()); not after SIGKILL. Call it only when no execution
// is running. Never fails (errors are ignored).
void RemoveDefaultScratchRoot();

// `path` (absolute, or relative to `base`) resolved as described above; need not exist. OK only
// when the result is `root` itself or inside it. `root` must be canonical (PrepareScratchRoot).
StatusOr<std::string> ConfinePath(const std::string& root, const std::string& base,
                                  const std::string& path);

// Creates directory `dir` (and missing parents), then checks again that it resolves inside `root`
// (a symlink swapped in between is caught). Returns the canonical path.
StatusOr<std::string> MakeConfinedDir(const std::string& root, const std::string& dir);

// Writes `contents` to `path` (truncating): parent directories created and confined, the file
// opened with O_NOFOLLOW | O_CLOEXEC, mode 0600.
Status WriteConfinedFile(const std::string& root, const std::string& path,
                         const std::string& contents);

// Reads at most `max_bytes` of `path` (confined, O_NOFOLLOW). kNotFound when it does not exist,
// kInvalidArgument when it is larger than `max_bytes`.
StatusOr<std::string> ReadConfinedFile(const std::string& root, const std::string& path,
                                       size_t max_bytes);

}  // namespace fleetsweep
