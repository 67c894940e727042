#include "worker/executors/classify.h"

#include <signal.h>
#include <string.h>

#include <cctype>

namespace fleetsweep {
namespace {

constexpr size_t kHintLineMax = 300;

bool ContainsNoCase(std::string_view hay, std::string_view needle) {
  if (needle.empty() || hay.size() < needle.size()) return false;
  const char first = static_cast<char>(std::tolower(static_cast<unsigned char>(needle[0])));
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(hay[i])) != first) continue;
    size_t j = 1;
    while (j < needle.size() && std::tolower(static_cast<unsigned char>(hay[i + j])) ==
                                    std::tolower(static_cast<unsigned char>(needle[j]))) {
      ++j;
    }
    if (j == needle.size()) return true;
  }
  return false;
}

bool NotImplementedText(std::string_view s) {
  return s.find("NotImplementedError") != std::string_view::npos ||
         ContainsNoCase(s, "not implemented");
}

bool OutOfMemoryText(std::string_view s) {
  return s.find("OutOfMemoryError") != std::string_view::npos ||
         s.find("std::bad_alloc") != std::string_view::npos || ContainsNoCase(s, "out of memory") ||
         ContainsNoCase(s, "cannot allocate memory");
}

std::string CutLine(std::string_view line) {
  size_t start = line.find_first_not_of(" \t\r");
  if (start == std::string_view::npos) return "";
  line.remove_prefix(start);
  return std::string(line.substr(0, kHintLineMax));
}

Classification Fail(v1::FailureClass cls, std::string detail) {
  Classification c;
  c.ok = false;
  c.failure_class = cls;
  c.detail = std::move(detail);
  return c;
}

// The line of stderr that most likely says why the run failed: the last non-empty one that is not
// a usage line ("usage: prog [--n N] ..."); "" when there is none.
std::string ErrorLine(const std::string& stderr_tail) {
  std::string_view rest(stderr_tail);
  while (!rest.empty()) {
    size_t nl = rest.rfind('\n', rest.size() - 1);
    std::string_view line = nl == std::string_view::npos ? rest : rest.substr(nl + 1);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(0, nl);
    const std::string cut = CutLine(line);
    if (cut.empty() || ContainsNoCase(cut.substr(0, 6), "usage:")) continue;
    return cut;
  }
  return "";
}

std::string ExitText(const RunOutcome& o) {
  if (o.term_signal != 0) return "killed by " + SignalName(o.term_signal);
  return "exit status " + std::to_string(o.exit_code);
}

}  // namespace

void ScanLineForHints(std::string_view line, FailureHints* hints) {
  if (!hints->not_implemented && NotImplementedText(line)) {
    hints->not_implemented = true;
    hints->not_implemented_line = CutLine(line);
  }
  if (!hints->out_of_memory && OutOfMemoryText(line)) {
    hints->out_of_memory = true;
    hints->out_of_memory_line = CutLine(line);
  }
}

std::string SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  const char* descr = sigdescr_np(sig);
  std::string out = abbrev ? std::string("SIG") + abbrev : "signal";
  out += " (" + std::to_string(sig);
  if (descr) out += std::string(", ") + descr;
  return out + ")";
}

Classification Classify(const RunOutcome& o) {
  const ProtocolState& p = *o.protocol;
  if (!o.launch_error.empty()) {
    return Fail(v1::FAILURE_CLASS_LAUNCH, "could not start the benchmark: " + o.launch_error);
  }
  if (o.timed_out) {
    char buf[64];
    snprintf(buf, sizeof(buf), "%g", o.timeout_seconds);
    return Fail(v1::FAILURE_CLASS_TIMEOUT,
                std::string("timed out after ") + buf + " s; the process group was killed");
  }
  if (o.cancelled) {
    return Fail(v1::FAILURE_CLASS_SIGNAL, "cancelled by the worker; the process group was killed");
  }
  bool signalled = o.term_signal != 0;
  bool bad_exit = signalled || !o.exited || o.exit_code != 0;
  if (p.has_error()) {
    const std::string& cls = p.error_class();
    std::string detail = "benchmark reported error '" + cls + "'" +
                         (p.error_detail().empty() ? "" : ": " + p.error_detail());
    if (cls == "not_implemented") return Fail(v1::FAILURE_CLASS_NOT_IMPLEMENTED, detail);
    if (cls == "out_of_memory" || cls == "oom")
      return Fail(v1::FAILURE_CLASS_OUT_OF_MEMORY, detail);
    if (cls == "wrong_result") return Fail(v1::FAILURE_CLASS_WRONG_RESULT, detail);
    if (signalled) return Fail(v1::FAILURE_CLASS_SIGNAL, detail + " (" + ExitText(o) + ")");
    if (bad_exit) return Fail(v1::FAILURE_CLASS_EXIT_CODE, detail + " (" + ExitText(o) + ")");
    return Fail(v1::FAILURE_CLASS_BAD_OUTPUT, detail);
  }
  if (p.check_present() && !p.check_passed()) {
    std::string detail = "check failed";
    if (p.check_max_rel_error() >= 0) {
      char buf[96];
      snprintf(buf, sizeof(buf), ": max_rel_error %g", p.check_max_rel_error());
      detail += buf;
      if (p.check_tolerance() >= 0) {
        snprintf(buf, sizeof(buf), " > tolerance %g", p.check_tolerance());
        detail += buf;
      }
    }
    if (!p.check_detail().empty()) detail += " (" + p.check_detail() + ")";
    return Fail(v1::FAILURE_CLASS_WRONG_RESULT, detail);
  }
  bool no_samples = p.samples().empty();
  if (!bad_exit && !no_samples) return Classification{true, v1::FAILURE_CLASS_UNSPECIFIED, ""};

  // The run did not succeed: look for hints in the output.
  FailureHints hints = o.hints;
  for (const std::string* tail : {&o.stdout_tail, &o.stderr_tail}) {
    size_t pos = 0;
    while (pos < tail->size()) {
      size_t nl = tail->find('\n', pos);
      if (nl == std::string::npos) nl = tail->size();
      ScanLineForHints(std::string_view(*tail).substr(pos, nl - pos), &hints);
      pos = nl + 1;
    }
  }
  std::string how = bad_exit ? ExitText(o) : "exit status 0 without samples";
  if (hints.not_implemented) {
    return Fail(v1::FAILURE_CLASS_NOT_IMPLEMENTED,
                "not implemented (" + how + "): " + hints.not_implemented_line);
  }
  if (hints.out_of_memory) {
    return Fail(v1::FAILURE_CLASS_OUT_OF_MEMORY,
                "out of memory (" + how + "): " + hints.out_of_memory_line);
  }
  if (signalled && o.term_signal == SIGKILL && o.oom_kill_observed) {
    return Fail(v1::FAILURE_CLASS_OUT_OF_MEMORY,
                "killed by SIGKILL while the cgroup's oom_kill counter rose (OOM killer)");
  }
  if (signalled) return Fail(v1::FAILURE_CLASS_SIGNAL, ExitText(o));
  if (bad_exit) {
    if (!o.exited) return Fail(v1::FAILURE_CLASS_SIGNAL, "ended without an exit status");
    // With the benchmark's own words, so the summary can say why a region is infeasible.
    const std::string why = ErrorLine(o.stderr_tail);
    return Fail(v1::FAILURE_CLASS_EXIT_CODE, ExitText(o) + (why.empty() ? "" : ": " + why));
  }
  std::string detail = "exit status 0 but no sample was reported";
  if (p.bad_lines() > 0) {
    detail += "; " + std::to_string(p.bad_lines()) +
              " malformed protocol line(s), first: " + p.first_bad_line_error();
  } else if (p.protocol_lines() == 0) {
    detail += "; no protocol line at all (expected {\"type\":\"sample\",...} JSON lines on stdout)";
  }
  return Fail(v1::FAILURE_CLASS_BAD_OUTPUT, detail);
}

}  // namespace fleetsweep
