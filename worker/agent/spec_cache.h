// SpecCache: the sweep specs this worker knows and the leases that wait for one it does not.
//
// Wire protocol v2 sends a spec once per worker and sweep, by hash: a lease names its spec's hash;
// the spec text arrives in the HelloAck or as the answer to a SpecRequest. A spec is checked
// against its hash, parsed once and kept for the cache's life (sessions keep pointers to its
// launcher). A lease whose spec is unknown waits here; the first such lease for a hash says that
// the spec must be asked for, and an unanswered ask is due again every retry_seconds.
//
// Errors: a spec whose text does not hash to the hash it claims is refused (Add says why, naming
// both hashes); a spec that does not parse, or whose executor section is refused here, is kept
// with its error (every lease of it fails with that error rather than waiting forever).
//
// Thread-safety: none; the agent's loop thread owns it. Time comes from the caller.
#pragma once

#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fleetsweep/v1/wire.pb.h"
#include "worker/executors/session.h"

namespace fleetsweep {

// What the worker knows about one sweep's spec.
struct SpecInfo {
  std::string error;  // non-empty: the spec cannot be run here
  std::unique_ptr<Launcher> launcher;
  double timeout = 600;
  std::vector<std::string> metrics;  // the spec's declared metrics (bounds metric labels)
};

// Parses a spec text into what the worker needs (never fails: errors go into SpecInfo::error).
SpecInfo LoadSpec(const v1::SpecText& spec);

class SpecCache {
 public:
  explicit SpecCache(double retry_seconds = 2.0) : retry_seconds_(retry_seconds) {}

  // The spec with this hash, or nullptr when it is not known here.
  const SpecInfo* Find(const std::string& hash) const;

  struct Added {
    bool ok = false;      // false: refused (hash mismatch); `error` says why
    bool is_new = false;  // parsed now (not known before)
    std::string hash;     // the hash the text really has
    const SpecInfo* info = nullptr;
    std::string error;
  };
  // Checks the spec against the hash it claims and keeps it (parsed once per hash).
  Added Add(const v1::SpecText& spec);

  // Keeps a lease until its spec arrives. True when its spec must be asked for now (no ask for
  // that hash is outstanding); the caller sends the SpecRequest and calls Asked().
  bool Await(const v1::Lease& lease);
  void Asked(const std::string& hash, double now) { asked_[hash] = now; }
  // Takes every waiting lease, by spec hash, and forgets the outstanding asks.
  std::map<std::string, std::vector<v1::Lease>> TakeWaiting();
  // Hashes whose ask has gone unanswered for retry_seconds at `now`.
  std::vector<std::string> AsksDue(double now) const;
  // When the next ask falls due (+infinity when none is outstanding).
  double NextAskDue() const;

  int waiting() const;  // leases waiting for a spec
  const std::map<std::string, std::vector<v1::Lease>>& waiting_by_hash() const { return waiting_; }

 private:
  double retry_seconds_;
  std::map<std::string, SpecInfo> specs_;  // by spec hash
  std::map<std::string, std::vector<v1::Lease>> waiting_;
  std::map<std::string, double> asked_;  // spec hash -> when a SpecRequest was last sent
};

}  // namespace fleetsweep
