// UTF-8 validity of protobuf string fields.
//
// proto3 `string` fields that hold bytes which are not UTF-8 serialize (with a logged error) but
// then FAIL to parse, so such a record, once stored, would make the whole store unreadable.
// The stores therefore repair free-text fields (stdout/stderr tails cut in the middle of a
// character, binary benchmark output) before writing: every byte that does not start a valid
// UTF-8 sequence becomes U+FFFD. Identity fields (config_key, attempt_id) are never repaired;
// the stores reject them instead (store_checks.h).
//
// Thread-safety: pure functions (SanitizeUtf8Fields mutates only its argument).
#pragma once

#include <google/protobuf/message.h>

#include <string>
#include <string_view>

#include "fleetsweep/v1/data.pb.h"

namespace fleetsweep {

bool IsValidUtf8(std::string_view s);
// `s` with each invalid byte replaced by U+FFFD (EF BF BD); valid input is returned unchanged.
std::string ToValidUtf8(std::string_view s);
// True when some string field of `m` (recursively, map keys and values included) is not UTF-8.
bool HasInvalidUtf8(const google::protobuf::Message& m);
// The same answer for an Attempt (the store's hot path), read through the generated accessors: no
// reflection, which would also copy the `info` map into its repeated form on every call.
bool HasInvalidUtf8(const v1::Attempt& a);
// Repairs every string field of `*m` with ToValidUtf8; returns how many fields changed.
int SanitizeUtf8Fields(google::protobuf::Message* m);

}  // namespace fleetsweep
