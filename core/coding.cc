#include "core/coding.h"

#include "absl/base/config.h"

namespace minigraph {

static_assert(ABSL_IS_LITTLE_ENDIAN,
              "minigraph's fixed-width coding assumes a little-endian host");

void PutFixed32(std::string* dst, uint32_t value) {
  char buf[sizeof(value)];
  EncodeFixed32(buf, value);
  dst->append(buf, sizeof(buf));
}

void PutFixed64(std::string* dst, uint64_t value) {
  char buf[sizeof(value)];
  EncodeFixed64(buf, value);
  dst->append(buf, sizeof(buf));
}

char* EncodeVarint64(char* dst, uint64_t v) {
  auto* ptr = reinterpret_cast<unsigned char*>(dst);
  while (v >= 128) {
    *(ptr++) = static_cast<unsigned char>(v | 128);
    v >>= 7;
  }
  *(ptr++) = static_cast<unsigned char>(v);
  return reinterpret_cast<char*>(ptr);
}

void PutVarint32(std::string* dst, uint32_t v) { PutVarint64(dst, v); }

void PutVarint64(std::string* dst, uint64_t v) {
  char buf[kMaxVarint64Bytes];
  char* end = EncodeVarint64(buf, v);
  dst->append(buf, end - buf);
}

int VarintLength(uint64_t v) {
  int len = 1;
  while (v >= 128) {
    v >>= 7;
    ++len;
  }
  return len;
}

bool GetVarint64(absl::string_view* input, uint64_t* value) {
  uint64_t result = 0;
  for (int i = 0, shift = 0; i < kMaxVarint64Bytes; ++i, shift += 7) {
    if (static_cast<size_t>(i) >= input->size()) return false;
    const uint64_t byte = static_cast<unsigned char>((*input)[i]);
    if (i == kMaxVarint64Bytes - 1 && byte > 1) return false;  // > 64 bits
    result |= (byte & 127) << shift;
    if ((byte & 128) == 0) {
      *value = result;
      input->remove_prefix(i + 1);
      return true;
    }
  }
  return false;
}

bool GetVarint32(absl::string_view* input, uint32_t* value) {
  uint32_t result = 0;
  for (int i = 0, shift = 0; i < kMaxVarint32Bytes; ++i, shift += 7) {
    if (static_cast<size_t>(i) >= input->size()) return false;
    const uint32_t byte = static_cast<unsigned char>((*input)[i]);
    if (i == kMaxVarint32Bytes - 1 && byte > 15) return false;  // > 32 bits
    result |= (byte & 127) << shift;
    if ((byte & 128) == 0) {
      *value = result;
      input->remove_prefix(i + 1);
      return true;
    }
  }
  return false;
}

bool GetFixed32(absl::string_view* input, uint32_t* value) {
  if (input->size() < sizeof(uint32_t)) return false;
  *value = DecodeFixed32(input->data());
  input->remove_prefix(sizeof(uint32_t));
  return true;
}

bool GetFixed64(absl::string_view* input, uint64_t* value) {
  if (input->size() < sizeof(uint64_t)) return false;
  *value = DecodeFixed64(input->data());
  input->remove_prefix(sizeof(uint64_t));
  return true;
}

}  // namespace minigraph
