// Bitwise operations on integers, with broadcasting: BitwiseAnd, BitwiseOr,
// BitwiseXor, LeftShift, RightShift, and Invert. Shifts take their amount
// clamped to [0, bits - 1], as TensorFlow's functors do (a shift by a
// negative amount or by the width is undefined in C++); a left shift is
// computed unsigned, a right shift of a signed value is arithmetic.
#include <climits>
#include <type_traits>

#include "runtime/engine/kernels/internal/cwise_ops.h"
#include "runtime/engine/kernels/internal/cwise_unary_ops.h"
#include "runtime/engine/kernels/internal/kernel_families.h"

namespace minigraph {
namespace kernels_internal {
namespace {

template <typename T>
struct bit_and {
  T operator()(const T& a, const T& b) const { return a & b; }
};
template <typename T>
struct bit_or {
  T operator()(const T& a, const T& b) const { return a | b; }
};
template <typename T>
struct bit_xor {
  T operator()(const T& a, const T& b) const { return a ^ b; }
};

template <typename T>
T ClampedShift(T amount) {
  constexpr T kMax = static_cast<T>(sizeof(T) * CHAR_BIT - 1);
  if constexpr (std::is_signed_v<T>) {
    if (amount < 0) return 0;
  }
  return amount > kMax ? kMax : amount;
}
template <typename T>
struct left_shift {
  T operator()(const T& a, const T& b) const {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) << ClampedShift(b)));
  }
};
template <typename T>
struct right_shift {
  T operator()(const T& a, const T& b) const { return static_cast<T>(a >> ClampedShift(b)); }
};
template <typename T>
struct invert {
  T operator()(const T& a) const { return static_cast<T>(~a); }
};

template <template <typename> class F>
KernelFactory Integers() {
  return TypedFactory<BinaryKernelFor<F>::template Op, int8_t, int16_t, int32_t, int64_t,
                      uint8_t, uint16_t, uint32_t, uint64_t>();
}

}  // namespace

void RegisterBitwiseKernels(KernelRegistry* r) {
  r->Register("BitwiseAnd", Integers<bit_and>());
  r->Register("BitwiseOr", Integers<bit_or>());
  r->Register("BitwiseXor", Integers<bit_xor>());
  r->Register("LeftShift", Integers<left_shift>());
  r->Register("RightShift", Integers<right_shift>());
  r->Register("Invert", TypedFactory<UnaryKernelFor<invert>::Op, int8_t, int16_t, int32_t,
                                     int64_t, uint8_t, uint16_t, uint32_t, uint64_t>());
}

}  // namespace kernels_internal
}  // namespace minigraph
