// CurveFromFlags on real key files (written by GenerateKeyPair).
#include "coordinator/server/curve_flags.h"

#include <gtest/gtest.h>

#include <fstream>

#include "common/util/keys.h"
#include "tests/support/temp_dir.h"

namespace fleetsweep {
namespace {

TEST(CurveFromFlags, InsecureIsOffWhateverTheFiles) {
  auto c = CurveFromFlags(true, "/nonexistent.key", "");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_FALSE(c->enabled);
  EXPECT_TRUE(c->secret_key_z85.empty());
}

TEST(CurveFromFlags, SecureNeedsBothFiles) {
  for (auto [secret, keys] : {std::pair<std::string, std::string>{"", "auth"}, {"s.key", ""}}) {
    auto c = CurveFromFlags(false, secret, keys);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(c.status().message().find("--curve-secret-key and --authorized-keys"),
              std::string::npos)
        << c.status().message();
  }
}

TEST(CurveFromFlags, ReadsTheSecretKeyAndKeepsTheKeysFile) {
  auto d = testing::TempDir::Create();
  ASSERT_TRUE(d.ok());
  auto pub = GenerateKeyPair(d->Join("coord"));
  ASSERT_TRUE(pub.ok()) << pub.status().message();
  auto secret = ReadKeyFile(d->Join("coord.key"));
  ASSERT_TRUE(secret.ok());
  auto c = CurveFromFlags(false, d->Join("coord.key"), d->Join("workers.pub"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_TRUE(c->enabled);
  EXPECT_EQ(c->secret_key_z85, *secret);
  EXPECT_EQ(c->secret_key_z85.size(), 40u);
  EXPECT_EQ(c->authorized_keys_file, d->Join("workers.pub"));
}

TEST(CurveFromFlags, AnUnreadableOrMalformedSecretKeyNamesTheFile) {
  auto d = testing::TempDir::Create();
  ASSERT_TRUE(d.ok());
  auto missing = CurveFromFlags(false, d->Join("none.key"), d->Join("workers.pub"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(d->Join("none.key")), std::string::npos);
  std::ofstream(d->Join("bad.key")) << "not-a-key\n";
  auto bad = CurveFromFlags(false, d->Join("bad.key"), d->Join("workers.pub"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(d->Join("bad.key") + ":1"), std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace fleetsweep
