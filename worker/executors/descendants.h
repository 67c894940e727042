// Descendants: processes that escape an execution's process group (a grandchild that calls
// setsid, a double-forked daemon) are found, killed and reaped here, and zombies of re-parented
// processes do not accumulate (also when the worker runs as PID 1).
//
// How: the worker makes itself a child subreaper (PR_SET_CHILD_SUBREAPER), so an orphaned
// descendant is re-parented to it instead of to init. Every child the executors start
// (SpawnChild) is registered as owned, under a lock held across fork, with a tag that its
// environment carries (FLEETSWEEP_SPAWN=<tag>; descendants inherit it). ReapEscaped() looks at
// the worker's direct children (/proc): an owned one is left alone (its executor waits for it and
// gets its exit status); any other is re-parented: a zombie is reaped; a live one is spared while
// the owned child whose tag its environment carries is alive (a warm session's helper), and
// otherwise killed (SIGKILL) and reaped, repeated until none is left (its own children are
// re-parented in turn).
//
// Limits: without the subreaper (prctl refused, or a closer subreaper in between) escaped
// processes go to init and are not found; a process that clears its environment loses its tag
// and is killed at the next ReapEscaped() even while its execution still runs. ReapEscaped()
// treats every child that SpawnChild did not start as escaped: call it only in a process whose
// children all come from SpawnChild (the worker). Thread-safe.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace fleetsweep {

// Makes this process a child subreaper. false when the kernel refuses (the caller logs it).
bool BecomeSubreaper();

// Kills and reaps re-parented descendants as described above. Returns how many were killed.
int ReapEscaped();

// How many owned children have been forgotten (reaped) so far. An escaped process is spared only
// while its owner lives, so a caller that reaps after each execution can skip ReapEscaped() when
// this count has not moved (a warm session's executions), and reap on a timer for the rest
// (zombies of escaped processes, ones that cleared their tag).
uint64_t OwnedChildrenEnded();

// For SpawnChild and the executors that reap their children:
// A new tag (unique in this process) for a child about to be spawned.
std::string NewSpawnTag();
// The lock that SpawnChild holds from before fork until RegisterOwned (so ReapEscaped never sees
// an owned child unregistered).
void LockSpawns();
void UnlockSpawns();
// Call with the lock held, right after fork.
void RegisterOwned(pid_t pid, const std::string& tag);
// Call after the child was reaped (waitpid).
void ForgetOwned(pid_t pid);

}  // namespace fleetsweep
