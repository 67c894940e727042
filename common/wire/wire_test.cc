#include "common/wire/wire.h"

#include <gtest/gtest.h>

#include <random>

namespace fleetsweep {
namespace {

TEST(Wire, RoundTripStampsVersion) {
  v1::Envelope e;
  e.set_sender_id("w1");
  e.mutable_work_request()->set_free_slots(3);
  std::string bytes = EncodeEnvelope(e);
  auto d = DecodeEnvelope(bytes.data(), bytes.size());
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->protocol_version(), kProtocolVersion);
  EXPECT_EQ(d->work_request().free_slots(), 3);
  EXPECT_STREQ(EnvelopeKind(*d), "work_request");
}

TEST(Wire, RejectsEmptyGarbageTruncatedAndOtherVersions) {
  EXPECT_EQ(DecodeEnvelope("", 0).status().code(), StatusCode::kInvalidArgument);
  std::string garbage = "\xff\xff\xff\xff\xff\x01garbage";
  EXPECT_FALSE(DecodeEnvelope(garbage.data(), garbage.size()).ok());

  v1::Envelope e;
  e.mutable_lease()->set_lease_id(std::string(1000, 'x'));
  std::string bytes = EncodeEnvelope(e);
  auto t = DecodeEnvelope(bytes.data(), bytes.size() / 2);
  EXPECT_FALSE(t.ok());

  e.set_protocol_version(7);
  std::string v7;
  e.SerializeToString(&v7);
  auto d = DecodeEnvelope(v7.data(), v7.size());
  EXPECT_EQ(d.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(d.status().message().find("version 7"), std::string::npos);

  v1::Envelope empty;
  std::string eb = EncodeEnvelope(empty);
  EXPECT_EQ(DecodeEnvelope(eb.data(), eb.size()).status().code(), StatusCode::kInvalidArgument);
}

TEST(Wire, OversizedRejectedWithoutParsing) {
  std::string big(kMaxWireMessageBytes + 1, '\0');
  auto d = DecodeEnvelope(big.data(), big.size());
  EXPECT_EQ(d.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(d.status().message().find("exceeds"), std::string::npos);
}

TEST(Wire, RandomBytesNeverCrash) {
  std::mt19937 rng(42);
  for (int i = 0; i < 20000; ++i) {
    std::string s(rng() % 64 + 1, '\0');
    for (auto& c : s) c = static_cast<char>(rng());
    (void)DecodeEnvelope(s.data(), s.size());
  }
  SUCCEED();
}

}  // namespace
}  // namespace fleetsweep
