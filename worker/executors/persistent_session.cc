#include "worker/executors/persistent_session.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string_view>

#include "nlohmann/json.hpp"
#include "worker/executors/classify.h"

namespace fleetsweep {
namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

constexpr size_t kTail = ExecExecutor::kTailBytes;
constexpr size_t kMaxLine = ExecExecutor::kMaxLineBytes;

// A session control line from the benchmark: {"fleetsweep": "ready"|"device"|"prepared"|"end",
// ...}. "device" asks, during prepare, for the device alone (the timing gate) until the end.
// An end line may carry "status": the exit status one-shot would have ended with (0..255). A
// ready line may say "run_after_prepare": true: the benchmark runs a prepare request that says
// "run": true as soon as it is prepared, without waiting for a run line.
struct Control {
  std::string kind;
  std::string attempt_id;
  int status = 0;
  bool run_after_prepare = false;
};

bool ParseControl(std::string_view line, Control* c) {
  if (line.find("\"fleetsweep\"") == std::string_view::npos) return false;
  json j = json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return false;
  auto kind = j.find("fleetsweep");
  if (kind == j.end() || !kind->is_string()) return false;
  const std::string& k = kind->get_ref<const std::string&>();
  if (k != "ready" && k != "device" && k != "prepared" && k != "end") return false;
  c->kind = k;
  auto id = j.find("attempt_id");
  c->attempt_id = id != j.end() && id->is_string() ? id->get<std::string>() : "";
  auto status = j.find("status");
  if (status != j.end() && status->is_number_integer()) {
    c->status = static_cast<int>(std::clamp<int64_t>(status->get<int64_t>(), 0, 255));
  }
  auto rap = j.find("run_after_prepare");
  c->run_after_prepare = k == "ready" && rap != j.end() && rap->is_boolean() && rap->get<bool>();
  return true;
}

Clock::time_point After(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

void SetInfo(v1::Attempt* a, const std::string& key, const std::string& value) {
  (*a->mutable_info())[key] = value;
}

void Fail(v1::Attempt* a, v1::FailureClass cls, const std::string& detail) {
  a->set_ok(false);
  a->set_failure_class(cls);
  a->set_failure_detail(detail);
  a->set_exit_code(-1);
}

std::string ExitText(const ChildResult& r) {
  if (r.exited) return "exit status " + std::to_string(r.exit_code);
  if (r.term_signal) return "signal " + std::to_string(r.term_signal);
  return "unknown status";
}

// The device's timing gate for one phase (a start's device work, or an execution): taken once
// into *hold, waiting if another slot holds it; the wait is added to *waited and moves *deadline
// (waiting is neither starting nor preparing). False when the wait was cancelled.
bool TakeGate(TimingGate* gate, const std::atomic<bool>* cancel, std::optional<TimingHold>* hold,
              double* waited, Clock::time_point* deadline) {
  if (!*hold) {
    const Clock::time_point g0 = Clock::now();
    hold->emplace(gate, cancel);
    const double w = Since(g0);
    *waited += w;
    *deadline += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(w));
  }
  return (*hold)->held();
}

std::string RequestLine(const char* kind, const std::string& attempt_id, const Config* params,
                        bool then_run = false) {
  json j = {{"fleetsweep", kind}, {"attempt_id", attempt_id}};
  if (then_run) j["run"] = true;
  if (params) {
    json p = json::object();
    for (const auto& [name, value] : *params) p[name] = value.ToString();
    j["params"] = std::move(p);
  }
  return j.dump();
}

}  // namespace

PersistentSession::PersistentSession(const ExecSpec& spec, SessionKey key, std::string id,
                                     double grace_seconds)
    : spec_(spec), key_(std::move(key)), id_(std::move(id)), grace_seconds_(grace_seconds) {}

PersistentSession::~PersistentSession() { Close(); }

void PersistentSession::Close() {
  if (child_) child_->Terminate(grace_seconds_);
  child_.reset();
  if (plan_.owns_workdir && !plan_.workdir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(plan_.workdir, ec);
    plan_.owns_workdir = false;
  }
}

bool PersistentSession::Reusable() const {
  if (broken_) return false;
  if (spec_.session.max_executions > 0 && executions_ >= spec_.session.max_executions) {
    return false;
  }
  if (child_ && spec_.session.restart_every_s > 0 &&
      Since(started_) >= spec_.session.restart_every_s) {
    return false;
  }
  return true;
}

bool PersistentSession::Start(const ExecutionRequest& req, TimingGate* gate, v1::Attempt* attempt) {
  const Clock::time_point s0 = Clock::now();
  ExecutionRequest sreq = req;
  sreq.params.clear();
  for (const auto& [name, text] : key_.params) sreq.params[name] = Value::FromText(text);
  sreq.attempt_id = id_;
  sreq.extra_env["FLEETSWEEP_SESSION"] = "persistent";
  sreq.extra_env["FLEETSWEEP_PARAMS"] = ParamsJson(sreq.params);
  v1::FailureClass cls;
  Status st = PlanLaunch(spec_, sreq, &plan_, &cls);
  if (!st.ok()) {
    Fail(attempt, cls, "session start: " + st.message());
    return false;
  }
  SetInfo(attempt, "exec.path", plan_.path);
  ChildSpec cs;
  cs.path = plan_.path;
  cs.argv = plan_.argv;
  cs.env = plan_.env;
  cs.workdir = plan_.workdir;
  cs.grace_seconds = grace_seconds_;
  std::string launch_error;
  child_ = LiveChild::Start(cs, &launch_error);
  if (!child_) {
    Fail(attempt, v1::FAILURE_CLASS_LAUNCH, "session start: " + launch_error);
    return false;
  }
  started_ = Clock::now();
  ProtocolState info_lines;
  bool ready = false, device_asked = false, stop = false;
  OutputStream out(kTail, kMaxLine, [&](std::string_view line) {
    Control c;
    if (ParseControl(line, &c)) {
      ready = ready || c.kind == "ready";
      device_asked = device_asked || (c.kind == "device" && !ready);
      stop = ready || device_asked;
      run_after_prepare_ = run_after_prepare_ || c.run_after_prepare;
      return;
    }
    info_lines.Feed(line);
  });
  OutputStream err(kTail, kMaxLine, [](std::string_view) {});
  double timeout = spec_.session.ready_timeout_s > 0 ? spec_.session.ready_timeout_s
                   : spec_.timeout_seconds > 0       ? spec_.timeout_seconds
                                                     : req.timeout_seconds;
  Clock::time_point deadline = After(timeout);
  // Device work before ready (inputs, prewarm): the benchmark asks with a "device" line; the
  // device's timing gate is taken (waiting is not starting: the deadline moves by the wait) and
  // held until ready, so it never overlaps another slot's timed part.
  std::optional<TimingHold> hold;
  double gate_wait = 0;
  LiveChild::Wake w;
  while (true) {
    w = child_->Pump(&out, &err, &stop, deadline, req.cancel_fd);
    if (w != LiveChild::Wake::kStop || ready) break;
    device_asked = stop = false;
    if (!TakeGate(gate, req.cancel, &hold, &gate_wait, &deadline)) {
      w = LiveChild::Wake::kCancelled;
      break;
    }
    if (!child_->WriteLine(RequestLine("device_granted", id_, nullptr), deadline)) {
      w = LiveChild::Wake::kExited;
      break;
    }
  }
  if (w == LiveChild::Wake::kStop) {
    session_info_ = info_lines.info();
    SetInfo(attempt, "session.start_seconds", Value(Since(s0)).ToString());
    if (hold) SetInfo(attempt, "session.start_gate_wait_seconds", Value(gate_wait).ToString());
    return true;
  }
  ChildResult r = child_->Terminate(grace_seconds_, &out, &err);
  child_.reset();
  std::string detail = w == LiveChild::Wake::kExited ? "session start: the benchmark exited (" +
                                                           ExitText(r) + ") before it said ready"
                       : w == LiveChild::Wake::kDeadline
                           ? "session start: the benchmark did not say ready within " +
                                 Value(timeout).ToString() + " s; the process group was killed"
                           : "session start: cancelled by the worker; the process group was killed";
  Fail(attempt,
       w == LiveChild::Wake::kCancelled ? v1::FAILURE_CLASS_SIGNAL : v1::FAILURE_CLASS_LAUNCH,
       detail);
  attempt->set_exit_code(r.exited ? r.exit_code : -1);
  attempt->set_term_signal(r.term_signal);
  attempt->set_stdout_tail(out.Tail());
  attempt->set_stderr_tail(err.Tail());
  if (w == LiveChild::Wake::kCancelled) SetInfo(attempt, "exec.cancelled", "true");
  return false;
}

v1::Attempt PersistentSession::Execute(const ExecutionRequest& req, TimingGate* gate) {
  v1::Attempt attempt;
  attempt.set_started_unix_ms(std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count());
  const Clock::time_point t0 = Clock::now();
  auto finish = [&]() {
    attempt.set_duration_seconds(Since(t0));
    return attempt;
  };
  if (!child_ && (broken_ || !Start(req, gate, &attempt))) {
    broken_ = true;
    SetInfo(&attempt, "session.id", id_);
    return finish();
  }
  uint64_t stray = stray_after_end_;
  stray_after_end_ = 0;
  {
    OutputStream so(kTail, kMaxLine, [&](std::string_view) { ++stray; });
    OutputStream se(kTail, kMaxLine, [](std::string_view) {});
    child_->Drain(&so, &se);
  }
  ++executions_;

  ProtocolState protocol;
  RunOutcome outcome;
  outcome.protocol = &protocol;
  bool stop = false, prepared = false, ended = false, device_asked = false;
  int end_status = 0;
  OutputStream out(kTail, kMaxLine, [&](std::string_view line) {
    if (ended) {  // read in the same chunk as the end line: belongs to no execution
      ++stray_after_end_;
      return;
    }
    Control c;
    if (ParseControl(line, &c)) {
      if (c.attempt_id != req.attempt_id) return;  // a late line of an earlier execution
      prepared = prepared || c.kind == "prepared";
      // A device request counts only during prepare; later (in run) it is dropped.
      const bool device = c.kind == "device" && !prepared && !ended;
      device_asked = device_asked || device;
      if (c.kind == "end" && !ended) end_status = c.status;
      ended = ended || c.kind == "end";
      stop = stop || device || c.kind == "prepared" || c.kind == "end";
      return;
    }
    protocol.Feed(line);
    ScanLineForHints(line, &outcome.hints);
  });
  OutputStream err(kTail, kMaxLine,
                   [&](std::string_view line) { ScanLineForHints(line, &outcome.hints); });
  const double timeout = spec_.timeout_seconds > 0 ? spec_.timeout_seconds : req.timeout_seconds;
  int64_t oom_before = CgroupOomKills();

  using Wake = LiveChild::Wake;
  Wake w = Wake::kExited;
  Clock::time_point deadline = After(timeout);
  // The device gate: taken when prepare asks for the device, else before run; held to the end.
  std::optional<TimingHold> hold;
  double gate_wait = 0, timed = 0;
  auto take_gate = [&]() { return TakeGate(gate, req.cancel, &hold, &gate_wait, &deadline); };
  // Prepare then run in one request when the benchmark can and no other slot shares the device:
  // the gate (free) is taken first and held through prepare, and a round trip is saved.
  const bool then_run = run_after_prepare_ && (gate == nullptr || gate->sharers() <= 1);
  const bool sent = !then_run || take_gate();
  if (!sent) w = Wake::kCancelled;
  if (sent &&
      child_->WriteLine(RequestLine("prepare", req.attempt_id, &req.params, then_run), deadline)) {
    while (true) {
      w = child_->Pump(&out, &err, &stop, deadline, req.cancel_fd);
      if (w != Wake::kStop || !device_asked || prepared || ended) break;
      device_asked = false;
      stop = false;
      if (!take_gate()) {
        w = Wake::kCancelled;
        break;
      }
      if (!child_->WriteLine(RequestLine("device_granted", req.attempt_id, nullptr), deadline)) {
        w = Wake::kExited;
        break;
      }
    }
  }
  if (w == Wake::kStop && prepared && !ended) {
    if (!take_gate()) {
      w = Wake::kCancelled;
    } else {
      stop = false;
      Clock::time_point r0 = Clock::now();
      deadline = After(timeout);
      w = Wake::kExited;
      if (then_run || child_->WriteLine(RequestLine("run", req.attempt_id, nullptr), deadline)) {
        w = child_->Pump(&out, &err, &stop, deadline, req.cancel_fd);
      }
      timed = Since(r0);
    }
  }
  if (w == Wake::kStop && ended) {
    outcome.exited = true;           // the execution ended; the process lives on
    outcome.exit_code = end_status;  // as one-shot would have exited: classified the same
  } else {
    broken_ = true;
    ChildResult r = child_->Terminate(grace_seconds_, &out, &err);
    outcome.timed_out = w == Wake::kDeadline;
    outcome.timeout_seconds = timeout;
    outcome.cancelled = w == Wake::kCancelled;
    outcome.exited = r.exited;
    outcome.exit_code = r.exited ? r.exit_code : -1;
    outcome.term_signal = r.term_signal;
    int64_t oom_after = oom_before >= 0 ? CgroupOomKills() : -1;
    outcome.oom_kill_observed = oom_after > oom_before;
  }
  outcome.stdout_tail = out.Tail();
  outcome.stderr_tail = err.Tail();
  Classification c = Classify(outcome);
  if (c.ok && !ended) {
    c.ok = false;
    c.failure_class = v1::FAILURE_CLASS_BAD_OUTPUT;
    c.detail = "the benchmark process ended (" +
               std::string(outcome.exited ? "exit status " + std::to_string(outcome.exit_code)
                                          : "signal") +
               ") before it ended the execution";
  }
  if (!ended && outcome.exited && c.detail.find("session") == std::string::npos) {
    c.detail += " (the persistent session's process ended during this execution)";
  }
  if (ended && end_status != 0) c.detail += " (the status on the session's end line)";
  for (const auto& [k, v] : session_info_) SetInfo(&attempt, k, v);
  FillAttempt(c, protocol, outcome, out, err, Status::Ok(), &attempt);
  if (outcome.cancelled) SetInfo(&attempt, "exec.cancelled", "true");
  SetInfo(&attempt, "exec.path", plan_.path);
  SetInfo(&attempt, "session.mode", "persistent");
  if (then_run) SetInfo(&attempt, "session.run_after_prepare", "true");
  SetInfo(&attempt, "session.id", id_);
  SetInfo(&attempt, "session.position", std::to_string(executions_));
  SetInfo(&attempt, "session.age_s", Value(Since(started_)).ToString());
  SetInfo(&attempt, "exec.timed_seconds", Value(timed).ToString());
  SetInfo(&attempt, "exec.gate_wait_seconds", Value(gate_wait).ToString());
  if (stray > 0) SetInfo(&attempt, "session.stray_lines", std::to_string(stray));
  if (broken_) Close();
  return finish();
}

}  // namespace fleetsweep
