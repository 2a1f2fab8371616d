// Binary element-wise kernels, with NumPy broadcasting, and the scalar
// functors of the element-wise ops. No Eigen: the loops are written by hand
// (BinaryLoops), so the files of these kernels do not parse it. The unary
// kernels, which use Eigen's vectorized math, are in cwise_unary_ops.h.
//
//   registry->Register("Add", TypedFactory<BinaryKernelFor<functor::add>::Op,
//                                          float, double, int32_t, int64_t>());

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_CWISE_OPS_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_CWISE_OPS_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <complex>
#include <cstring>
#include <limits>
#include <type_traits>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "runtime/engine/denormal.h"
#include "runtime/engine/kernel_registry.h"
#include "runtime/engine/kernels/internal/bcast.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/kernels/internal/wrapping.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {

// Complex products and quotients as Eigen's vectorized kernels (so
// TensorFlow's) compute them: the schoolbook product, and the quotient
// scaled by the divisor's larger part (Eigen's pdiv_complex); not the C
// library's forms, which recover infinities from NaNs (C11 Annex G).
template <typename C>
C ComplexMul(const C& a, const C& b) {
  return C(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
}
template <typename C>
C ComplexDiv(const C& a, const C& b) {
  using R = typename C::value_type;
  const R scale = std::max(std::abs(b.real()), std::abs(b.imag()));
  const R c = b.real() / scale, d = b.imag() / scale;
  const R denom = c * c + d * d;
  const C num = ComplexMul(a, C(c, -d));
  return C(num.real() / denom / scale, num.imag() / denom / scale);
}

namespace functor {

// Plain scalar function objects. Integers wrap around (wrapping.h).
template <typename T>
struct add {
  T operator()(const T& a, const T& b) const { return WrapAdd(a, b); }
};
template <typename T>
struct sub {
  T operator()(const T& a, const T& b) const { return WrapSub(a, b); }
};
template <typename T>
struct mul {
  T operator()(const T& a, const T& b) const {
    if constexpr (kIsComplex<T>) {
      return ComplexMul(a, b);
    } else {
      return WrapMul(a, b);
    }
  }
};
template <typename T>
struct quotient {
  T operator()(const T& a, const T& b) const {
    if constexpr (kIsComplex<T>) {
      return ComplexDiv(a, b);
    } else {
      return a / b;
    }
  }
};
// Maximum and Minimum propagate NaN, as TensorFlow's do.
template <typename T>
struct maximum {
  T operator()(const T& a, const T& b) const { return a > b || a != a ? a : b; }
};
template <typename T>
struct minimum {
  T operator()(const T& a, const T& b) const { return a < b || a != a ? a : b; }
};
template <typename T>
struct squared_difference {
  T operator()(const T& a, const T& b) const { return WrapMul(WrapSub(a, b), WrapSub(a, b)); }
};
// Floating-point x^y (std::pow).
template <typename T>
struct pow {
  T operator()(const T& a, const T& b) const {
    return std::pow(FlushDenormal(a), FlushDenormal(b));
  }
};
template <typename T>
struct greater {
  bool operator()(const T& a, const T& b) const { return a > b; }
};
template <typename T>
struct less {
  bool operator()(const T& a, const T& b) const { return a < b; }
};
template <typename T>
struct greater_equal {
  bool operator()(const T& a, const T& b) const { return a >= b; }
};
template <typename T>
struct less_equal {
  bool operator()(const T& a, const T& b) const { return a <= b; }
};
template <typename T>
struct equal_to {
  bool operator()(const T& a, const T& b) const { return a == b; }
};
template <typename T>
struct not_equal_to {
  bool operator()(const T& a, const T& b) const { return a != b; }
};
template <typename T>
struct logical_and {
  bool operator()(const T& a, const T& b) const { return a && b; }
};
template <typename T>
struct logical_or {
  bool operator()(const T& a, const T& b) const { return a || b; }
};
template <typename T>
struct logical_not {
  bool operator()(const T& a) const { return !a; }
};
template <typename T>
struct relu {
  // max(x, 0) that keeps a NaN, as Eigen's cwiseMax in TensorFlow's Relu.
  T operator()(const T& a) const { return a < T(0) ? T(0) : a; }
};
// Gradient helpers: (y or features, dy or gradients) -> dx.
template <typename T>
struct sigmoid_grad {
  // Grouped as TensorFlow's: dy * (y * (1 - y)).
  T operator()(const T& y, const T& dy) const { return dy * (y * (T(1) - y)); }
};
template <typename T>
struct tanh_grad {
  T operator()(const T& y, const T& dy) const { return dy * (T(1) - y * y); }
};
template <typename T>
struct sqrt_grad {
  // As TensorFlow's: a zero gradient stays zero where y is 0, and the
  // division is by a reciprocal (1/y of a huge y flushes to 0).
  T operator()(const T& y, const T& dy) const {
    return dy == T(0) ? T(0) : T(0.5) * dy * (T(1) / y);
  }
};
// ReluGrad's inputs are (gradients, features).
template <typename T>
struct relu_grad {
  // A product, as TensorFlow's: an infinite or NaN gradient at f <= 0 is NaN.
  T operator()(const T& g, const T& f) const { return g * T(f > T(0)); }
};

// Division family (TensorFlow's cwise_ops.h): integer division by zero is
// checked before these run (IntDivKernelFor). A signed integer divided by -1
// wraps as TensorFlow's does (the lowest value stays itself; its remainder
// is 0) instead of trapping, and floor division never negates an operand.
template <typename T>
struct div_no_nan {
  T operator()(const T& a, const T& b) const { return b == T(0) ? T(0) : quotient<T>()(a, b); }
};
template <typename T>
constexpr bool DividesByMinusOne(const T& b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) return b == T(-1);
  return false;
}
template <typename T>
T WrappingNegate(const T& a) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(U(0) - static_cast<U>(a));
}
template <typename T>
struct truncate_div {
  T operator()(const T& a, const T& b) const {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      if (b == T(-1)) return WrappingNegate(a);
    }
    return quotient<T>()(a, b);
  }
};
template <typename T>
struct floor_div {
  T operator()(const T& a, const T& b) const {
    if constexpr (std::is_integral_v<T>) {
      if (DividesByMinusOne(b)) return WrappingNegate(a);
      const T q = a / b;
      return (a % b != 0 && ((a < 0) != (b < 0))) ? T(q - 1) : q;
    } else {
      return std::floor(a / b);
    }
  }
};
template <typename T>
struct floor_mod {
  T operator()(const T& a, const T& b) const {
    if constexpr (std::is_integral_v<T>) {
      if (DividesByMinusOne(b)) return T(0);
      const T m = a % b;
      return (m != 0 && ((b < 0) != (m < 0))) ? T(m + b) : m;
    } else {
      const T m = std::fmod(a, b);
      return (m != 0 && ((b < 0) != (m < 0))) ? m + b : m;
    }
  }
};
// Unary math and activations.
template <typename T>
struct negate {
  T operator()(const T& a) const { return WrapNeg(a); }
};
template <typename T>
struct square {
  T operator()(const T& a) const { return WrapMul(a, a); }
};
template <typename T>
struct sqrt {
  // std::sqrt, exact at ±0 and inf (Eigen's fast packet sqrt is not).
  T operator()(const T& a) const { return std::sqrt(a); }
};
// Log of a double through libm, with denormals read as ±0 as TensorFlow's
// flushed arithmetic reads them (Eigen's float log already does).
template <typename T>
struct log {
  T operator()(const T& a) const { return std::log(FlushDenormal(a)); }
};
template <typename T>
struct rsqrt {
  T operator()(const T& a) const { return T(1) / std::sqrt(a); }
};
template <typename T>
struct log1p {
  T operator()(const T& a) const { return std::log1p(a); }
};
// Round half to even, as TensorFlow's Round.
template <typename T>
struct round_half_even {
  T operator()(const T& a) const {
    if constexpr (std::is_integral_v<T>) {
      return a;
    } else {
      return std::nearbyint(a);
    }
  }
};
// TensorFlow's numerically stable softplus: x for large x, exp(x) for
// very negative x, log1p(exp(x)) between.
template <typename T>
struct softplus {
  T operator()(const T& x) const {
    const T threshold = std::log(std::numeric_limits<T>::epsilon()) + T(2);
    if (x > -threshold) return x;
    if (x < threshold) return std::exp(x);
    return std::log1p(std::exp(x));
  }
};
template <typename T>
struct elu {
  T operator()(const T& x) const { return x < T(0) ? std::expm1(x) : x; }
};
// The C library's error functions (a scalar loop: no vectorized form).
template <typename T>
struct erf {
  T operator()(const T& x) const { return std::erf(x); }
};
template <typename T>
struct erfc {
  T operator()(const T& x) const { return std::erfc(x); }
};
template <typename T>
struct relu6 {
  T operator()(const T& x) const { return x < T(0) ? T(0) : x > T(6) ? T(6) : x; }
};
// ReciprocalGrad (y = 1 / x): -dy conj(y)^2, and zero where dy is even if
// y is infinite (TensorFlow's scalar_inverse_gradient_op).
template <typename T>
struct reciprocal_grad {
  T operator()(const T& y, const T& dy) const {
    if (dy == T(0)) return T(0);
    if constexpr (kIsComplex<T>) {
      const T c = std::conj(y);
      return ComplexMul(ComplexMul(-c, c), dy);
    } else {
      return -y * y * dy;
    }
  }
};
template <typename T>
struct rsqrt_grad {
  // A zero gradient stays zero where y is infinite (TensorFlow's).
  T operator()(const T& y, const T& dy) const {
    return dy == T(0) ? T(0) : T(-0.5) * (dy * y) * (y * y);
  }
};
// (gradients, features)
template <typename T>
struct softplus_grad {
  T operator()(const T& g, const T& f) const { return g / (T(1) + std::exp(-f)); }
};
// (gradients, outputs)
template <typename T>
struct elu_grad {
  T operator()(const T& g, const T& y) const { return y < T(0) ? g * (y + T(1)) : g; }
};
// (gradients, features)
template <typename T>
struct relu6_grad {
  T operator()(const T& g, const T& f) const { return g * T(f > T(0) && f < T(6)); }
};

}  // namespace functor

// The loops of the binary element-wise kernels, one instantiation per op
// and dtype. Written by hand rather than as Eigen expressions: Eigen compiled
// each op and dtype once per broadcast rank and operand kind (flat, scalar,
// rank 2, 3, 5), which made most of the element-wise kernels' compile time.
// The inner loops are contiguous or scalar-operand loops that the compiler
// vectorizes (`omp simd`, built with -fopenmp-simd), split across the step's
// thread pool by Eigen's cost model.
template <template <typename> class F, typename T, typename Tout>
struct BinaryLoops {
  // A real broadcast (any rank >= 2 after merging): a loop over the output's
  // rows (its last merged dimension), each row's x and y offsets computed
  // from the row index.
  static void Broadcast(OpKernelContext* ctx, const Tensor& x, const Tensor& y, const BCast& b,
                        Tensor* z) {
    const BCast::Vec& dims = b.result_shape();
    const int rank = static_cast<int>(dims.size());
    // Element strides of x and y along each merged dim; 0 where broadcast.
    absl::InlinedVector<int64_t, 6> x_strides(rank), y_strides(rank);
    int64_t xs = 1, ys = 1;
    for (int d = rank - 1; d >= 0; --d) {
      x_strides[d] = b.x_reshape()[d] == 1 ? 0 : xs;
      y_strides[d] = b.y_reshape()[d] == 1 ? 0 : ys;
      xs *= b.x_reshape()[d];
      ys *= b.y_reshape()[d];
    }
    const int64_t inner = dims[rank - 1];
    const T* xp = x.data<T>();
    const T* yp = y.data<T>();
    Tout* zp = z->data<Tout>();
    auto rows = [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        int64_t xo = 0, yo = 0, rest = row;
        for (int d = rank - 2; d >= 0; --d) {
          const int64_t i = rest % dims[d];
          rest /= dims[d];
          xo += i * x_strides[d];
          yo += i * y_strides[d];
        }
        Row(xp + xo, x_strides[rank - 1] != 0, yp + yo, y_strides[rank - 1] != 0, zp + row * inner,
            inner);
      }
    };
    const double bytes = static_cast<double>(inner) * sizeof(T);
    ctx->ParallelFor(z->NumElements() / inner, 2 * bytes, bytes, inner, rows);
  }

  // One row of all of z's elements, split across the step's thread pool.
  static void Flat(OpKernelContext* ctx, const Tensor& x, bool x_moves, const Tensor& y,
                   bool y_moves, Tensor* z) {
    const T* xp = x.data<T>();
    const T* yp = y.data<T>();
    Tout* zp = z->data<Tout>();
    ctx->ParallelFor(
        z->NumElements(), 2 * sizeof(T), sizeof(Tout), 1, [&](int64_t begin, int64_t end) {
          Row(x_moves ? xp + begin : xp, x_moves, y_moves ? yp + begin : yp, y_moves, zp + begin,
              end - begin);
        });
  }

  // z[j] = F(x[j or 0], y[j or 0]) for j < n.
  static void Row(const T* __restrict x, bool x_moves, const T* __restrict y, bool y_moves,
                  Tout* __restrict z, int64_t n) {
    const F<T> f;
    if (x_moves && y_moves) {
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) z[j] = f(x[j], y[j]);
    } else if (y_moves) {
      const T a = x[0];
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) z[j] = f(a, y[j]);
    } else if (x_moves) {
      const T c = y[0];
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) z[j] = f(x[j], c);
    } else {
      std::fill(z, z + n, static_cast<Tout>(f(x[0], y[0])));
    }
  }
};

// z = F(x, y) with broadcasting. Tout is T, or bool for comparisons.
template <template <typename> class F, bool kBoolOut = false>
struct BinaryKernelFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    using Tout = std::conditional_t<kBoolOut, bool, T>;
    using Loops = BinaryLoops<F, T, Tout>;

    absl::Status Compute(OpKernelContext* ctx) const override {
      const Tensor& x = ctx->input(0);
      const Tensor& y = ctx->input(1);
      Tensor* z;
      if (x.shape() == y.shape()) {
        MG_RETURN_IF_ERROR(ctx->forward_input_or_allocate_output({0, 1}, 0, x.shape(), &z));
        Loops::Flat(ctx, x, true, y, true, z);
        return absl::OkStatus();
      }
      MG_ASSIGN_OR_RETURN(BCast b, BCast::Make(x.shape(), y.shape()));
      // An input as large as the output is read at the index written.
      MG_RETURN_IF_ERROR(ctx->forward_input_or_allocate_output({0, 1}, 0, b.output_shape(), &z));
      if (z->NumElements() == 0) return absl::OkStatus();
      // Equal element counts (shapes that differ only by dims of size 1), or
      // a scalar with a tensor: one row of n.
      const int64_t n = z->NumElements();
      if ((x.NumElements() == n || x.NumElements() == 1) &&
          (y.NumElements() == n || y.NumElements() == 1)) {
        Loops::Flat(ctx, x, x.NumElements() == n, y, y.NumElements() == n, z);
        return absl::OkStatus();
      }
      Loops::Broadcast(ctx, x, y, b, z);
      return absl::OkStatus();
    }
  };
};

// A division whose integer form fails on a zero divisor (TensorFlow's
// "Integer division by zero") instead of trapping.
template <template <typename> class F>
struct IntDivKernelFor {
  template <typename T>
  class Op : public BinaryKernelFor<F>::template Op<T> {
   public:
    using BinaryKernelFor<F>::template Op<T>::Op;
    absl::Status Compute(OpKernelContext* ctx) const override {
      if constexpr (std::is_integral_v<T>) {
        const Tensor& y = ctx->input(1);
        const T* p = y.data<T>();
        if (std::find(p, p + y.NumElements(), T(0)) != p + y.NumElements()) {
          return absl::InvalidArgumentError("Integer division by zero");
        }
      }
      return BinaryKernelFor<F>::template Op<T>::Compute(ctx);
    }
  };
};

// Binary ops whose inputs must have the same shape (gradient helpers).
template <template <typename> class F>
struct SameShapeBinaryKernelFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Compute(OpKernelContext* ctx) const override {
      const Tensor& a = ctx->input(0);
      const Tensor& b = ctx->input(1);
      if (a.shape() != b.shape()) {
        return absl::InvalidArgumentError(
            absl::StrCat(type_string(), " inputs must have the same shape, got ",
                         a.shape().DebugString(), " and ", b.shape().DebugString()));
      }
      Tensor* out;
      MG_RETURN_IF_ERROR(ctx->forward_input_or_allocate_output({0, 1}, 0, a.shape(), &out));
      BinaryLoops<F, T, T>::Flat(ctx, a, true, b, true, out);
      return absl::OkStatus();
    }
  };
};

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_CWISE_OPS_H_
