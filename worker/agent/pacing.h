// Pacing: how much work a worker holds ahead and how often its loop wakes, from how long its
// executions take. With executions of a second, a slot holds the --prefetch leases (one by
// default) and every finished execution is reported at once. With executions of a millisecond
// or less, a round trip to the coordinator per execution costs more than the execution: each
// slot then holds up to `hold_seconds` of work (at most kMaxPrefetchPerSlot leases waiting), asks
// for leases in batches (when half of what it may hold is free), and its loop collects finished
// executions for up to `flush_seconds` (or `flush_count` of them) before it stores and reports
// them together: one store write, one Results message and one work request per batch.
//
// A finished execution waits at most FlushSeconds() before the loop takes it: flush_seconds, or
// two average durations when executions are slower than that (many workers sharing few cores
// stretch every execution's wall), at most max_flush_seconds; and not at all when its slot has
// nothing left to run (the slot then asks to be woken at once) or when executions are too long
// for another one to finish within that time.
//
// Thread-safety: none; the agent's loop thread owns it. Times come from the caller (an injected
// clock), so every rule is unit-tested without sleeping.
#pragma once

#include <cstddef>

namespace fleetsweep {

struct PacingOptions {
  int min_prefetch = 1;             // --prefetch: leases waiting per slot, whatever the durations
  int max_prefetch = 16;            // kMaxPrefetchPerSlot: the coordinator renews no more
  double hold_seconds = 0.02;       // work a slot holds ahead when executions are short
  double flush_seconds = 0.002;     // a finished execution waits for others this long (or longer:
  size_t flush_count = 16;          // or until this many have finished
  int slots = 1;                    // of the agent: how many executions finish side by side
  double max_flush_seconds = 0.01;  // FlushSeconds()) but never longer than this
};

class Pacing {
 public:
  explicit Pacing(PacingOptions options) : o_(options) {}

  // One execution took `seconds` (its wall time; failures too: they hold a slot as long).
  void Observed(double seconds);
  // Leases waiting per slot now: min_prefetch until an execution was observed, then enough to
  // cover hold_seconds at the recent duration (an exponential average), within [min, max].
  int Prefetch() const;
  // Leases to ask for, given the free places (`capacity`) among the `held_max` this agent may hold
  // and `slots`: all of them once at least half are free or fewer leases than slots are held
  // (a slot would go idle); 0 (wait for more to free) otherwise.
  int ToRequest(int capacity, int held_max, int slots) const;
  // Whether the loop takes the `waiting` finished executions now; `since` is when it first saw
  // one waiting, `urgent` that a slot has nothing left to run. Also at once when no other is
  // expected within FlushSeconds() (the slots' executions take longer on average; nothing
  // observed yet): waiting would cost a wake-up and batch nothing.
  bool TakeNow(size_t waiting, double since, double now, bool urgent) const;
  // When waiting finished executions are taken at the latest.
  double TakeDue(double since) const { return since + FlushSeconds(); }
  // How long finished executions wait for others now (see above).
  double FlushSeconds() const;
  size_t flush_count() const { return o_.flush_count; }

 private:
  PacingOptions o_;
  double average_ = -1;  // seconds; < 0 until the first observation
};

}  // namespace fleetsweep
