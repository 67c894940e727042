#include "worker/executors/confine.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace fleetsweep {
namespace {

namespace fs = std::filesystem;

class ConfineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "confine_test-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    tmp_ = fs::canonical(tmpl).string();
    auto r = PrepareScratchRoot(tmp_ + "/root");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    root_ = *r;
    fs::create_directories(tmp_ + "/outside");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(tmp_, ec);
  }
  std::string tmp_, root_;
};

TEST_F(ConfineTest, NewRootIsPrivateAndCanonical) {
  EXPECT_EQ(root_, tmp_ + "/root");
  struct stat st;
  ASSERT_EQ(stat(root_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  auto fresh = PrepareScratchRoot("");
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(*PrepareScratchRoot(""), *fresh) << "one default root per process";
  ASSERT_EQ(stat(fresh->c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST_F(ConfineTest, OnlyTheDefaultRootThisProcessMadeIsRemoved) {
  auto made = PrepareScratchRoot("");
  ASSERT_TRUE(made.ok());
  std::ofstream(*made + "/left-behind") << "x";
  std::ofstream(root_ + "/kept") << "x";
  // A forked child that exits normally leaves its parent's default root alone.
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    RemoveDefaultScratchRoot();
    _exit(fs::exists(*made) ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child removed the root";

  RemoveDefaultScratchRoot();
  EXPECT_FALSE(fs::exists(*made)) << "the default root outlived RemoveDefaultScratchRoot";
  EXPECT_TRUE(fs::exists(root_ + "/kept")) << "a configured root was touched";
  auto again = PrepareScratchRoot("");
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(fs::is_directory(*again)) << "no new default root after a removal";
  RemoveDefaultScratchRoot();
}

TEST_F(ConfineTest, RelativeAndAbsolutePathsInsideAreAccepted) {
  EXPECT_EQ(*ConfinePath(root_, root_, "a/b"), root_ + "/a/b");
  EXPECT_EQ(*ConfinePath(root_, root_ + "/a", "../c"), root_ + "/c");
  EXPECT_EQ(*ConfinePath(root_, root_, root_ + "/x/./y"), root_ + "/x/y");
  EXPECT_EQ(*ConfinePath(root_, root_, "."), root_);
}

TEST_F(ConfineTest, EscapesAreRefusedNamingTheRoot) {
  for (const std::string& p :
       {std::string("../outside"), std::string("a/../../outside/k"), tmp_ + "/outside",
        std::string("/etc/passwd"), tmp_ + "/root2" /* a prefix, not a child */}) {
    auto r = ConfinePath(root_, root_, p);
    ASSERT_FALSE(r.ok()) << p;
    EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(r.status().message().find(root_), std::string::npos) << r.status().message();
  }
}

TEST_F(ConfineTest, SymlinksAreResolvedBeforeTheCheck) {
  fs::create_directory_symlink(tmp_ + "/outside", root_ + "/link");
  EXPECT_FALSE(ConfinePath(root_, root_, "link/new/file").ok());
  EXPECT_FALSE(MakeConfinedDir(root_, "link/sub").ok());
  EXPECT_FALSE(fs::exists(tmp_ + "/outside/sub"));
  EXPECT_FALSE(WriteConfinedFile(root_, root_ + "/link/authorized_keys", "k").ok());
  EXPECT_FALSE(fs::exists(tmp_ + "/outside/authorized_keys"));
  std::ofstream(tmp_ + "/outside/secret") << "s";
  fs::create_symlink(tmp_ + "/outside/secret", root_ + "/result.json");
  EXPECT_FALSE(ReadConfinedFile(root_, "result.json", 100).ok());
  EXPECT_FALSE(WriteConfinedFile(root_, "result.json", "x").ok());
  // A symlink that stays inside is fine.
  fs::create_directories(root_ + "/real");
  fs::create_directory_symlink(root_ + "/real", root_ + "/alias");
  EXPECT_EQ(*ConfinePath(root_, root_, "alias/f"), root_ + "/real/f");
}

TEST_F(ConfineTest, WriteAndReadInside) {
  ASSERT_TRUE(WriteConfinedFile(root_, "d/e/f.txt", "hello").ok());
  EXPECT_EQ(*ReadConfinedFile(root_, root_ + "/d/e/f.txt", 100), "hello");
  EXPECT_EQ(ReadConfinedFile(root_, "d/e/f.txt", 3).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadConfinedFile(root_, "missing", 3).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace fleetsweep
