// The file store's byte-level helpers (file_store.h), shared by its opening (file_store_open.cc)
// and its reads and writes (file_store.cc). Internal to common/store. Errors: PreadAll returns
// kInternal with the path and errno text; the others cannot fail (SplitPayload says false).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace fleetsweep::file_store_io {

// `what` + ": " + strerror(errno).
std::string Errno(const std::string& what);
// [u32 sweep length][sweep][body]
std::string Payload(const std::string& sweep, const std::string& body);
// Where the body of a record written at `record_offset` starts: after the frame header and the
// payload's [u32 sweep length][sweep].
uint64_t BodyOffset(uint64_t record_offset, const std::string& sweep);
// The inverse of Payload; false when `p` is malformed.
bool SplitPayload(std::string_view p, std::string* sweep, std::string_view* body);
// Reads up to n bytes at `offset`; *got is how many (fewer only at the end of the file).
Status PreadAll(int fd, const std::string& path, char* out, size_t n, uint64_t offset, size_t* got);
// fsync of a directory (its entries); best effort.
void SyncDir(const std::string& dir);

}  // namespace fleetsweep::file_store_io
