#include "bench/verdict_claims.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fleetsweep {

namespace {

double LogPmf(int i, int n, double p) {
  if (p == 0) return i == 0 ? 0 : -INFINITY;
  if (p == 1) return i == n ? 0 : -INFINITY;
  return std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) + i * std::log(p) +
         (n - i) * std::log1p(-p);
}

// Sum of the pmf over [lo, hi], by log-sum-exp.
double PmfSum(int lo, int hi, int n, double p) {
  if (lo > hi) return 0;
  double top = -INFINITY;
  for (int i = lo; i <= hi; ++i) top = std::max(top, LogPmf(i, n, p));
  if (top == -INFINITY) return 0;
  double s = 0;
  for (int i = lo; i <= hi; ++i) s += std::exp(LogPmf(i, n, p) - top);
  return std::min(1.0, std::exp(top) * s);
}

std::string Rate(int k, int n) {
  char b[64];
  std::snprintf(b, sizeof b, "%d/%d (%.1f%%)", k, n, n ? 100.0 * k / n : 0.0);
  return b;
}

std::string Pct(double bound) {
  char b[32];
  std::snprintf(b, sizeof b, "%g%%", 100 * bound);
  return b;
}

}  // namespace

double BinomialUpperTail(int k, int n, double p) {
  if (!(p >= 0 && p <= 1)) return NAN;
  if (k <= 0) return 1;
  if (k > n) return 0;
  return PmfSum(k, n, n, p);
}

double BinomialLowerTail(int k, int n, double p) {
  if (!(p >= 0 && p <= 1)) return NAN;
  if (k >= n) return 1;
  if (k < 0) return 0;
  return PmfSum(0, k, n, p);
}

void ClaimCheck::AtMost(const std::string& what, int k, int n, double bound) {
  const double p = BinomialUpperTail(k, n, bound);
  Add(what + " <= " + Pct(bound), Rate(k, n), p, p >= alpha_);
}

void ClaimCheck::AtLeast(const std::string& what, int k, int n, double bound) {
  const double p = BinomialLowerTail(k, n, bound);
  Add(what + " >= " + Pct(bound), Rate(k, n), p, p >= alpha_);
}

void ClaimCheck::Equal(const std::string& what, int a, int b) {
  Add(what, std::to_string(a) + " vs " + std::to_string(b), a == b ? 1 : 0, a == b);
}

void ClaimCheck::Add(const std::string& claim, const std::string& observed, double p, bool pass) {
  char b[64];
  std::snprintf(b, sizeof b, "%.3g", p);
  rows_.push_back("| " + claim + " | " + observed + " | " + b + " | " + (pass ? "PASS" : "FAIL") +
                  " |");
  failures_ += !pass;
}

}  // namespace fleetsweep
