#include "coordinator/app/progress_line.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <vector>

#include "common/store/execution_count.h"
#include "spdlog/sinks/base_sink.h"
#include "spdlog/spdlog.h"

namespace fleetsweep {

struct ProgressLine::Terminal {
  std::mutex mu;
  std::string line;  // what is on the terminal now ("" = nothing)
  bool shown = false;
};

namespace {

// Log lines to stdout with the progress line (stderr) lifted out of their way.
class ProgressAwareSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit ProgressAwareSink(std::shared_ptr<ProgressLine::Terminal> t) : t_(std::move(t)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    std::lock_guard<std::mutex> lock(t_->mu);
    if (t_->shown) std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    std::fwrite(formatted.data(), 1, formatted.size(), stdout);
    std::fflush(stdout);
    if (t_->shown) {
      std::fputs(t_->line.c_str(), stderr);
      std::fflush(stderr);
    }
  }
  void flush_() override { std::fflush(stdout); }

 private:
  std::shared_ptr<ProgressLine::Terminal> t_;
};

std::vector<spdlog::sink_ptr>& SavedSinks() {
  static std::vector<spdlog::sink_ptr> saved;
  return saved;
}

}  // namespace

int64_t RemainingExecutions(const Scheduler& s) {
  const int64_t min_reps = std::max(1, s.spec().repetitions.min);
  // An untouched configuration is PENDING with no attempts.
  int64_t remaining = (s.configs().size() - s.configs().held()) * min_reps;
  s.configs().ForEachHeld([&](int, const ConfigState& c) {
    const auto state = c.record.state();
    if (state == v1::CONFIG_STATE_DONE || state == v1::CONFIG_STATE_INFEASIBLE) return;
    remaining += std::max<int64_t>(1, min_reps - c.ok_attempts);
  });
  return remaining;
}

std::string FormatDuration(double s) {
  char b[32];
  if (!(s >= 0) || !std::isfinite(s)) return "?";
  if (s < 120) {
    std::snprintf(b, sizeof b, "%.0fs", s);
  } else if (s < 7200) {
    std::snprintf(b, sizeof b, "%.0fm%02.0fs", std::floor(s / 60), std::floor(std::fmod(s, 60)));
  } else {
    std::snprintf(b, sizeof b, "%.1fh", s / 3600);
  }
  return b;
}

ProgressLine::ProgressLine(bool enabled, bool tty)
    : enabled_(enabled), tty_(tty), terminal_(std::make_shared<Terminal>()) {
  if (!enabled_ || !tty_) return;
  auto logger = spdlog::default_logger();
  SavedSinks() = logger->sinks();
  logger->sinks().clear();
  logger->sinks().push_back(std::make_shared<ProgressAwareSink>(terminal_));
}

ProgressLine::~ProgressLine() { Finish(); }

void ProgressLine::Finish() {
  if (finished_) return;
  finished_ = true;
  if (!enabled_ || !tty_) return;
  {
    std::lock_guard<std::mutex> lock(terminal_->mu);
    if (terminal_->shown) std::fputs("\n", stderr);
    terminal_->shown = false;
  }
  auto logger = spdlog::default_logger();
  logger->sinks() = SavedSinks();
}

std::string ProgressLine::last() const {
  std::lock_guard<std::mutex> lock(terminal_->mu);
  return terminal_->line;
}

void ProgressLine::Update(const Scheduler& s, double now, bool force) {
  if (!enabled_ || finished_) return;
  if (!force && now - last_update_ < (tty_ ? 0.5 : 5.0)) return;
  last_update_ = now;
  const Progress p = s.GetProgress();
  const int64_t executions = p.attempts_ok + p.attempts_failed;
  if (start_executions_ < 0) {
    start_ = now;
    start_executions_ = executions;
  }
  const double elapsed = now - start_;
  const int64_t recent = executions - start_executions_;
  const double rate = elapsed > 0 && recent > 0 ? recent / elapsed : 0;
  const int64_t remaining = RemainingExecutions(s);
  const std::string eta = remaining == 0 ? "0s" : rate > 0 ? FormatDuration(remaining / rate) : "?";
  std::string best = "-";
  const int b = s.BestIndex();
  if (b >= 0) {
    const ConfigState& c = s.configs().Get(b);  // held: it has samples
    char bb[400];
    std::snprintf(bb, sizeof bb, "%.4g %s (%s)", c.median, s.spec().primary_metric().unit.c_str(),
                  ConfigToString(s.configs().Params(b)).c_str());
    best = bb;
  }
  char text[900];
  std::snprintf(text, sizeof text,
                "[%s] %lld/%lld finished (%lld ok, %lld infeasible), %lld running, %s of ~%lld, "
                "%.1f exec/s, ETA %s, best %s",
                s.spec().name.c_str(), static_cast<long long>(p.done + p.infeasible),
                static_cast<long long>(p.total), static_cast<long long>(p.done),
                static_cast<long long>(p.infeasible), static_cast<long long>(p.busy),
                ExecutionsText({executions, p.attempts_failed}).c_str(),
                static_cast<long long>(executions + remaining), rate, eta.c_str(), best.c_str());
  std::string line = text;
  if (p.store_failing_seconds > 0) {
    line = "[" + s.spec().name + "] STORE REFUSES WRITES for " +
           FormatDuration(p.store_failing_seconds) + ": no leases granted; " +
           s.StoreError().message().substr(0, 120);
  }
  std::lock_guard<std::mutex> lock(terminal_->mu);
  if (tty_) {
    if (line.size() > 160) line = line.substr(0, 157) + "...";
    terminal_->line = line;
    terminal_->shown = true;
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
  } else {
    terminal_->line = line;
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

}  // namespace fleetsweep
