// FarmHash's Fingerprint64, written out here because no library on the
// machine has it (Abseil's hash is seeded per process by design, and its
// CityHash differs from FarmHash above 16 bytes); the values are pinned by
// TensorFlow's own test vectors in sparse_kernels_test.cc. And TensorFlow's
// Hash64, MurmurHash64A (no library here has it either) with its seed.
#include "runtime/engine/kernels/internal/fingerprint.h"

#include <cstring>
#include <utility>

#include "highwayhash/sip_hash.h"

namespace minigraph {
namespace kernels_internal {
namespace {

constexpr uint64_t k0 = 0xc3a5c85c97cb3127ULL;
constexpr uint64_t k1 = 0xb492b66fbe98f273ULL;
constexpr uint64_t k2 = 0x9ae16a3b2f90404fULL;

// Little-endian loads (x86-64, the only target here).
uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
uint64_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
uint64_t Rotate(uint64_t v, int shift) { return (v >> shift) | (v << (64 - shift)); }
uint64_t ShiftMix(uint64_t v) { return v ^ (v >> 47); }

uint64_t Mix16(uint64_t u, uint64_t v, uint64_t mul) {
  uint64_t a = (u ^ v) * mul;
  a ^= a >> 47;
  uint64_t b = (v ^ a) * mul;
  b ^= b >> 47;
  return b * mul;
}

uint64_t UpTo16(const char* s, size_t len) {
  if (len >= 8) {
    const uint64_t mul = k2 + len * 2;
    const uint64_t a = Load64(s) + k2;
    const uint64_t b = Load64(s + len - 8);
    return Mix16(Rotate(b, 37) * mul + a, (Rotate(a, 25) + b) * mul, mul);
  }
  if (len >= 4) {
    const uint64_t mul = k2 + len * 2;
    return Mix16(len + (Load32(s) << 3), Load32(s + len - 4), mul);
  }
  if (len > 0) {
    const uint32_t y = static_cast<uint8_t>(s[0]) +
                       (static_cast<uint32_t>(static_cast<uint8_t>(s[len >> 1])) << 8);
    const uint32_t z = len + (static_cast<uint32_t>(static_cast<uint8_t>(s[len - 1])) << 2);
    return ShiftMix(y * k2 ^ z * k0) * k2;
  }
  return k2;
}

uint64_t From17To32(const char* s, size_t len) {
  const uint64_t mul = k2 + len * 2;
  const uint64_t a = Load64(s) * k1;
  const uint64_t b = Load64(s + 8);
  const uint64_t c = Load64(s + len - 8) * mul;
  const uint64_t d = Load64(s + len - 16) * k2;
  return Mix16(Rotate(a + b, 43) + Rotate(c, 30) + d, a + Rotate(b + k2, 18) + c, mul);
}

uint64_t From33To64(const char* s, size_t len) {
  const uint64_t mul = k2 + len * 2;
  const uint64_t a = Load64(s) * k2;
  const uint64_t b = Load64(s + 8);
  const uint64_t c = Load64(s + len - 8) * mul;
  const uint64_t d = Load64(s + len - 16) * k2;
  const uint64_t y = Rotate(a + b, 43) + Rotate(c, 30) + d;
  const uint64_t z = Mix16(y, a + Rotate(b + k2, 18) + c, mul);
  const uint64_t e = Load64(s + 16) * mul;
  const uint64_t f = Load64(s + 24);
  const uint64_t g = (y + Load64(s + len - 32)) * mul;
  const uint64_t h = (z + Load64(s + len - 24)) * mul;
  return Mix16(Rotate(e + f, 43) + Rotate(g, 30) + h, e + Rotate(f + a, 18) + g, mul);
}

// 32 bytes and two seeds to 16 bytes.
std::pair<uint64_t, uint64_t> Weak32(const char* s, uint64_t a, uint64_t b) {
  const uint64_t w = Load64(s), x = Load64(s + 8), y = Load64(s + 16), z = Load64(s + 24);
  a += w;
  b = Rotate(b + a + z, 21);
  const uint64_t c = a;
  a += x + y;
  b += Rotate(a, 44);
  return {a + z, b + c};
}

}  // namespace

uint64_t Fingerprint64(absl::string_view str) {
  const char* s = str.data();
  const size_t len = str.size();
  if (len <= 16) return UpTo16(s, len);
  if (len <= 32) return From17To32(s, len);
  if (len <= 64) return From33To64(s, len);

  // Longer: 64-byte blocks, then the last 64 bytes (overlapping).
  const uint64_t seed = 81;
  uint64_t x = seed * k2 + Load64(s);
  uint64_t y = seed * k1 + 113;
  uint64_t z = ShiftMix(y * k2 + 113) * k2;
  std::pair<uint64_t, uint64_t> v = {0, 0}, w = {0, 0};
  const char* end = s + ((len - 1) / 64) * 64;
  const char* last64 = s + len - 64;
  do {
    x = Rotate(x + y + v.first + Load64(s + 8), 37) * k1;
    y = Rotate(y + v.second + Load64(s + 48), 42) * k1;
    x ^= w.second;
    y += v.first + Load64(s + 40);
    z = Rotate(z + w.first, 33) * k1;
    v = Weak32(s, v.second * k1, x + w.first);
    w = Weak32(s + 32, z + w.second, y + Load64(s + 16));
    std::swap(z, x);
    s += 64;
  } while (s != end);
  const uint64_t mul = k1 + ((z & 0xff) << 1);
  s = last64;
  w.first += (len - 1) & 63;
  v.first += w.first;
  w.first += v.first;
  x = Rotate(x + y + v.first + Load64(s + 8), 37) * mul;
  y = Rotate(y + v.second + Load64(s + 48), 42) * mul;
  x ^= w.second * 9;
  y += v.first * 9 + Load64(s + 40);
  z = Rotate(z + w.first, 33) * mul;
  v = Weak32(s, v.second * mul, x + w.first);
  w = Weak32(s + 32, z + w.second, y + Load64(s + 16));
  std::swap(z, x);
  return Mix16(Mix16(v.first, w.first, mul) + ShiftMix(y) * k0 + z,
               Mix16(v.second, w.second, mul) + x, mul);
}

uint64_t FingerprintCat64(uint64_t fp1, uint64_t fp2) {
  constexpr uint64_t kMul = 0xc6a4a7935bd1e995ULL;
  uint64_t result = fp1 ^ kMul;
  result ^= ShiftMix(fp2 * kMul) * kMul;
  result *= kMul;
  result = ShiftMix(result) * kMul;
  return ShiftMix(result);
}

uint64_t TensorFlowHash64(absl::string_view str) {
  constexpr uint64_t m = 0xc6a4a7935bd1e995ULL;
  constexpr int r = 47;
  const char* p = str.data();
  size_t n = str.size();
  uint64_t h = 0xDECAFCAFFEULL ^ (n * m);
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t k = Load64(p);
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  if (n > 0) {
    // The last 1 to 7 bytes, the first lowest.
    for (size_t i = n; i-- > 0;) h ^= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

uint64_t StrongKeyedHash(const uint64_t (&key)[2], absl::string_view s) {
  const highwayhash::SipHashState::Key k = {key[0], key[1]};
  return highwayhash::SipHash(k, s.data(), s.size());
}

}  // namespace kernels_internal
}  // namespace minigraph
