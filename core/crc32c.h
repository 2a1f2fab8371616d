// CRC-32C (Castagnoli), as LevelDB and TensorFlow compute and store it.
//
//   uint32_t crc = crc32c::Value(data, n);
//   crc = crc32c::Extend(crc, more, m);          // streaming
//   uint32_t stored = crc32c::Mask(crc);         // what files hold
//
// Computed by Intel ISA-L's crc32_iscsi (runtime-dispatched to the PCLMUL /
// crc32 instruction kernels), which is faster than memcpy on this hardware.
//
// Thread safety: functions of their arguments only.

#ifndef MINIGRAPH_CORE_CRC32C_H_
#define MINIGRAPH_CORE_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace minigraph {
namespace crc32c {

// Returns the crc32c of concat(A, data[0,n-1]) where `init_crc` is the crc32c
// of some string A. Extend(0, data, n) == Value(data, n).
uint32_t Extend(uint32_t init_crc, const char* data, size_t n);

// Copies src[0,n-1] to dst (not overlapping) and returns
// Extend(init_crc, src, n), in one pass over the bytes: each is checksummed
// from the register it is copied through, with AVX-512 VPCLMULQDQ folding
// or SSE4.2 crc32 on three streams, as CPUID says (crc32c_copy.cc). Written
// by hand because no library here fuses the two: ISA-L, zlib, Abseil and
// LevelDB checksum a buffer in place, so a copy costs a second pass. As
// fast as memcpy with AVX-512 (16-17 GB/s against 13-14 for 256 MiB here).
uint32_t CopyAndExtend(uint32_t init_crc, char* dst, const char* src, size_t n);

// Returns the crc32c of data[0,n-1].
inline uint32_t Value(const char* data, size_t n) { return Extend(0, data, n); }

// From LevelDB's util/crc32c.h: stored CRCs are rotated and offset so that a
// CRC of a string that embeds CRCs is not trivially degenerate.
static constexpr uint32_t kMaskDelta = 0xa282ead8ul;

// Returns the masked representation of `crc` (what TensorFlow stores).
inline uint32_t Mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}

// Returns the crc whose masked representation is `masked_crc`.
inline uint32_t Unmask(uint32_t masked_crc) {
  uint32_t rot = masked_crc - kMaskDelta;
  return ((rot >> 17) | (rot << 15));
}

}  // namespace crc32c
}  // namespace minigraph

#endif  // MINIGRAPH_CORE_CRC32C_H_
