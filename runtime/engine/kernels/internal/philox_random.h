// TensorFlow's counter-based random numbers: Philox4x32-10 (the block
// function is Random123's, Debian's librandom123-dev) with TensorFlow's
// 128-bit counter arithmetic, seed scrambling and distributions, so that a
// stateless random op gives TensorFlow's values bit for bit for the same
// seed, key and counter. Written after TensorFlow's philox_random.h,
// random_distributions.h and stateless_random_ops.cc, whose stream is the
// contract here: no library offers those conversions and fill orders.
//
//   PhiloxRandom gen = PhiloxRandom::FromSeed(seed0, seed1);   // (key, counter)
//   FillPhilox(gen, UniformFloat(), out, n);                    // tf.random.stateless_uniform
//
// Thread-compatible: generators are small values, each used by one thread
// at a time; FillPhilox takes its own copy, and any group of the stream can
// be computed alone, so a fill can be split across threads.

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_PHILOX_RANDOM_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_PHILOX_RANDOM_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "Random123/philox.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/tensor.h"

namespace minigraph {
namespace kernels_internal {

class PhiloxRandom {
 public:
  using Block = std::array<uint32_t, 4>;
  using Key = std::array<uint32_t, 2>;

  PhiloxRandom(Block counter, Key key) : counter_(counter), key_(key) {}

  // TensorFlow's GenerateKey: the two halves of a stateless op's seed,
  // scrambled into a key and counter by one Philox block.
  static PhiloxRandom FromSeed(uint64_t seed0, uint64_t seed1) {
    const Block counter = {static_cast<uint32_t>(seed0), static_cast<uint32_t>(seed0 >> 32),
                           static_cast<uint32_t>(seed1), static_cast<uint32_t>(seed1 >> 32)};
    PhiloxRandom scramble(counter, {0x3ec8f720u, 0x02461e29u});
    const Block mix = scramble();
    return PhiloxRandom({0, 0, mix[2], mix[3]}, {mix[0], mix[1]});
  }

  // TensorFlow's PhiloxRandom(seed_lo, seed_hi), the generator of its
  // stateful random ops and shuffles: key = seed, counter = [0, seed2].
  static PhiloxRandom FromSeedPair(uint64_t seed, uint64_t seed2) {
    return PhiloxRandom(
        {0, 0, static_cast<uint32_t>(seed2), static_cast<uint32_t>(seed2 >> 32)},
        {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
  }

  // The key and counter as the uint64 tensors StatelessRandomGetKeyCounter
  // returns (little-endian halves), and back.
  uint64_t key64() const { return key_[0] | (static_cast<uint64_t>(key_[1]) << 32); }
  uint64_t counter64(int i) const {
    return counter_[2 * i] | (static_cast<uint64_t>(counter_[2 * i + 1]) << 32);
  }
  static PhiloxRandom FromKeyCounter(uint64_t key, uint64_t c0, uint64_t c1) {
    return PhiloxRandom({static_cast<uint32_t>(c0), static_cast<uint32_t>(c0 >> 32),
                         static_cast<uint32_t>(c1), static_cast<uint32_t>(c1 >> 32)},
                        {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)});
  }

  // The next block of four numbers; the counter moves on by one.
  Block operator()() {
    const philox4x32_ctr_t c = {{counter_[0], counter_[1], counter_[2], counter_[3]}};
    const philox4x32_key_t k = {{key_[0], key_[1]}};
    const philox4x32_ctr_t r = philox4x32_R(10, c, k);
    Skip(1);
    return {r.v[0], r.v[1], r.v[2], r.v[3]};
  }

  // Moves the 128-bit counter on by `count` blocks.
  void Skip(uint64_t count) {
    const uint32_t lo = static_cast<uint32_t>(count);
    uint32_t hi = static_cast<uint32_t>(count >> 32);
    counter_[0] += lo;
    if (counter_[0] < lo) ++hi;
    counter_[1] += hi;
    if (counter_[1] < hi && ++counter_[2] == 0) ++counter_[3];
  }

 private:
  Block counter_;
  Key key_;
};

// One uint32 at a time from the blocks (TensorFlow's SingleSampleAdapter).
class PhiloxSamples {
 public:
  explicit PhiloxSamples(PhiloxRandom* gen) : gen_(gen) {}
  uint32_t operator()() {
    if (used_ == 4) {
      block_ = (*gen_)();
      used_ = 0;
    }
    return block_[used_++];
  }

 private:
  PhiloxRandom* gen_;
  PhiloxRandom::Block block_{};
  int used_ = 4;
};

namespace philox_internal {

inline float Uint32ToFloat(uint32_t x) {
  const uint32_t bits = (127u << 23) | (x & 0x7fffffu);
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f - 1.0f;
}

inline double Uint64ToDouble(uint32_t x0, uint32_t x1) {
  const uint64_t bits = (uint64_t{1023} << 52) | (static_cast<uint64_t>(x0 & 0xfffffu) << 32) | x1;
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d - 1.0;
}

// TensorFlow's BoxMullerFloat, including where it computes in double.
inline void BoxMuller(uint32_t x0, uint32_t x1, float* d0, float* d1) {
  float u1 = Uint32ToFloat(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  const float v1 = 2.0f * M_PI * Uint32ToFloat(x1);
  const float u2 = std::sqrt(-2.0f * std::log(u1));
  sincosf(v1, d0, d1);
  *d0 *= u2;
  *d1 *= u2;
}

inline void BoxMuller(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double* d0,
                      double* d1) {
  double u1 = Uint64ToDouble(x0, x1);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double v1 = 2 * M_PI * Uint64ToDouble(x2, x3);
  const double u2 = std::sqrt(-2.0 * std::log(u1));
  sincos(v1, d0, d1);
  *d0 *= u2;
  *d1 *= u2;
}

}  // namespace philox_internal

// The distributions: each call makes kGroup values from one block (or, for
// the truncated normal, from as many single samples as it needs).
template <typename T>
struct PhiloxUniform;
template <>
struct PhiloxUniform<float> {
  static constexpr int kGroup = 4;
  static constexpr bool kVariableSamples = false;
  std::array<float, 4> operator()(PhiloxRandom* gen) const {
    const PhiloxRandom::Block b = (*gen)();
    return {philox_internal::Uint32ToFloat(b[0]), philox_internal::Uint32ToFloat(b[1]),
            philox_internal::Uint32ToFloat(b[2]), philox_internal::Uint32ToFloat(b[3])};
  }
};
template <>
struct PhiloxUniform<double> {
  static constexpr int kGroup = 2;
  static constexpr bool kVariableSamples = false;
  std::array<double, 2> operator()(PhiloxRandom* gen) const {
    const PhiloxRandom::Block b = (*gen)();
    return {philox_internal::Uint64ToDouble(b[0], b[1]),
            philox_internal::Uint64ToDouble(b[2], b[3])};
  }
};

template <typename T>
struct PhiloxNormal;
template <>
struct PhiloxNormal<float> {
  static constexpr int kGroup = 4;
  static constexpr bool kVariableSamples = false;
  std::array<float, 4> operator()(PhiloxRandom* gen) const {
    const PhiloxRandom::Block b = (*gen)();
    std::array<float, 4> r;
    philox_internal::BoxMuller(b[0], b[1], &r[0], &r[1]);
    philox_internal::BoxMuller(b[2], b[3], &r[2], &r[3]);
    return r;
  }
};
template <>
struct PhiloxNormal<double> {
  static constexpr int kGroup = 2;
  static constexpr bool kVariableSamples = false;
  std::array<double, 2> operator()(PhiloxRandom* gen) const {
    const PhiloxRandom::Block b = (*gen)();
    std::array<double, 2> r;
    philox_internal::BoxMuller(b[0], b[1], b[2], b[3], &r[0], &r[1]);
    return r;
  }
};

// Integers in [lo, lo + range) (TensorFlow's UniformDistribution for
// integers: a sample modulo the range, its slight bias included; 64-bit
// values from two samples), or with kFull every value of T's bits
// (UniformFullIntDistribution). T: int32, int64, uint32 or uint64.
template <typename T, bool kFull = false>
struct PhiloxUniformInt {
  using U = std::make_unsigned_t<T>;
  static constexpr bool kWide = sizeof(T) == 8;
  static constexpr int kGroup = kWide ? 2 : 4;
  static constexpr bool kVariableSamples = false;
  T lo = 0;
  U range = 1;
  std::array<T, kGroup> operator()(PhiloxRandom* gen) const {
    const PhiloxRandom::Block b = (*gen)();
    std::array<T, kGroup> r;
    for (int i = 0; i < kGroup; ++i) {
      U bits;
      if constexpr (kWide) {
        bits = static_cast<U>(b[2 * i]) | (static_cast<U>(b[2 * i + 1]) << 32);
      } else {
        bits = static_cast<U>(b[i]);
      }
      r[i] = kFull ? static_cast<T>(bits) : static_cast<T>(static_cast<U>(lo) + bits % range);
    }
    return r;
  }
};
template <typename T>
using PhiloxFullInt = PhiloxUniformInt<T, true>;

// The distribution of [minval, maxval) from the scalar tensors of a
// RandomUniformInt or StatelessRandomUniformInt, checked as TensorFlow
// checks them (`empty`: the output has no elements, and any range is
// fine).
template <typename T>
absl::StatusOr<PhiloxUniformInt<T>> UniformIntRange(const Tensor& minval, const Tensor& maxval,
                                                   bool empty) {
  for (const auto& [t, name] : {std::pair{&minval, "minval"}, std::pair{&maxval, "maxval"}}) {
    if (t->dims() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " must be 0-D, got shape ", t->shape().DebugString()));
    }
  }
  PhiloxUniformInt<T> dist;
  const T lo = *minval.data<T>(), hi = *maxval.data<T>();
  if (empty) return dist;
  if (!(lo < hi)) {
    return absl::InvalidArgumentError(absl::StrCat("Need minval < maxval: ", lo, " >= ", hi));
  }
  dist.lo = lo;
  dist.range = static_cast<std::make_unsigned_t<T>>(hi) - static_cast<std::make_unsigned_t<T>>(lo);
  return dist;
}

// Normal values with |v| < 2, drawn until kGroup of them fall inside.
template <typename T>
struct PhiloxTruncatedNormal {
  static constexpr int kGroup = std::is_same_v<T, float> ? 4 : 2;
  static constexpr bool kVariableSamples = true;
  std::array<T, kGroup> operator()(PhiloxSamples* samples) const {
    std::array<T, kGroup> r;
    int n = 0;
    while (true) {
      T v[2];
      if constexpr (std::is_same_v<T, float>) {
        const uint32_t x0 = (*samples)(), x1 = (*samples)();
        philox_internal::BoxMuller(x0, x1, &v[0], &v[1]);
      } else {
        const uint32_t x0 = (*samples)(), x1 = (*samples)(), x2 = (*samples)(),
                       x3 = (*samples)();
        philox_internal::BoxMuller(x0, x1, x2, x3, &v[0], &v[1]);
      }
      for (T x : v) {
        if (std::abs(x) < T(2)) {
          r[n++] = x;
          if (n == kGroup) return r;
        }
      }
    }
  }
};

// Fills out[0, n) in TensorFlow's order: group g of kGroup values from the
// counter moved on by g blocks, or, for a distribution that takes a varying
// number of samples, by g * kGroup * 256 / 4 blocks (256 samples reserved
// per value), so any group can be computed alone.
template <typename Dist, typename T>
void FillPhilox(PhiloxRandom gen, const Dist& dist, T* out, int64_t n) {
  constexpr int kGroup = Dist::kGroup;
  const int64_t groups = (n + kGroup - 1) / kGroup;
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t take = std::min<int64_t>(kGroup, n - g * kGroup);
    if constexpr (Dist::kVariableSamples) {
      PhiloxRandom at = gen;
      at.Skip(static_cast<uint64_t>(g) * kGroup * 256 / 4);
      PhiloxSamples samples(&at);
      const auto v = dist(&samples);
      std::copy(v.begin(), v.begin() + take, out + g * kGroup);
    } else {
      const auto v = dist(&gen);
      std::copy(v.begin(), v.begin() + take, out + g * kGroup);
    }
  }
}

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_PHILOX_RANDOM_H_
