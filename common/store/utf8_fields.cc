#include "common/store/utf8_fields.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace fleetsweep {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// Length of the valid UTF-8 sequence starting at s[i], or 0 when none starts there.
size_t SequenceLength(std::string_view s, size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  size_t n;
  uint32_t cp;
  if ((c >> 5) == 0x6) {
    n = 1;
    cp = c & 0x1F;
  } else if ((c >> 4) == 0xE) {
    n = 2;
    cp = c & 0x0F;
  } else if ((c >> 3) == 0x1E) {
    n = 3;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (s.size() - i <= n) return 0;
  for (size_t k = 1; k <= n; ++k) {
    auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are invalid.
  if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
      cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    return 0;
  }
  return n + 1;
}

// Visits every string field; `fix` non-null repairs them. Returns the count of invalid fields.
int Walk(const Message& m, Message* fix) {
  const auto* refl = m.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  refl->ListFields(m, &fields);
  int bad = 0;
  for (const FieldDescriptor* f : fields) {
    if (f->type() == FieldDescriptor::TYPE_STRING) {
      if (f->is_repeated()) {
        for (int i = 0; i < refl->FieldSize(m, f); ++i) {
          const std::string& v = refl->GetRepeatedString(m, f, i);
          if (IsValidUtf8(v)) continue;
          ++bad;
          if (fix != nullptr) refl->SetRepeatedString(fix, f, i, ToValidUtf8(v));
        }
      } else {
        const std::string& v = refl->GetString(m, f);
        if (IsValidUtf8(v)) continue;
        ++bad;
        if (fix != nullptr) refl->SetString(fix, f, ToValidUtf8(v));
      }
    } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (f->is_repeated()) {
        for (int i = 0; i < refl->FieldSize(m, f); ++i) {
          Message* sub = fix != nullptr ? refl->MutableRepeatedMessage(fix, f, i) : nullptr;
          bad += Walk(sub != nullptr ? *sub : refl->GetRepeatedMessage(m, f, i), sub);
        }
      } else {
        Message* sub = fix != nullptr ? refl->MutableMessage(fix, f) : nullptr;
        bad += Walk(sub != nullptr ? *sub : refl->GetMessage(m, f), sub);
      }
    }
  }
  return bad;
}

}  // namespace

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  // ASCII fast path: 8 bytes at a time while none has its high bit set.
  for (uint64_t w; i + 8 <= s.size(); i += 8) {
    std::memcpy(&w, s.data() + i, 8);
    if ((w & 0x8080808080808080ULL) != 0) break;
  }
  while (i < s.size()) {
    size_t n = SequenceLength(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string ToValidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t n = SequenceLength(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
  return out;
}

bool HasInvalidUtf8(const Message& m) { return Walk(m, nullptr) > 0; }

bool HasInvalidUtf8(const v1::Attempt& a) {
  for (const std::string* s : {&a.config_key(), &a.attempt_id(), &a.worker_id(), &a.node(),
                               &a.device(), &a.failure_detail(), &a.fingerprint(),
                               &a.check().detail(), &a.stdout_tail(), &a.stderr_tail()}) {
    if (!IsValidUtf8(*s)) return true;
  }
  for (const v1::Sample& s : a.samples()) {
    if (!IsValidUtf8(s.metric())) return true;
  }
  for (const auto& [key, value] : a.info()) {
    if (!IsValidUtf8(key) || !IsValidUtf8(value)) return true;
  }
  return false;
}

int SanitizeUtf8Fields(Message* m) { return Walk(*m, m); }

}  // namespace fleetsweep
