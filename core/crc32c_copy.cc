// Copy and crc32c in one pass: every byte is loaded into a register once,
// stored to the destination and folded into the checksum from there.
//
// Written by hand because no library available here offers a fused
// copy-and-crc32c: ISA-L, zlib, Abseil and LevelDB compute a crc of a
// buffer in place, so a copy needs a second pass over the bytes (on one
// thread a restore then runs at 1 / (1/copy + 1/crc) of the memory's speed).
// The methods are ISA-L's and Intel's ("Fast CRC Computation for Generic
// Polynomials Using PCLMULQDQ", 2009): carry-less multiplication folds
// 128-bit lanes forward by a fixed distance, and the SSE4.2 crc32
// instruction, whose latency is three cycles and throughput one, runs on
// three independent streams that a carry-less multiplication joins.
//
// Notation. Bytes are read as in a reflected CRC: a w-bit little-endian
// value v stands for the polynomial whose coefficient of x^(w-1-i) is bit i
// of v. The crc32c register after a message M from a zero register is
// M * x^32 mod P, as 32 bits (P = 0x1EDC6F41, reflected 0x82F63B78).
// clmul(a, k) of a 64-bit a and a 32-bit k is, as 128 bits, a * k * x^33;
// hence the "- 33" in every constant below.
#include <cpuid.h>
#include <immintrin.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "core/crc32c.h"
#include "core/internal/crc32c_copy.h"
#include "isa-l/crc.h"

namespace minigraph {
namespace crc32c_internal {
namespace {

constexpr uint32_t kReflectedPoly = 0x82F63B78u;

// a * b mod P, both reflected (bit 31 is x^0), as zlib's multmodp.
constexpr uint32_t MulModP(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  for (uint32_t m = 0x80000000u; m != 0; m >>= 1) {
    if (a & m) product ^= b;
    b = (b >> 1) ^ (kReflectedPoly & (0u - (b & 1)));
  }
  return product;
}

// x^n mod P, reflected, by squaring. Computed at compile time.
constexpr uint64_t XPowModP(uint64_t n) {
  uint32_t result = 0x80000000u, power = 0x40000000u;  // x^0, x^1
  for (; n > 0; n >>= 1, power = MulModP(power, power)) {
    if (n & 1) result = MulModP(result, power);
  }
  return result;
}

// The two multipliers that move a 128-bit lane `bits` further into the
// message: its low (earlier) 64 bits by bits + 64, its high 64 bits by bits.
struct Fold {
  uint64_t low, high;
};
constexpr Fold FoldBy(uint64_t bits) { return {XPowModP(bits + 64 - 33), XPowModP(bits - 33)}; }

// The crc32c register of the 16 bytes `lane` from a zero register: the
// register of everything folded into it.
inline uint32_t __attribute__((target("sse4.2"))) RegisterOf(uint64_t low, uint64_t high) {
  return static_cast<uint32_t>(_mm_crc32_u64(_mm_crc32_u64(0, low), high));
}

// --- SSE4.2: one stream for short runs and tails ---------------------------

__attribute__((target("sse4.2"))) uint32_t CopyOneStream(uint32_t raw, char* dst, const char* src,
                                                          size_t n) {
  uint64_t crc = raw;
  for (; n >= 8; n -= 8, src += 8, dst += 8) {
    uint64_t v;
    std::memcpy(&v, src, 8);
    crc = _mm_crc32_u64(crc, v);
    std::memcpy(dst, &v, 8);
  }
  uint32_t c = static_cast<uint32_t>(crc);
  for (; n > 0; --n, ++src, ++dst) {
    const uint8_t b = static_cast<uint8_t>(*src);
    c = _mm_crc32_u8(c, b);
    *dst = static_cast<char>(b);
  }
  return c;
}

// --- SSE4.2 + PCLMULQDQ: three streams --------------------------------------

// The register `raw` moved `bytes` further: raw * x^(8 bytes) mod P, given
// k = x^(8 bytes - 33) mod P.
__attribute__((target("sse4.2,pclmul"))) inline uint32_t Shift(uint32_t raw, uint64_t k) {
  const __m128i p = _mm_clmulepi64_si128(_mm_cvtsi32_si128(static_cast<int>(raw)),
                                         _mm_cvtsi64_si128(static_cast<long long>(k)), 0x00);
  return static_cast<uint32_t>(_mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(p))));
}

// One round over 3 * kStream bytes: three streams of kStream bytes each,
// joined as raw(a) * x^(2 * 8 kStream) + raw(b) * x^(8 kStream) + raw(c).
template <size_t kStream>
__attribute__((target("sse4.2,pclmul"))) inline uint32_t ThreeStreams(uint32_t raw, char* dst,
                                                                       const char* src) {
  static constexpr uint64_t kOne = XPowModP(8 * kStream - 33);
  static constexpr uint64_t kTwo = XPowModP(2 * 8 * kStream - 33);
  uint64_t a = raw, b = 0, c = 0;
  for (size_t i = 0; i < kStream; i += 8) {
    uint64_t va, vb, vc;
    std::memcpy(&va, src + i, 8);
    std::memcpy(&vb, src + kStream + i, 8);
    std::memcpy(&vc, src + 2 * kStream + i, 8);
    a = _mm_crc32_u64(a, va);
    b = _mm_crc32_u64(b, vb);
    c = _mm_crc32_u64(c, vc);
    std::memcpy(dst + i, &va, 8);
    std::memcpy(dst + kStream + i, &vb, 8);
    std::memcpy(dst + 2 * kStream + i, &vc, 8);
  }
  return Shift(static_cast<uint32_t>(a), kTwo) ^ Shift(static_cast<uint32_t>(b), kOne) ^
         static_cast<uint32_t>(c);
}

__attribute__((target("sse4.2,pclmul"))) uint32_t CopyThreeStreams(uint32_t raw, char* dst,
                                                                    const char* src, size_t n) {
  constexpr size_t kLong = 8192, kShort = 256;
  for (; n >= 3 * kLong; n -= 3 * kLong, src += 3 * kLong, dst += 3 * kLong) {
    raw = ThreeStreams<kLong>(raw, dst, src);
  }
  for (; n >= 3 * kShort; n -= 3 * kShort, src += 3 * kShort, dst += 3 * kShort) {
    raw = ThreeStreams<kShort>(raw, dst, src);
  }
  return CopyOneStream(raw, dst, src, n);
}

// --- AVX-512 + VPCLMULQDQ: four 512-bit accumulators -----------------------

#define MG_AVX512_TARGET \
  __attribute__((target("avx512f,avx512vl,avx512bw,vpclmulqdq,pclmul,sse4.2")))

// x folded forward by k's distance, plus y.
MG_AVX512_TARGET inline __m512i FoldInto(__m512i x, __m512i k, __m512i y) {
  return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
                                   _mm512_clmulepi64_epi128(x, k, 0x11), y, 0x96);
}
MG_AVX512_TARGET inline __m128i FoldInto(__m128i x, __m128i k, __m128i y) {
  return _mm_ternarylogic_epi64(_mm_clmulepi64_si128(x, k, 0x00),
                                _mm_clmulepi64_si128(x, k, 0x11), y, 0x96);
}
MG_AVX512_TARGET inline __m512i Broadcast(Fold f) {
  return _mm512_broadcast_i32x4(
      _mm_set_epi64x(static_cast<long long>(f.high), static_cast<long long>(f.low)));
}

MG_AVX512_TARGET uint32_t CopyAvx512(uint32_t raw, char* dst, const char* src, size_t n) {
  if (n < 256) return CopyThreeStreams(raw, dst, src, n);
  static constexpr Fold k256 = FoldBy(256 * 8), k64 = FoldBy(64 * 8), k16 = FoldBy(16 * 8);
  __m512i x0 = _mm512_loadu_si512(src), x1 = _mm512_loadu_si512(src + 64);
  __m512i x2 = _mm512_loadu_si512(src + 128), x3 = _mm512_loadu_si512(src + 192);
  _mm512_storeu_si512(dst, x0);
  _mm512_storeu_si512(dst + 64, x1);
  _mm512_storeu_si512(dst + 128, x2);
  _mm512_storeu_si512(dst + 192, x3);
  // A register r before the message is the message with r added to its
  // first four bytes.
  x0 = _mm512_xor_si512(x0, _mm512_zextsi128_si512(_mm_cvtsi32_si128(static_cast<int>(raw))));
  src += 256, dst += 256, n -= 256;
  const __m512i by256 = Broadcast(k256);
  for (; n >= 256; src += 256, dst += 256, n -= 256) {
    const __m512i y0 = _mm512_loadu_si512(src), y1 = _mm512_loadu_si512(src + 64);
    const __m512i y2 = _mm512_loadu_si512(src + 128), y3 = _mm512_loadu_si512(src + 192);
    _mm512_storeu_si512(dst, y0);
    _mm512_storeu_si512(dst + 64, y1);
    _mm512_storeu_si512(dst + 128, y2);
    _mm512_storeu_si512(dst + 192, y3);
    x0 = FoldInto(x0, by256, y0);
    x1 = FoldInto(x1, by256, y1);
    x2 = FoldInto(x2, by256, y2);
    x3 = FoldInto(x3, by256, y3);
  }
  // Four accumulators into one, then whole 64-byte blocks into it.
  const __m512i by64 = Broadcast(k64);
  __m512i x = FoldInto(FoldInto(FoldInto(x0, by64, x1), by64, x2), by64, x3);
  for (; n >= 64; src += 64, dst += 64, n -= 64) {
    const __m512i y = _mm512_loadu_si512(src);
    _mm512_storeu_si512(dst, y);
    x = FoldInto(x, by64, y);
  }
  // Its four lanes into one, then whole 16-byte blocks into that.
  const __m128i by16 = _mm_set_epi64x(static_cast<long long>(k16.high),
                                      static_cast<long long>(k16.low));
  __m128i lane = _mm512_extracti32x4_epi32(x, 0);
  lane = FoldInto(lane, by16, _mm512_extracti32x4_epi32(x, 1));
  lane = FoldInto(lane, by16, _mm512_extracti32x4_epi32(x, 2));
  lane = FoldInto(lane, by16, _mm512_extracti32x4_epi32(x, 3));
  for (; n >= 16; src += 16, dst += 16, n -= 16) {
    const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), y);
    lane = FoldInto(lane, by16, y);
  }
  raw = RegisterOf(static_cast<uint64_t>(_mm_cvtsi128_si64(lane)),
                   static_cast<uint64_t>(_mm_extract_epi64(lane, 1)));
  return CopyOneStream(raw, dst, src, n);
}

#undef MG_AVX512_TARGET

// --- Portable: copy a chunk, then its crc while it is in cache --------------

uint32_t CopyThenCrc(uint32_t raw, char* dst, const char* src, size_t n) {
  constexpr size_t kChunk = 64 << 10;
  while (n > 0) {
    const size_t len = std::min(n, kChunk);
    std::memcpy(dst, src, len);
    raw = crc32_iscsi(reinterpret_cast<unsigned char*>(dst), static_cast<int>(len), raw);
    dst += len, src += len, n -= len;
  }
  return raw;
}

// What the CPU and the operating system support, from CPUID and XGETBV.
struct Cpu {
  bool sse42_pclmul = false;
  bool avx512_vpclmul = false;
};

Cpu DetectCpu() {
  Cpu cpu;
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return cpu;
  const bool sse42 = (ecx & bit_SSE4_2) != 0, pclmul = (ecx & bit_PCLMUL) != 0;
  const bool osxsave = (ecx & bit_OSXSAVE) != 0;
  cpu.sse42_pclmul = sse42 && pclmul;
  if (!cpu.sse42_pclmul || !osxsave || !__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
    return cpu;
  }
  const bool avx512 = (ebx & bit_AVX512F) && (ebx & bit_AVX512VL) && (ebx & bit_AVX512BW);
  const bool vpclmul = (ecx & (1u << 10)) != 0;  // CPUID.(EAX=7,ECX=0):ECX.VPCLMULQDQ
  unsigned xcr0_lo, xcr0_hi;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  // The OS saves SSE, AVX and the three AVX-512 states (opmask, ZMM0-15 upper
  // halves, ZMM16-31).
  const bool os_avx512 = (xcr0_lo & 0xE6) == 0xE6;
  cpu.avx512_vpclmul = avx512 && vpclmul && os_avx512;
  return cpu;
}

}  // namespace

std::vector<NamedCopyKernel> AvailableCopyKernels() {
  static const Cpu cpu = DetectCpu();
  std::vector<NamedCopyKernel> kernels;
  if (cpu.avx512_vpclmul) kernels.push_back({"avx512_vpclmulqdq", &CopyAvx512});
  if (cpu.sse42_pclmul) kernels.push_back({"sse42_three_streams", &CopyThreeStreams});
  kernels.push_back({"portable", &CopyThenCrc});
  return kernels;
}

}  // namespace crc32c_internal

namespace crc32c {

uint32_t CopyAndExtend(uint32_t init_crc, char* dst, const char* src, size_t n) {
  static const crc32c_internal::CopyKernel kernel =
      crc32c_internal::AvailableCopyKernels().front().kernel;
  return ~kernel(~init_crc, dst, src, n);
}

}  // namespace crc32c
}  // namespace minigraph
