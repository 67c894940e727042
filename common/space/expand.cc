#include "common/space/expand.h"

#include <algorithm>
#include <atomic>

#include "common/space/expr.h"
#include "common/space/space_walker.h"

namespace fleetsweep {

// ---- SpaceWalker ----------------------------------------------------------------------------

namespace {
std::atomic<uint64_t> walks_started{0};
}  // namespace

uint64_t SpaceWalksStarted() { return walks_started.load(std::memory_order_relaxed); }

StatusOr<std::unique_ptr<SpaceWalker>> SpaceWalker::Create(const SweepSpec& spec) {
  walks_started.fetch_add(1, std::memory_order_relaxed);
  std::unique_ptr<SpaceWalker> w(new SpaceWalker());
  for (const ParamSpec& p : spec.params) {
    if (p.fate == ParamFate::kSwept) {
      w->swept_.push_back(&p);
      w->config_[p.name] = p.values.empty() ? Value() : p.values.front();
      w->product_ *= static_cast<double>(p.values.size());
    } else if (p.fate == ParamFate::kPinned) {
      if (p.fixed) {
        w->config_[p.name] = *p.fixed;
      } else if (!p.values.empty()) {
        w->config_[p.name] = p.values.front();
      }
    }
  }
  for (const ParamSpec* p : w->swept_) w->slots_.push_back(&w->config_[p->name]);
  w->digits_.assign(w->swept_.size(), 0);
  for (const ConstraintSpec& c : spec.constraints) {
    Bound b;
    b.text = &c.text;
    b.expr = c.expr;
    if (!b.expr) {
      auto parsed = Expr::Parse(c.text);
      if (!parsed.ok()) {
        return parsed.status().WithContext("constraint '" + c.text + "'");
      }
      b.expr = *parsed;
    }
    for (const std::string& id : b.expr->Identifiers()) {
      auto it = w->config_.find(id);
      if (it == w->config_.end()) {
        const ParamSpec* p = spec.FindParam(id);
        return Status::InvalidArgument(
            "constraint '" + c.text + "' refers to " +
            (p ? "inert parameter '" + id + "', which never appears in a configuration"
               : "unknown parameter '" + id + "'"));
      }
      b.slots.push_back(&it->second);
    }
    w->constraints_.push_back(std::move(b));
  }
  return w;
}

bool SpaceWalker::Advance() {
  if (done_) return false;
  if (!started_) {
    started_ = true;
    for (const ParamSpec* p : swept_) {
      if (p->values.empty()) {
        done_ = true;
        return false;
      }
    }
    for (size_t i = 0; i < swept_.size(); ++i) Set(i);
    raw_index_ = 0;
    return true;
  }
  for (size_t i = swept_.size(); i-- > 0;) {
    if (++digits_[i] < swept_[i]->values.size()) {
      Set(i);
      ++raw_index_;
      return true;
    }
    digits_[i] = 0;
    Set(i);
  }
  done_ = true;  // every digit wrapped: the product is exhausted
  return false;
}

int SpaceWalker::Passing(Status* error, size_t* failed) {
  for (size_t k = 0; k < constraints_.size(); ++k) {
    const Bound& b = constraints_[k];
    StatusOr<bool> holds = b.expr->EvalBool(b.slots.data());
    if (!holds.ok()) {
      *failed = k;
      *error = Status::InvalidArgument("constraint '" + *b.text + "' cannot be evaluated on " +
                                       ConfigToString(config_) + ": " + holds.status().message());
      return -1;
    }
    if (!*holds) return static_cast<int>(k);
  }
  return static_cast<int>(constraints_.size());
}

// ---- SpaceIterator --------------------------------------------------------------------------

SpaceIterator::SpaceIterator(const SweepSpec& spec) {
  auto w = SpaceWalker::Create(spec);
  if (!w.ok()) {
    status_ = w.status();
    done_ = true;
    return;
  }
  walker_ = std::move(w).value();
}

SpaceIterator::~SpaceIterator() = default;

bool SpaceIterator::Advance() {
  if (done_) return false;
  const int all = static_cast<int>(walker_->num_constraints());
  while (walker_->Advance()) {
    size_t failed = 0;
    int passing = walker_->Passing(&status_, &failed);
    if (passing < 0) break;
    if (passing == all) return true;
  }
  done_ = true;
  return false;
}

bool SpaceIterator::Next(Config* out) {
  if (!Advance()) return false;
  *out = walker_->current();
  return true;
}

const Config& SpaceIterator::current() const {
  static const Config kEmpty;
  return walker_ ? walker_->current() : kEmpty;
}

uint64_t SpaceIterator::raw_index() const { return walker_ ? walker_->raw_index() : 0; }

// ---- Counting -------------------------------------------------------------------------------

StatusOr<SpaceCounts> CountSpace(const SweepSpec& spec) {
  FS_ASSIGN_OR_RETURN(std::unique_ptr<SpaceWalker> walker, SpaceWalker::Create(spec));
  SpaceCounts counts;
  double swept = 1, pinned = 1, inert = 1;
  for (const ParamSpec& p : spec.params) {
    switch (p.fate) {
      case ParamFate::kSwept:
        swept *= static_cast<double>(p.values.size());
        break;
      case ParamFate::kPinned:
        pinned *= static_cast<double>(std::max<size_t>(1, p.declared_levels.size()));
        break;
      case ParamFate::kInert:
        inert *=
            static_cast<double>(std::max<size_t>({1, p.declared_levels.size(), p.values.size()}));
        break;
    }
  }
  counts.raw = swept * pinned * inert;
  counts.after_inert = swept * pinned;
  counts.after_pinned = swept;

  // histogram[k]: configurations whose first failing constraint is k (k == n: all hold).
  const size_t n = walker->num_constraints();
  std::vector<uint64_t> histogram(n + 1, 0);
  Status error;
  size_t failed = 0;
  while (walker->Advance()) {
    int passing = walker->Passing(&error, &failed);
    if (passing < 0) return error;
    ++histogram[passing];
  }
  counts.after_constraint.assign(n, 0);
  uint64_t surviving = histogram[n];
  for (size_t k = n; k-- > 0;) {
    counts.after_constraint[k] = surviving;
    surviving += histogram[k];
  }
  counts.final_count = histogram[n];
  return counts;
}

StatusOr<bool> SatisfiesConstraints(const SweepSpec& spec, const Config& config) {
  for (const ConstraintSpec& c : spec.constraints) {
    std::shared_ptr<const Expr> expr = c.expr;
    if (!expr) {
      auto parsed = Expr::Parse(c.text);
      if (!parsed.ok()) return parsed.status().WithContext("constraint '" + c.text + "'");
      expr = *parsed;
    }
    StatusOr<Value> v = expr->Eval(config);
    if (!v.ok()) return v.status().WithContext("constraint '" + c.text + "'");
    if (v->type() != Value::Type::kBool) {
      return Status::InvalidArgument("constraint '" + c.text + "' gave " + v->ToString() +
                                     ", not a boolean");
    }
    if (!v->as_bool()) return false;
  }
  return true;
}

}  // namespace fleetsweep
