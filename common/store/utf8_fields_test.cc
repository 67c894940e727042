// utf8_fields: the ASCII fast path of IsValidUtf8 and the Attempt overload of HasInvalidUtf8,
// each against what it replaces (the byte-by-byte walk; the reflective walk over every string
// field, so a string field added to Attempt without the overload fails here).
#include "common/store/utf8_fields.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fleetsweep {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

const std::string kBad("\xff", 1);

TEST(Utf8Fields, AnInvalidByteIsFoundAtEveryPositionAroundTheFastPath) {
  for (size_t len = 1; len <= 33; ++len) {
    for (size_t at = 0; at < len; ++at) {
      std::string s(len, 'a');
      s[at] = '\x80';  // a continuation byte cannot start a sequence
      EXPECT_FALSE(IsValidUtf8(s)) << "len " << len << " at " << at;
    }
    EXPECT_TRUE(IsValidUtf8(std::string(len, 'a')));
  }
}

TEST(Utf8Fields, MultiByteSequencesAcrossEightByteBoundaries) {
  const std::string euro = "\xe2\x82\xac", emoji = "\xf0\x9f\x98\x80";
  for (size_t pad = 0; pad <= 9; ++pad) {
    EXPECT_TRUE(IsValidUtf8(std::string(pad, 'x') + euro + std::string(9, 'y')));
    EXPECT_TRUE(IsValidUtf8(std::string(pad, 'x') + emoji));
    EXPECT_FALSE(IsValidUtf8(std::string(pad, 'x') + euro.substr(0, 2)));   // cut off
    EXPECT_FALSE(IsValidUtf8(std::string(pad, 'x') + "\xc0\xaf"));          // overlong '/'
    EXPECT_FALSE(IsValidUtf8(std::string(pad, 'x') + "\xed\xa0\x80"));      // a surrogate
    EXPECT_FALSE(IsValidUtf8(std::string(pad, 'x') + "\xf4\x90\x80\x80"));  // past U+10FFFF
  }
}

v1::Attempt ValidAttempt() {
  v1::Attempt a;
  a.set_config_key("k");
  a.set_attempt_id("k-1");
  a.add_samples()->set_metric("time_ms");
  (*a.mutable_info())["torch"] = "2.11 \xe2\x82\xac";
  a.set_stderr_tail(std::string(40, 'e'));
  return a;
}

// One copy of `base` per string field reachable from it by reflection (a repeated message or a
// map gets one more element; a map's key and value are separate fields), with that field invalid.
void OneInvalidEach(Message* root, Message* m, std::vector<v1::Attempt>* out) {
  const auto* refl = m->GetReflection();
  const auto* desc = m->GetDescriptor();
  for (int i = 0; i < desc->field_count(); ++i) {
    const FieldDescriptor* f = desc->field(i);
    if (f->type() == FieldDescriptor::TYPE_STRING && !f->is_repeated()) {
      const std::string keep = refl->GetString(*m, f);
      refl->SetString(m, f, keep + kBad);
      out->push_back(static_cast<const v1::Attempt&>(*root));
      refl->SetString(m, f, keep);
    } else if (f->type() == FieldDescriptor::TYPE_STRING) {
      refl->AddString(m, f, kBad);
      out->push_back(static_cast<const v1::Attempt&>(*root));
      refl->RemoveLast(m, f);
    } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE && f->is_repeated()) {
      Message* added = refl->AddMessage(m, f);
      if (f->is_map()) {  // a map entry's key and value must differ from the others' keys
        added->GetReflection()->SetString(added, added->GetDescriptor()->field(0), "new key");
      }
      OneInvalidEach(root, added, out);
      refl->RemoveLast(m, f);
    } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      OneInvalidEach(root, refl->MutableMessage(m, f), out);
    }
  }
}

TEST(Utf8Fields, TheAttemptOverloadFindsAnInvalidStringInEveryFieldReflectionFinds) {
  v1::Attempt base = ValidAttempt();
  EXPECT_FALSE(HasInvalidUtf8(base));
  EXPECT_FALSE(HasInvalidUtf8(static_cast<const Message&>(base)));
  std::vector<v1::Attempt> variants;
  v1::Attempt work = base;
  OneInvalidEach(&work, &work, &variants);
  // 10 strings of Attempt and Check, a sample's metric, the info map's key and value.
  EXPECT_EQ(variants.size(), 13u);
  for (size_t i = 0; i < variants.size(); ++i) {
    EXPECT_TRUE(HasInvalidUtf8(static_cast<const Message&>(variants[i]))) << i;
    EXPECT_TRUE(HasInvalidUtf8(variants[i])) << variants[i].ShortDebugString();
  }
}

}  // namespace
}  // namespace fleetsweep
