#include "worker/executors/classify.h"

#include <gtest/gtest.h>
#include <signal.h>

namespace fleetsweep {
namespace {

class ClassifyTest : public ::testing::Test {
 protected:
  RunOutcome Exited(int code) {
    RunOutcome o;
    o.protocol = &protocol_;
    o.exited = true;
    o.exit_code = code;
    return o;
  }
  RunOutcome Signalled(int sig) {
    RunOutcome o;
    o.protocol = &protocol_;
    o.term_signal = sig;
    return o;
  }
  void WithSample() { protocol_.Feed(R"({"type":"sample","metric":"time_ms","value":1})"); }
  ProtocolState protocol_;
};

TEST_F(ClassifyTest, SuccessNeedsExitZeroAndASample) {
  WithSample();
  Classification c = Classify(Exited(0));
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.failure_class, v1::FAILURE_CLASS_UNSPECIFIED);
  EXPECT_TRUE(c.detail.empty());
}

TEST_F(ClassifyTest, NoSampleIsBadOutputAndCountsBadLines) {
  protocol_.Feed(R"({"type":"sample","metric":"t","value":"x"})");
  Classification c = Classify(Exited(0));
  EXPECT_EQ(c.failure_class, v1::FAILURE_CLASS_BAD_OUTPUT);
  EXPECT_NE(c.detail.find("1 malformed"), std::string::npos) << c.detail;
}

TEST_F(ClassifyTest, LaunchTimeoutCancel) {
  RunOutcome o = Exited(0);
  o.launch_error = "execve /nope: No such file or directory";
  EXPECT_EQ(Classify(o).failure_class, v1::FAILURE_CLASS_LAUNCH);
  EXPECT_NE(Classify(o).detail.find("/nope"), std::string::npos);

  o = Signalled(SIGTERM);
  o.timed_out = true;
  o.timeout_seconds = 30;
  o.stderr_tail = "NotImplementedError";  // a timeout is a timeout, whatever was printed
  EXPECT_EQ(Classify(o).failure_class, v1::FAILURE_CLASS_TIMEOUT);
  EXPECT_NE(Classify(o).detail.find("30 s"), std::string::npos);

  o = Signalled(SIGTERM);
  o.cancelled = true;
  EXPECT_EQ(Classify(o).failure_class, v1::FAILURE_CLASS_SIGNAL);
  EXPECT_NE(Classify(o).detail.find("cancelled"), std::string::npos);
}

TEST_F(ClassifyTest, ProtocolErrorClasses) {
  protocol_.Feed(R"({"type":"error","class":"not_implemented","detail":"V2"})");
  WithSample();
  Classification c = Classify(Exited(0));
  EXPECT_EQ(c.failure_class, v1::FAILURE_CLASS_NOT_IMPLEMENTED);
  EXPECT_NE(c.detail.find("V2"), std::string::npos);

  ProtocolState oom;
  oom.Feed(R"({"type":"error","class":"out_of_memory"})");
  RunOutcome o = Exited(1);
  o.protocol = &oom;
  EXPECT_EQ(Classify(o).failure_class, v1::FAILURE_CLASS_OUT_OF_MEMORY);

  ProtocolState other;
  other.Feed(R"({"type":"error","class":"bad_shape","detail":"k=3"})");
  o = Exited(2);
  o.protocol = &other;
  EXPECT_EQ(Classify(o).failure_class, v1::FAILURE_CLASS_EXIT_CODE);
  o = Exited(0);
  o.protocol = &other;
  EXPECT_EQ(Classify(o).failure_class, v1::FAILURE_CLASS_BAD_OUTPUT);
}

TEST_F(ClassifyTest, FailedCheckIsWrongResultEvenWithExitZero) {
  WithSample();
  protocol_.Feed(R"({"type":"check","passed":false,"max_rel_error":0.5,"tolerance":0.001})");
  Classification c = Classify(Exited(0));
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.failure_class, v1::FAILURE_CLASS_WRONG_RESULT);
  EXPECT_NE(c.detail.find("0.5"), std::string::npos) << c.detail;
}

TEST_F(ClassifyTest, TextHintsOnlyWhenTheRunFailed) {
  RunOutcome o = Exited(1);
  o.stderr_tail = "Traceback...\nNotImplementedError: V2\n";
  EXPECT_EQ(Classify(o).failure_class, v1::FAILURE_CLASS_NOT_IMPLEMENTED);
  o.stderr_tail = "error: paged attention v2 is Not Implemented here";
  EXPECT_EQ(Classify(o).failure_class, v1::FAILURE_CLASS_NOT_IMPLEMENTED);
  for (const char* text : {"RuntimeError: CUDA out of memory. Tried", "torch.OutOfMemoryError",
                           "terminate called after throwing an instance of 'std::bad_alloc'",
                           "mmap: Cannot allocate memory"}) {
    o.stderr_tail = text;
    EXPECT_EQ(Classify(o).failure_class, v1::FAILURE_CLASS_OUT_OF_MEMORY) << text;
  }
  // The same words in a successful run do not fail it.
  WithSample();
  o = Exited(0);
  o.stderr_tail = "warning: fast path not implemented, using fallback";
  EXPECT_TRUE(Classify(o).ok);
}

TEST_F(ClassifyTest, StreamedHintsCountEvenIfScrolledOut) {
  RunOutcome o = Signalled(SIGABRT);
  ScanLineForHints("what():  std::bad_alloc", &o.hints);
  EXPECT_EQ(Classify(o).failure_class, v1::FAILURE_CLASS_OUT_OF_MEMORY);
}

TEST_F(ClassifyTest, SignalsAndExitCodes) {
  Classification c = Classify(Signalled(SIGSEGV));
  EXPECT_EQ(c.failure_class, v1::FAILURE_CLASS_SIGNAL);
  EXPECT_NE(c.detail.find("SIGSEGV"), std::string::npos) << c.detail;

  RunOutcome killed = Signalled(SIGKILL);
  EXPECT_EQ(Classify(killed).failure_class, v1::FAILURE_CLASS_SIGNAL);
  killed.oom_kill_observed = true;
  EXPECT_EQ(Classify(killed).failure_class, v1::FAILURE_CLASS_OUT_OF_MEMORY);

  WithSample();  // samples do not rescue a non-zero exit
  c = Classify(Exited(3));
  EXPECT_EQ(c.failure_class, v1::FAILURE_CLASS_EXIT_CODE);
  EXPECT_NE(c.detail.find("exit status 3"), std::string::npos);

  // The benchmark's own reason (the last stderr line that is not a usage line) is kept.
  RunOutcome bad = Exited(2);
  bad.stderr_tail =
      "warming up\nbench: unknown loop order 'bogus'\nusage: bench [--order ijk|ikj]\n\n";
  c = Classify(bad);
  EXPECT_EQ(c.failure_class, v1::FAILURE_CLASS_EXIT_CODE);
  EXPECT_EQ(c.detail, "exit status 2: bench: unknown loop order 'bogus'");
  EXPECT_EQ(Classify(Exited(2)).detail, "exit status 2");  // nothing on stderr
}

}  // namespace
}  // namespace fleetsweep
