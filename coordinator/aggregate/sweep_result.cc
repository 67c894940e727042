#include "coordinator/aggregate/sweep_result.h"

namespace fleetsweep {

const char* Name(ConfigOutcome s) {
  switch (s) {
    case ConfigOutcome::kPending:
      return "pending";
    case ConfigOutcome::kLeased:
      return "leased";
    case ConfigOutcome::kDone:
      return "done";
    case ConfigOutcome::kEliminated:
      return "eliminated";
    case ConfigOutcome::kInfeasible:
      return "infeasible";
  }
  return "pending";
}

const char* Name(Injection v) {
  switch (v) {
    case Injection::kUntested:
      return "untested";
    case Injection::kInjected:
      return "injected";
    case Injection::kNotInjected:
      return "not_injected";
    case Injection::kNoFingerprint:
      return "no_fingerprint";
  }
  return "untested";
}

const char* Name(Effect v) {
  switch (v) {
    case Effect::kUntested:
      return "untested";
    case Effect::kInconclusive:
      return "inconclusive";
    case Effect::kNoEffect:
      return "no_effect";
    case Effect::kActive:
      return "active";
  }
  return "untested";
}

}  // namespace fleetsweep
