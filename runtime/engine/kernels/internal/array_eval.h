// Element-wise evaluation of Eigen Array expressions over tensor data,
// split across the step's intra-op threads. Eigen/Core's arrays have the
// same vectorized math as the Tensor module's expressions (exp, log, tanh,
// the logistic function ...) at a fraction of the compile time, so the
// element-wise kernels use these rather than eigen_util.h's Evaluate.
//
//   UnaryEvaluate(ctx, x.data<float>(), y->data<float>(), n,
//                 Eigen::internal::scalar_exp_op<float>());

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_ARRAY_EVAL_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_ARRAY_EVAL_H_

#include <cstdint>

#include "Eigen/Core"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {

template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// out[i] = f(x[i]) for i in [0, n); `out` may be `x` (a forwarded input).
// Functors with packet (SIMD) forms run as Eigen expressions; the others as
// a loop the compiler vectorizes as told (`omp simd`), since its own
// vectorization checks that out and x do not overlap and runs the scalar
// loop when they do.
template <typename T, typename U, typename F>
void UnaryEvaluate(const OpKernelContext* ctx, const T* x, U* out, int64_t n, const F& f) {
  ctx->ParallelFor(n, sizeof(T), sizeof(U), Eigen::internal::functor_traits<F>::Cost,
                   [&](int64_t begin, int64_t end) {
                     if constexpr (Eigen::internal::functor_traits<F>::PacketAccess) {
                       ArrayMap<U>(out + begin, end - begin) =
                           ConstArrayMap<T>(x + begin, end - begin).unaryExpr(f);
                     } else {
#pragma omp simd
                       for (int64_t i = begin; i < end; ++i) out[i] = f(x[i]);
                     }
                   });
}

// out[i] = f(x[i], y[i]) for i in [0, n).
template <typename T, typename U, typename F>
void BinaryEvaluate(const OpKernelContext* ctx, const T* x, const T* y, U* out, int64_t n,
                    const F& f) {
  ctx->ParallelFor(n, 2 * sizeof(T), sizeof(U), Eigen::internal::functor_traits<F>::Cost,
                   [&](int64_t begin, int64_t end) {
                     ArrayMap<U>(out + begin, end - begin) =
                         ConstArrayMap<T>(x + begin, end - begin)
                             .binaryExpr(ConstArrayMap<T>(y + begin, end - begin), f);
                   });
}

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_ARRAY_EVAL_H_
