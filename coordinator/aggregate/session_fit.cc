#include "coordinator/aggregate/session_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <unordered_map>

#include "common/stats/t_test.h"

namespace fleetsweep {
namespace {

struct Cell {
  size_t config = 0;
  double n = 0, sum = 0;
};

// Executions grouped by session (sessions >= 0), config-major, one cell per configuration.
std::vector<std::vector<Cell>> CellsBySession(const std::vector<std::vector<double>>& values,
                                              const std::vector<std::vector<int32_t>>& sessions,
                                              size_t configs,
                                              std::unordered_map<int32_t, size_t>* index) {
  std::vector<std::vector<Cell>> cells;
  for (size_t c = 0; c < configs; ++c) {
    for (size_t e = 0; e < values[c].size() && e < sessions[c].size(); ++e) {
      if (sessions[c][e] < 0) continue;
      auto [it, added] = index->emplace(sessions[c][e], cells.size());
      if (added) cells.emplace_back();
      std::vector<Cell>& in = cells[it->second];
      if (in.empty() || in.back().config != c) in.push_back(Cell{c, 0, 0});
      in.back().n += 1;
      in.back().sum += values[c][e];
    }
  }
  return cells;
}

size_t Find(std::vector<size_t>& parent, size_t x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

// In-place Cholesky of the k x k symmetric matrix `a` (row-major, lower triangle used) into L;
// false when it is not positive definite.
bool Cholesky(std::vector<double>& a, size_t k) {
  for (size_t j = 0; j < k; ++j) {
    double d = a[j * k + j];
    for (size_t p = 0; p < j; ++p) d -= a[j * k + p] * a[j * k + p];
    if (!(d > 1e-12)) return false;
    const double l = std::sqrt(d);
    a[j * k + j] = l;
    for (size_t i = j + 1; i < k; ++i) {
      double s = a[i * k + j];
      for (size_t p = 0; p < j; ++p) s -= a[i * k + p] * a[j * k + p];
      a[i * k + j] = s / l;
    }
  }
  return true;
}

// Solves L L' x = b in place.
void CholeskySolve(const std::vector<double>& l, size_t k, std::vector<double>& b) {
  for (size_t i = 0; i < k; ++i) {
    for (size_t p = 0; p < i; ++p) b[i] -= l[i * k + p] * b[p];
    b[i] /= l[i * k + i];
  }
  for (size_t i = k; i-- > 0;) {
    for (size_t p = i + 1; p < k; ++p) b[i] -= l[p * k + i] * b[p];
    b[i] /= l[i * k + i];
  }
}

}  // namespace

SessionFit FitSessions(const std::vector<std::vector<double>>& values,
                       const std::vector<std::vector<int32_t>>& sessions, size_t configs,
                       size_t best, size_t max_configs) {
  SessionFit fit;
  configs = std::min({configs, values.size(), sessions.size()});
  if (best >= configs) return fit;
  fit.diff.assign(configs, NAN);
  fit.scale.assign(configs, NAN);
  std::unordered_map<int32_t, size_t> index;
  const std::vector<std::vector<Cell>> cells = CellsBySession(values, sessions, configs, &index);
  std::vector<size_t> parent(configs);
  std::iota(parent.begin(), parent.end(), size_t{0});
  for (const auto& in : cells) {
    for (const Cell& cell : in) parent[Find(parent, cell.config)] = Find(parent, in[0].config);
  }
  // The best's group: position of each other member in the reduced system (best fixed at 0).
  const size_t root = Find(parent, best);
  std::vector<size_t> pos(configs, SIZE_MAX);
  size_t k = 0;
  for (size_t c = 0; c < configs; ++c) {
    if (c != best && Find(parent, c) == root) pos[c] = k++;
  }
  fit.connected = k + 1;
  if (k == 0 || k + 1 > max_configs) return fit;
  // Normal equations with the sessions' offsets absorbed: A = diag(n_c) - sum_s v_s v_s' / n_s,
  // rhs = sums_c - sum_s v_s Y_s / n_s (v_s: the configurations' counts in session s).
  std::vector<double> a(k * k, 0.0), rhs(k, 0.0);
  double used = 0, sessions_used = 0;
  for (const auto& in : cells) {
    if (Find(parent, in[0].config) != root) continue;
    double n = 0, y = 0;
    for (const Cell& cell : in) n += cell.n, y += cell.sum;
    used += n;
    sessions_used += 1;
    for (const Cell& ci : in) {
      if (ci.config == best) continue;
      const size_t i = pos[ci.config];
      a[i * k + i] += ci.n;
      rhs[i] += ci.sum - ci.n * y / n;
      for (const Cell& cj : in) {
        if (cj.config != best) a[i * k + pos[cj.config]] -= ci.n * cj.n / n;
      }
    }
  }
  if (!Cholesky(a, k)) return fit;
  CholeskySolve(a, k, rhs);  // rhs now holds each member's effect minus the best's
  std::vector<double> unit(k);
  for (size_t c = 0; c < configs; ++c) {
    if (pos[c] == SIZE_MAX) continue;
    std::fill(unit.begin(), unit.end(), 0.0);
    unit[pos[c]] = 1.0;
    CholeskySolve(a, k, unit);
    fit.diff[c] = rhs[pos[c]];
    fit.scale[c] = unit[pos[c]];
  }
  fit.diff[best] = 0;
  fit.scale[best] = 0;
  // Residuals: each session's offset is its mean after the configurations' effects.
  std::vector<double> offset(cells.size(), 0.0);
  for (size_t d = 0; d < cells.size(); ++d) {
    if (Find(parent, cells[d][0].config) != root) continue;
    double n = 0, y = 0;
    for (const Cell& cell : cells[d]) n += cell.n, y += cell.sum - cell.n * fit.diff[cell.config];
    offset[d] = y / n;
  }
  double ss = 0;
  for (size_t c = 0; c < configs; ++c) {
    if (Find(parent, c) != root) continue;
    for (size_t e = 0; e < values[c].size() && e < sessions[c].size(); ++e) {
      if (sessions[c][e] < 0) continue;
      const double r = values[c][e] - fit.diff[c] - offset[index.at(sessions[c][e])];
      ss += r * r;
    }
  }
  fit.df = used - static_cast<double>(k) - sessions_used;
  fit.sigma2 = fit.df > 0 ? ss / fit.df : 0;
  fit.ok = true;
  return fit;
}

double SessionFitP(const SessionFit& fit, size_t j) {
  if (!fit.ok || j >= fit.diff.size() || std::isnan(fit.diff[j]) || fit.df <= 0) return 1.0;
  const double var = fit.sigma2 * fit.scale[j];
  if (!(var > 0)) return fit.diff[j] == 0 ? 1.0 : 0.0;
  return std::min(1.0, 2.0 * stats::StudentTSf(std::fabs(fit.diff[j]) / std::sqrt(var), fit.df));
}

}  // namespace fleetsweep
