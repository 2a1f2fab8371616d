// Mul, RealDiv, Pow and SquaredDifference, with broadcasting.
#include <cmath>

#include "runtime/engine/kernels/internal/cwise_ops.h"
#include "runtime/engine/kernels/internal/kernel_families.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// Pow. A scalar exponent of 2, 3, 1, 0.5, -0.5 or -1 (a tanh GELU's x^3
// and its gradient's x^2, a norm's square root) is computed as products,
// sqrt and division, as TensorFlow's grappler rewrites these Pows before
// they run: std::pow per element costs ten times as much. The results may
// differ from std::pow's in the last place.
template <typename T>
class PowOp : public BinaryKernelFor<functor::pow>::Op<T> {
 public:
  using BinaryKernelFor<functor::pow>::Op<T>::Op;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& y = ctx->input(1);
    if (y.dims() != 0) return General(ctx);
    const T e = y.data<T>()[0];
    if (e == T(2)) return Map(ctx, [](T a) { return a * a; });
    if (e == T(3)) return Map(ctx, [](T a) { return a * a * a; });
    if (e == T(1)) return Map(ctx, [](T a) { return a; });
    // pow's edges, which sqrt's differ from: pow(-inf, 0.5) is +inf and
    // pow(-0, 0.5) +0 (sqrt: NaN, -0); pow(-inf, -0.5) is +0 and
    // pow(-0, -0.5) +inf.
    if (e == T(0.5)) {
      return Map(ctx, [](T a) { return std::isinf(a) ? std::abs(a) : std::sqrt(a) + T(0); });
    }
    if (e == T(-0.5)) {
      return Map(ctx, [](T a) { return std::isinf(a) ? T(0) : T(1) / (std::sqrt(a) + T(0)); });
    }
    if (e == T(-1)) return Map(ctx, [](T a) { return T(1) / a; });
    return General(ctx);
  }

 private:
  absl::Status General(OpKernelContext* ctx) const {
    return BinaryKernelFor<functor::pow>::Op<T>::Compute(ctx);
  }
  // out = f(x).
  template <typename F>
  absl::Status Map(OpKernelContext* ctx, F f) const {
    const Tensor& x = ctx->input(0);
    Tensor* z;
    MG_RETURN_IF_ERROR(ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &z));
    const T* in = x.data<T>();
    T* out = z->data<T>();
    ctx->ParallelFor(x.NumElements(), sizeof(T), sizeof(T), 4, [&](int64_t begin, int64_t end) {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) out[i] = f(FlushDenormal(in[i]));
    });
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterMulKernels(KernelRegistry* r) {
  r->Register("Mul",
              TypedFactory<BinaryKernelFor<functor::mul>::Op, float, double, int32_t, int64_t,
                           complex64, complex128>());
  r->Register("RealDiv", TypedFactory<BinaryKernelFor<functor::quotient>::Op, float, double,
                                         complex64, complex128>());
  r->Register("Pow", TypedFactory<PowOp, float, double>());
  r->Register("SquaredDifference",
              TypedFactory<BinaryKernelFor<functor::squared_difference>::Op, float, double,
                           int32_t, int64_t>());
}

}  // namespace kernels_internal
}  // namespace minigraph
