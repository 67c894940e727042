#include "common/wire/wire.h"

#include <gtest/gtest.h>

#include <random>

namespace fleetsweep {
namespace {

TEST(Wire, RoundTripStampsVersion) {
  v1::Envelope e;
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
  e.mutable_leases()->add_leases()->set_lease_id(std::string(1000, 'x'));
  std::string bytes = EncodeEnvelope(e);
  auto t = DecodeEnvelope(bytes.data(), bytes.size() / 2);
  EXPECT_FALSE(t.ok());

  e.set_protocol_version(7);
  std::string v7;
  e.SerializeToString(&v7);
  auto d = DecodeEnvelope(v7.data(), v7.size());
  EXPECT_EQ(d.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(d.status().message().find("version 7"), std::string::npos);
  EXPECT_NE(d.status().message().find("version 2"), std::string::npos);

  v1::Envelope empty;
  std::string eb = EncodeEnvelope(empty);
  EXPECT_EQ(DecodeEnvelope(eb.data(), eb.size()).status().code(), StatusCode::kInvalidArgument);
}

// A version-1 peer: its messages are refused naming both versions, and the Reject it gets is
// stamped with its own version so that it can read it (Reject's layout is frozen).
TEST(Wire, VersionOnePeerIsToldInItsOwnVersion) {
  v1::Envelope hello;
  hello.mutable_hello()->mutable_node()->set_slots(1);
  hello.set_protocol_version(1);
  std::string v1_bytes;
  ASSERT_TRUE(hello.SerializeToString(&v1_bytes));
  uint32_t peer = 0;
  auto d = DecodeEnvelope(v1_bytes.data(), v1_bytes.size(), &peer);
  EXPECT_EQ(d.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(peer, 1u);
  EXPECT_NE(d.status().message().find("protocol version 1"), std::string::npos);
  EXPECT_NE(d.status().message().find("speaks version 2"), std::string::npos);

  std::string reject = EncodeVersionReject(peer);
  v1::Envelope as_v1;  // what a version-1 peer decodes
  ASSERT_TRUE(as_v1.ParseFromString(reject));
  EXPECT_EQ(as_v1.protocol_version(), 1u);
  ASSERT_TRUE(as_v1.has_reject());
  EXPECT_NE(as_v1.reject().reason().find("version 1 is not supported"), std::string::npos);
  EXPECT_NE(as_v1.reject().reason().find("speaks version 2"), std::string::npos);
  EXPECT_EQ(as_v1.reject().speaks_protocol_version(), kProtocolVersion);
  // Decoded here (version 2), the Reject's reason travels in the error.
  auto back = DecodeEnvelope(reject.data(), reject.size());
  EXPECT_EQ(back.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(back.status().message().find("the peer says: protocol version 1"), std::string::npos);

  // A newer (unknown) version gets our version's stamp: it is the one that knows both.
  v1::Envelope r9;
  std::string newer = EncodeVersionReject(9);
  ASSERT_TRUE(r9.ParseFromString(newer));
  EXPECT_EQ(r9.protocol_version(), kProtocolVersion);
  EXPECT_NE(r9.reject().reason().find("version 9"), std::string::npos);
}

TEST(Wire, SpecHashIsTheTextsFnv) {
  EXPECT_EQ(SpecHash("a"), SpecHash("a"));
  EXPECT_NE(SpecHash("a"), SpecHash("b"));
  EXPECT_EQ(SpecHash("").size(), 16u);
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
