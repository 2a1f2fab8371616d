// Little-endian fixed-width and varint encodings (LevelDB's util/coding.h),
// as used by the checkpoint index and data files.
//
//   std::string buf;
//   PutVarint64(&buf, 300);
//   absl::string_view in(buf);
//   uint64_t v;
//   if (!GetVarint64(&in, &v)) { /* truncated or malformed */ }
//
// Thread safety: functions of their arguments only.

#ifndef MINIGRAPH_CORE_CODING_H_
#define MINIGRAPH_CORE_CODING_H_

#include <cstdint>
#include <cstring>
#include <string>

#include "absl/strings/string_view.h"

namespace minigraph {

// Longest encodings.
inline constexpr int kMaxVarint32Bytes = 5;
inline constexpr int kMaxVarint64Bytes = 10;

void PutFixed32(std::string* dst, uint32_t value);
void PutFixed64(std::string* dst, uint64_t value);
void PutVarint32(std::string* dst, uint32_t value);
void PutVarint64(std::string* dst, uint64_t value);

// Writes `value` at `dst` (which has room for kMaxVarint64Bytes) and returns
// the byte after the last one written.
char* EncodeVarint64(char* dst, uint64_t value);

// Returns the number of bytes the varint encoding of `value` takes.
int VarintLength(uint64_t value);

// Parse a value from the front of `input` and advance past it. Return false,
// leaving `input` unspecified, when it is truncated or over-long.
bool GetVarint32(absl::string_view* input, uint32_t* value);
bool GetVarint64(absl::string_view* input, uint64_t* value);
bool GetFixed32(absl::string_view* input, uint32_t* value);
bool GetFixed64(absl::string_view* input, uint64_t* value);

inline void EncodeFixed32(char* dst, uint32_t value) {
  // Little-endian hosts only (static_assert in coding.cc).
  std::memcpy(dst, &value, sizeof(value));
}

inline void EncodeFixed64(char* dst, uint64_t value) {
  std::memcpy(dst, &value, sizeof(value));
}

inline uint32_t DecodeFixed32(const char* ptr) {
  uint32_t v;
  std::memcpy(&v, ptr, sizeof(v));
  return v;
}

inline uint64_t DecodeFixed64(const char* ptr) {
  uint64_t v;
  std::memcpy(&v, ptr, sizeof(v));
  return v;
}

}  // namespace minigraph

#endif  // MINIGRAPH_CORE_CODING_H_
