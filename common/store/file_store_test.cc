#include "common/store/file_store.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <iterator>

#include "common/store/record_log.h"
#include "common/store/store_checks.h"
#include "common/store/store_test_suite.h"
#include "tests/support/temp_dir.h"

namespace fleetsweep {
namespace {

using store_testing::MakeAttempt;
using testing::TempDir;

struct FileStoreFactory {
  Status SetUp() {
    FS_ASSIGN_OR_RETURN(TempDir d, TempDir::Create("fs-filestore"));
    dir.emplace(std::move(d));
    return Status::Ok();
  }
  StatusOr<std::unique_ptr<ResultStore>> Open() { return OpenStore("file:" + dir->Join("db")); }
  std::optional<TempDir> dir;
};

}  // namespace

namespace store_testing {
INSTANTIATE_TYPED_TEST_SUITE_P(File, ResultStoreTest, ::testing::Types<FileStoreFactory>);
}  // namespace store_testing

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

class FileStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = TempDir::Create("fs-filestore");
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    tmp_.emplace(std::move(d).value());
    dir_ = tmp_->Join("store");
  }

  // Opens, stores attempts 0..n-1 and closes.
  void Populate(int n) {
    auto st = FileStore::Open(dir_);
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    for (int i = 0; i < n; ++i) ASSERT_TRUE(*(*st)->PutAttempt("s", MakeAttempt(i)));
  }

  std::string log() const { return dir_ + "/store.log"; }

  std::optional<TempDir> tmp_;
  std::string dir_;
};

// Attempts appended around the store's checks, as Open's replay judges them: one with a NaN
// sample is skipped, a second one with a stored key is not counted (the first wins, info and all).
TEST_F(FileStoreTest, OpenSkipsNonFiniteAttemptsAndKeepsTheFirstOfAKey) {
  Populate(2);
  auto raw = [](const v1::Attempt& a) {
    std::string r;
    AppendRecord(&r, RecordType::kAttempt,
                 std::string("\x01\x00\x00\x00s", 5) + a.SerializeAsString());
    return r;
  };
  v1::Attempt nan = MakeAttempt(7);
  nan.add_samples()->set_value(std::nan(""));
  v1::Attempt wide = MakeAttempt(8);
  for (int i = 0; i < 200; ++i) (*wide.mutable_info())["k" + std::to_string(i)] = "v";
  v1::Attempt again = MakeAttempt(8);  // the same key as `wide`, later: not counted
  (*again.mutable_info())["which"] = "second";
  WriteFile(log(), ReadFile(log()) + raw(nan) + raw(wide) + raw(again));
  auto st = FileStore::Open(dir_);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_TRUE((*st)->recovery_note().empty());
  EXPECT_EQ(*(*st)->CountAttempts("s"), 3) << "0, 1 and 8 once; the NaN one skipped";
  auto loaded = (*st)->LoadAttempts("s");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ASSERT_EQ(loaded->size(), 3u);
  EXPECT_EQ(AttemptKey((*loaded)[2]), AttemptKey(wide));
  EXPECT_EQ((*loaded)[2].info_size(), wide.info_size()) << "the first of the two with one key";
  EXPECT_EQ((*loaded)[2].info().count("which"), 0u);
}

// Each way a crash can tear the last append: recovered by truncation, earlier records kept.
TEST_F(FileStoreTest, TornTailIsTruncatedAndEarlierRecordsKept) {
  Populate(3);
  const std::string clean = ReadFile(log());
  std::string full_record;
  AppendRecord(&full_record, RecordType::kAttempt,
               std::string("\x01\x00\x00\x00s", 5) + MakeAttempt(50).SerializeAsString());
  std::string bad_crc = full_record;
  bad_crc[5] ^= 0x40;
  const std::vector<std::pair<std::string, std::string>> tails = {
      {"partial header", full_record.substr(0, 5)},
      {"record missing its last byte", full_record.substr(0, full_record.size() - 1)},
      {"bad CRC on the last record", bad_crc},
      {"zero-filled pages", std::string(4096, '\0')},
      {"two records, second torn", full_record + full_record.substr(0, 11)},
  };
  for (const auto& [name, tail] : tails) {
    SCOPED_TRACE(name);
    std::string image = clean + tail;
    if (name == "two records, second torn") {
      // The first appended record is whole, so it survives.
      WriteFile(log(), image);
      auto st = FileStore::Open(dir_);
      ASSERT_TRUE(st.ok()) << st.status().ToString();
      EXPECT_FALSE((*st)->recovery_note().empty());
      EXPECT_EQ(ReadFile(log()), clean + full_record);
      continue;
    }
    WriteFile(log(), image);
    {
      auto st = FileStore::Open(dir_);
      ASSERT_TRUE(st.ok()) << st.status().ToString();
      EXPECT_NE((*st)->recovery_note().find("byte offset " + std::to_string(clean.size())),
                std::string::npos)
          << (*st)->recovery_note();
      EXPECT_EQ(*(*st)->CountAttempts("s"), 3);
    }
    EXPECT_EQ(ReadFile(log()), clean) << "the torn bytes are cut off the file";
    auto again = FileStore::Open(dir_);
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE((*again)->recovery_note().empty());
  }
  // After recovery the store keeps working.
  auto st = FileStore::Open(dir_);
  ASSERT_TRUE(st.ok());
  EXPECT_TRUE(*(*st)->PutAttempt("s", MakeAttempt(100)));
  st->reset();
  auto last = FileStore::Open(dir_);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(*(*last)->CountAttempts("s"), 5) << "0..2, 50 (whole record before a torn one), 100";
  EXPECT_TRUE((*last)->recovery_note().empty());
}

TEST_F(FileStoreTest, MidFileCorruptionIsDataLossWithOffset) {
  Populate(5);
  std::string image = ReadFile(log());
  auto scan = ScanLog(image, "x");
  ASSERT_TRUE(scan.ok());
  ASSERT_EQ(scan->records.size(), 5u);
  const uint64_t second = scan->records[1].offset;
  image[second + kRecordHeaderSize + 6] ^= 0x01;  // a payload byte of record 2 of 5
  WriteFile(log(), image);

  auto st = FileStore::Open(dir_);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(st.status().message().find("byte offset " + std::to_string(second)), std::string::npos)
      << st.status().message();
  EXPECT_EQ(ReadFile(log()), image) << "a corrupt store is never truncated";
}

TEST_F(FileStoreTest, CorruptLengthInTheMiddleIsDataLoss) {
  Populate(4);
  std::string image = ReadFile(log());
  auto scan = ScanLog(image, "x");
  ASSERT_TRUE(scan.ok());
  const uint64_t third = scan->records[2].offset;
  image[third + 3] = '\x7f';  // length now runs past the end of the file
  WriteFile(log(), image);
  auto st = FileStore::Open(dir_);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.status().code(), StatusCode::kDataLoss) << st.status().ToString();
  EXPECT_NE(st.status().message().find(std::to_string(third)), std::string::npos);
}

TEST_F(FileStoreTest, NotAStoreLogIsDataLoss) {
  ASSERT_EQ(::mkdir(dir_.c_str(), 0755), 0);
  WriteFile(log(), "hello, this is not a log");
  auto st = FileStore::Open(dir_);
  EXPECT_EQ(st.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(st.status().message().find("bad magic"), std::string::npos);
}

TEST_F(FileStoreTest, CrashDuringCreationLeavesUsableStore) {
  ASSERT_EQ(::mkdir(dir_.c_str(), 0755), 0);
  WriteFile(log(), std::string(kLogMagic.substr(0, 3)));
  auto st = FileStore::Open(dir_);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_TRUE(*(*st)->PutAttempt("s", MakeAttempt(1)));
  st->reset();
  EXPECT_EQ(*(*FileStore::Open(dir_))->CountAttempts("s"), 1);
}

TEST_F(FileStoreTest, SecondOpenIsLockedNamingThePid) {
  auto first = FileStore::Open(dir_);
  ASSERT_TRUE(first.ok());
  auto second = FileStore::Open(dir_);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(second.status().message().find("pid " + std::to_string(::getpid())), std::string::npos)
      << second.status().message();

  // Another process is refused too.
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto st = FileStore::Open(dir_);
    ::_exit(!st.ok() && st.status().code() == StatusCode::kFailedPrecondition ? 0 : 1);
  }
  int wstatus = 0;
  ASSERT_EQ(::waitpid(child, &wstatus, 0), child);
  EXPECT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);

  first->reset();  // closing releases the lock
  EXPECT_TRUE(FileStore::Open(dir_).ok());
}

// A process that dies without Flush() or destructors loses nothing: each call is one write().
TEST_F(FileStoreTest, ProcessCrashWithoutFlushKeepsWrittenRecords) {
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    FileStoreOptions no_auto_sync;
    no_auto_sync.sync_every_records = 0;
    no_auto_sync.sync_every_ms = 0;
    auto st = FileStore::Open(dir_, no_auto_sync);
    if (!st.ok()) ::_exit(2);
    for (int i = 0; i < 50; ++i) {
      if (!(*st)->PutAttempt("s", MakeAttempt(i)).ok()) ::_exit(3);
    }
    if (!(*st)->AppendEvent("s", "last").ok()) ::_exit(4);
    ::_exit(0);  // no destructor, no Flush
  }
  int wstatus = 0;
  ASSERT_EQ(::waitpid(child, &wstatus, 0), child);
  ASSERT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) << wstatus;
  auto st = FileStore::Open(dir_);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ(*(*st)->CountAttempts("s"), 50);
  EXPECT_EQ(*(*st)->ReadEvents("s", 0, 10), std::vector<std::string>{"last"});
}

TEST_F(FileStoreTest, DuplicateAttemptWritesNothing) {
  auto st = FileStore::Open(dir_);
  ASSERT_TRUE(st.ok());
  ASSERT_TRUE(*(*st)->PutAttempt("s", MakeAttempt(1)));
  const std::string before = ReadFile(log());
  EXPECT_FALSE(*(*st)->PutAttempt("s", MakeAttempt(1)));
  EXPECT_TRUE((*st)->PutSpec("s", "x").ok());
  const std::string with_spec = ReadFile(log());
  EXPECT_TRUE((*st)->PutSpec("s", "x").ok());
  EXPECT_EQ(ReadFile(log()), with_spec) << "an identical spec is not written again";
  EXPECT_GT(with_spec.size(), before.size());
}

// The idempotence index keeps 64-bit hashes of attempt keys: with a hash under which every key
// collides, a stored key is still told from a new one (each candidate is read back), live and
// when the log is replayed, where the first of a key still wins.
TEST_F(FileStoreTest, AttemptKeysThatCollideInTheIndexAreToldApart) {
  FileStoreOptions colliding;
  colliding.attempt_key_hash = [](std::string_view key) -> uint64_t { return key.size() % 2; };
  {
    auto st = FileStore::Open(dir_, colliding);
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    for (int i = 0; i < 40; ++i) ASSERT_TRUE(*(*st)->PutAttempt("s", MakeAttempt(i))) << i;
    for (int i = 0; i < 40; ++i) EXPECT_FALSE(*(*st)->PutAttempt("s", MakeAttempt(i))) << i;
    v1::Attempt other = MakeAttempt(3);
    other.set_attempt_id(other.attempt_id() + "x");
    EXPECT_TRUE(*(*st)->PutAttempt("s", other)) << "a new id of a stored configuration";
    EXPECT_EQ(*(*st)->CountAttempts("s"), 41);
  }
  v1::Attempt again = MakeAttempt(5);  // appended raw: a second record with a stored key
  (*again.mutable_info())["which"] = "second";
  std::string record;
  AppendRecord(&record, RecordType::kAttempt,
               std::string("\x01\x00\x00\x00s", 5) + again.SerializeAsString());
  WriteFile(log(), ReadFile(log()) + record);
  for (const FileStoreOptions& options : {colliding, FileStoreOptions{}}) {
    auto st = FileStore::Open(dir_, options);
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    EXPECT_EQ(*(*st)->CountAttempts("s"), 41) << "the raw duplicate is not counted";
    EXPECT_FALSE(*(*st)->PutAttempt("s", MakeAttempt(39)));
    auto loaded = (*st)->LoadAttempts("s");
    ASSERT_TRUE(loaded.ok());
    for (const auto& a : *loaded) EXPECT_EQ(a.info().count("which"), 0u) << "the first wins";
  }
}

// Attempts and configuration records are read back from the log, not kept in memory: a body
// overwritten on disk while the store is open is what LoadAttempts and LoadConfigs see.
TEST_F(FileStoreTest, AttemptsAndRecordsAreReadFromTheLog) {
  auto st = FileStore::Open(dir_);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  v1::Attempt a = MakeAttempt(1);
  a.set_stderr_tail("tail-AAAA");
  ASSERT_TRUE(*(*st)->PutAttempt("s", a));
  v1::ConfigRecord r;
  r.set_config_key("k-1");
  r.set_last_failure_detail("detail-AAAA");
  ASSERT_TRUE((*st)->PutConfigs("s", {r}).ok());
  ASSERT_TRUE((*st)->Flush().ok());
  std::string image = ReadFile(log());
  for (const char* what : {"tail-AAAA", "detail-AAAA"}) {
    size_t at = image.find(what);
    ASSERT_NE(at, std::string::npos) << what;
    image.replace(at + std::string(what).size() - 4, 4, "BBBB");
  }
  WriteFile(log(), image);
  auto attempts = (*st)->LoadAttempts("s");
  ASSERT_TRUE(attempts.ok()) << attempts.status().ToString();
  ASSERT_EQ(attempts->size(), 1u);
  EXPECT_EQ((*attempts)[0].stderr_tail(), "tail-BBBB");
  auto configs = (*st)->LoadConfigs("s");
  ASSERT_TRUE(configs.ok()) << configs.status().ToString();
  ASSERT_EQ(configs->size(), 1u);
  EXPECT_EQ((*configs)[0].last_failure_detail(), "detail-BBBB");
  // The log cut short under the open store: the index points past its end.
  ASSERT_EQ(::truncate(log().c_str(), 8), 0);
  EXPECT_EQ((*st)->LoadAttempts("s").status().code(), StatusCode::kDataLoss);
  EXPECT_EQ((*st)->LoadConfigs("s").status().code(), StatusCode::kDataLoss);
}

// Many records are parsed in two halves on two threads: every record comes back once, in
// LoadConfigs' order (seq, then key), and a record the second half cannot read is still DataLoss.
TEST_F(FileStoreTest, ManyRecordsAreReadInHalvesAndComeBackInOrder) {
  auto st = FileStore::Open(dir_);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  constexpr int kRecords = 30000;  // above the two-thread threshold
  std::vector<v1::ConfigRecord> records(kRecords);
  for (int i = 0; i < kRecords; ++i) {
    records[static_cast<size_t>(i)].set_config_key("k-" + std::to_string(i));
    records[static_cast<size_t>(i)].set_seq(kRecords - i);  // stored in the reverse of seq order
    (*records[static_cast<size_t>(i)].mutable_params())["i"] = std::to_string(i);
  }
  ASSERT_TRUE((*st)->PutConfigs("s", records).ok());
  ASSERT_TRUE((*st)->Flush().ok());
  auto configs = (*st)->LoadConfigs("s");
  ASSERT_TRUE(configs.ok()) << configs.status().ToString();
  ASSERT_EQ(configs->size(), static_cast<size_t>(kRecords));
  for (int j = 0; j < kRecords; ++j) {
    const v1::ConfigRecord& r = (*configs)[static_cast<size_t>(j)];
    const int i = kRecords - 1 - j;
    ASSERT_EQ(r.seq(), j + 1);
    ASSERT_EQ(r.config_key(), "k-" + std::to_string(i));
    ASSERT_EQ(r.params().at("i"), std::to_string(i));
  }
  // The log cut at three quarters: only the second half's reads fail, and they are reported.
  const off_t size = static_cast<off_t>(ReadFile(log()).size());
  ASSERT_EQ(::truncate(log().c_str(), size * 3 / 4), 0);
  EXPECT_EQ((*st)->LoadConfigs("s").status().code(), StatusCode::kDataLoss);
}

TEST(OpenStoreTest, FileUrlForms) {
  auto tmp = TempDir::Create("fs-openstore");
  ASSERT_TRUE(tmp.ok());
  const std::vector<std::string> urls = {"file:" + tmp->Join("a"), "file://" + tmp->Join("b"),
                                         tmp->Join("c")};
  for (const std::string& url : urls) {
    auto st = OpenStore(url);
    ASSERT_TRUE(st.ok()) << url << ": " << st.status().ToString();
    EXPECT_EQ((*st)->Describe().rfind("file:", 0), 0u);
    EXPECT_NE((*st)->Describe().find(tmp->path()), std::string::npos);
  }
  EXPECT_EQ(OpenStore("").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(OpenStore("file:").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(OpenStore("http://x/y").status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fleetsweep
