// The MatMul kernel's definition, included only by the two files that
// instantiate it (see matmul_op.h).

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_MATMUL_OP_IMPL_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_MATMUL_OP_IMPL_H_

#include <algorithm>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernel_registry.h"
#include "runtime/engine/kernels/internal/matmul_op.h"

namespace minigraph {
namespace kernels_internal {

template <typename T>
class MatMulOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("transpose_a", &ta_));
    return c->GetAttr("transpose_b", &tb_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    if (a.dims() != 2 || b.dims() != 2) {
      return absl::InvalidArgumentError(absl::StrCat("MatMul inputs must be matrices, got ",
                                                     a.shape().DebugString(), " and ",
                                                     b.shape().DebugString()));
    }
    const int64_t m = a.dim_size(ta_ ? 1 : 0), k = a.dim_size(ta_ ? 0 : 1);
    const int64_t kb = b.dim_size(tb_ ? 1 : 0), n = b.dim_size(tb_ ? 0 : 1);
    if (k != kb) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Matrix size-incompatible: In[0]: ", a.shape().DebugString(), ", In[1]: ",
          b.shape().DebugString(), ta_ ? " (a transposed)" : "", tb_ ? " (b transposed)" : ""));
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({m, n}), &out));
    if (k == 0) {
      std::fill(out->data<T>(), out->data<T>() + m * n, T(0));
      return absl::OkStatus();
    }
    if (m * n == 0) return absl::OkStatus();
    // float and double: the GEMM convolutions use too (Eigen's GEMM is
    // instantiated in matmul_kernels.cc only).
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      Gemm(ctx, a.data<T>(), b.data<T>(), out->data<T>(), m, n, k, ta_, tb_, false);
      return absl::OkStatus();
    } else if constexpr (kIsComplex<T>) {
      ComplexMatMul(a.data<T>(), b.data<T>(), out->data<T>(), m, n, k, ta_, tb_, false);
      return absl::OkStatus();
    } else {
      IntMatMul(a.data<T>(), b.data<T>(), out->data<T>(), m, n, k, ta_, tb_);
      return absl::OkStatus();
    }
  }

 private:
  bool ta_ = false, tb_ = false;
};

template <typename T>
absl::StatusOr<std::unique_ptr<OpKernel>> NewMatMulKernel(OpKernelConstruction* c) {
  return kernel_registry_internal::Build<MatMulOp<T>>(c);
}

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_MATMUL_OP_IMPL_H_
