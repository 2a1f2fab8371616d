#include "checkpoint/saved_slices.h"

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/types.h"

namespace minigraph {

// TensorFlow's OrderedCode (tensorflow/core/lib/strings/ordered_code.cc),
// the three writers its slice keys use. Written here because no library on
// this machine has it; the layouts are in tensor_bundle_format.md §8.
namespace {

// A length byte, then the value's big-endian bytes without leading zeros.
void WriteNumIncreasing(std::string* dest, uint64_t v) {
  char buf[8];
  int len = 0;
  for (; v > 0; v >>= 8) buf[7 - len++] = static_cast<char>(v & 0xff);
  dest->push_back(static_cast<char>(len));
  dest->append(buf + 8 - len, len);
}

// The bytes with 0x00 as 00 ff and 0xff as ff 00, then 00 01.
void WriteString(std::string* dest, absl::string_view s) {
  for (char c : s) {
    if (c == '\0') {
      dest->append("\x00\xff", 2);
    } else if (c == '\xff') {
      dest->append("\xff\x00", 2);
    } else {
      dest->push_back(c);
    }
  }
  dest->append("\x00\x01", 2);
}

// The value in the fewest bytes n for which it fits 7n - 1 bits, sign
// extended, its first bits marking n.
void WriteSignedNumIncreasing(std::string* dest, int64_t v) {
  static constexpr unsigned char kHeader[11][2] = {{0, 0},    {0x80, 0},    {0xc0, 0},   {0xe0, 0},
                                                   {0xf0, 0}, {0xf8, 0},    {0xfc, 0},   {0xfe, 0},
                                                   {0xff, 0}, {0xff, 0x80}, {0xff, 0xc0}};
  const uint64_t x = v < 0 ? ~static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  if (x < 64) {
    dest->push_back(static_cast<char>(kHeader[1][0] ^ static_cast<unsigned char>(v)));
    return;
  }
  int bits = 0;
  for (uint64_t y = x; y > 0; y >>= 1) ++bits;
  const int len = (bits + 7) / 7;  // the smallest n with bits <= 7n - 1
  unsigned char buf[10];
  const unsigned char sign = v < 0 ? 0xff : 0x00;
  buf[0] = buf[1] = sign;
  for (int i = 0; i < 8; ++i)
    buf[2 + i] = static_cast<unsigned char>(static_cast<uint64_t>(v) >> (56 - 8 * i));
  unsigned char* begin = buf + 10 - len;
  begin[0] ^= kHeader[len][0];
  begin[1] ^= kHeader[len][1];
  dest->append(reinterpret_cast<const char*>(begin), len);
}

}  // namespace

std::string EncodeTensorNameSlice(absl::string_view name, const TensorSlice& slice) {
  std::string key;
  WriteNumIncreasing(&key, 0);
  WriteString(&key, name);
  WriteNumIncreasing(&key, slice.dims());
  for (int d = 0; d < slice.dims(); ++d) {
    WriteSignedNumIncreasing(&key, slice.start(d));
    WriteSignedNumIncreasing(&key, slice.length(d));
  }
  return key;
}

std::string SlicePlacementError(const TensorSlice& slice, const TensorShape& shape,
                                const std::vector<TensorSlice>& others) {
  if (absl::Status s = slice.CheckWithin(shape); !s.ok()) return std::string(s.message());
  for (const TensorSlice& other : others) {
    TensorSlice overlap;
    if (slice.Intersect(other, shape, &overlap)) {
      return absl::StrCat("has overlapping slices \"", other.DebugString(), "\" and \"",
                          slice.DebugString(), "\"");
    }
  }
  return "";
}

void CopySliceRegion(const Tensor& src, const TensorSlice& src_slice, const TensorSlice& region,
                     const TensorShape& full_shape, const TensorSlice& dst_slice, Tensor* dst) {
  const int rank = full_shape.dims();
  const TensorShape src_shape = src_slice.SliceShape(full_shape);
  const TensorShape dst_shape = dst_slice.SliceShape(full_shape);
  // Row-major strides, and the region's origin within each tensor.
  std::vector<int64_t> src_stride(rank, 1), dst_stride(rank, 1), len(rank);
  int64_t src_at = 0, dst_at = 0;
  for (int d = rank - 1; d >= 0; --d) {
    if (d + 1 < rank) {
      src_stride[d] = src_stride[d + 1] * src_shape.dim_size(d + 1);
      dst_stride[d] = dst_stride[d + 1] * dst_shape.dim_size(d + 1);
    }
    const int64_t r0 = region.start(d);
    len[d] = region.IsFullAt(d) ? full_shape.dim_size(d) : region.length(d);
    src_at += (r0 - src_slice.start(d)) * src_stride[d];
    dst_at += (r0 - dst_slice.start(d)) * dst_stride[d];
  }
  for (int64_t l : len) {
    if (l == 0) return;
  }
  const int64_t run = rank == 0 ? 1 : len[rank - 1];
  const bool strings = src.dtype() == DT_STRING;
  const size_t elem = strings ? 0 : DataTypeSize(src.dtype());
  const char* s = static_cast<const char*>(src.raw_data());
  char* t = static_cast<char*>(dst->raw_data());
  // Walk every run of the last dimension, as an odometer over the others.
  std::vector<int64_t> at(rank > 0 ? rank - 1 : 0, 0);
  for (;;) {
    if (strings) {
      for (int64_t i = 0; i < run; ++i) {
        dst->data<std::string>()[dst_at + i] = src.data<std::string>()[src_at + i];
      }
    } else if (run > 0) {
      std::memcpy(t + dst_at * elem, s + src_at * elem, run * elem);
    }
    int d = rank - 2;
    for (; d >= 0; --d) {
      src_at += src_stride[d];
      dst_at += dst_stride[d];
      if (++at[d] < len[d]) break;
      src_at -= at[d] * src_stride[d];
      dst_at -= at[d] * dst_stride[d];
      at[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace minigraph
