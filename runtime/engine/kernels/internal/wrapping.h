// Integer arithmetic that wraps around in two's complement, as
// TensorFlow's kernels give on every machine it runs on: they overflow
// signed integers (undefined in C++, wrapping in the hardware), so
// Neg(INT_MIN) is INT_MIN and INT_MAX + 1 is INT_MIN. Computed here in an
// unsigned type at least as wide as int, where wrapping is defined (and
// no promotion to int overflows, as uint16 * uint16 would). Floating-point
// and bool operands compute as usual.
//
//   int32_t y = WrapAdd(INT32_MAX, 1);  // INT32_MIN

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_WRAPPING_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_WRAPPING_H_

#include <type_traits>

namespace minigraph {
namespace kernels_internal {

template <typename T>
inline constexpr bool kWraps = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// The unsigned type T's wrapping arithmetic is done in.
template <typename T>
using WrapUnsigned = std::make_unsigned_t<std::common_type_t<T, unsigned>>;

// The type whose additions and subtractions wrap T's, for vectorized
// (Eigen) loops over T's elements: T's unsigned twin for integers, which
// may read and write T's storage (the aliasing rules allow it), else T.
// Not for products: uint16 * uint16 promotes to int and may overflow.
template <typename T, bool = kWraps<T>>
struct WrapStorageOf {
  using type = T;
};
template <typename T>
struct WrapStorageOf<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <typename T>
using WrapStorage = typename WrapStorageOf<T>::type;

template <typename T>
constexpr T WrapAdd(T a, T b) {
  if constexpr (kWraps<T>) {
    return static_cast<T>(static_cast<WrapUnsigned<T>>(a) + static_cast<WrapUnsigned<T>>(b));
  } else {
    return a + b;
  }
}

template <typename T>
constexpr T WrapSub(T a, T b) {
  if constexpr (kWraps<T>) {
    return static_cast<T>(static_cast<WrapUnsigned<T>>(a) - static_cast<WrapUnsigned<T>>(b));
  } else {
    return a - b;
  }
}

template <typename T>
constexpr T WrapMul(T a, T b) {
  if constexpr (kWraps<T>) {
    return static_cast<T>(static_cast<WrapUnsigned<T>>(a) * static_cast<WrapUnsigned<T>>(b));
  } else {
    return a * b;
  }
}

template <typename T>
constexpr T WrapNeg(T a) {
  if constexpr (kWraps<T>) {
    return static_cast<T>(WrapUnsigned<T>(0) - static_cast<WrapUnsigned<T>>(a));
  } else {
    return -a;
  }
}

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_WRAPPING_H_
