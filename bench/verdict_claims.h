// The error rates that docs/honest-measurement.md states for fleetsweep's verdicts, checked as
// one-sided exact binomial tests on the counts of fleetsweep-verdict-bench (--check).
//
// A claim "rate <= b" fails when seeing k or more events in n sweeps has probability < alpha under
// rate b; a claim "rate >= b" fails when k or fewer has probability < alpha. With alpha = 1e-3 a
// claim that holds fails about once in 1,000 independent seeds; the bench's seeds are fixed, so a
// given build either passes or fails, and a failure means a code change moved a rate past its
// stated bound (or the bound was never true).
//
// Thread-safety: ClaimCheck is not synchronised; Binomial* are pure.
#pragma once

#include <string>
#include <vector>

namespace fleetsweep {

// P(X >= k) and P(X <= k) for X ~ Binomial(n, p), summed in log space. 1 or 0 at the edges
// (k <= 0 for the upper tail, k >= n for the lower); p outside [0, 1] gives NaN.
double BinomialUpperTail(int k, int n, double p);
double BinomialLowerTail(int k, int n, double p);

class ClaimCheck {
 public:
  explicit ClaimCheck(double alpha = 1e-3) : alpha_(alpha) {}

  // "what" holds in at most `bound` of the sweeps: k events in n sweeps.
  void AtMost(const std::string& what, int k, int n, double bound);
  // "what" holds in at least `bound` of the sweeps.
  void AtLeast(const std::string& what, int k, int n, double bound);
  // Two counts that must be equal (e.g. every false "active" on a not-injected parameter flagged).
  void Equal(const std::string& what, int a, int b);

  // One markdown row per claim: claim, observed, p-value of the observed count under the bound,
  // PASS or FAIL.
  const std::vector<std::string>& Rows() const { return rows_; }
  int Failures() const { return failures_; }

 private:
  void Add(const std::string& claim, const std::string& observed, double p, bool pass);

  double alpha_;
  std::vector<std::string> rows_;
  int failures_ = 0;
};

}  // namespace fleetsweep
