// Cross: the cross product of each pair of 3-vectors along the innermost
// dimension (tf.linalg.cross), as TensorFlow's cross_op.cc.
#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/wrapping.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

template <typename T>
class CrossOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    if (a.shape() != b.shape()) {
      return absl::InvalidArgumentError(absl::StrCat("Cross: a and b must be of one shape, got ",
                                                     a.shape().DebugString(), " and ",
                                                     b.shape().DebugString()));
    }
    if (a.dims() < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("Cross: a and b must be vectors or batches of them, got scalars"));
    }
    if (a.dim_size(a.dims() - 1) != 3) {
      return absl::FailedPreconditionError(absl::StrCat(
          "Cross: the vectors must be the innermost dimension, of size 3, got shape ",
          a.shape().DebugString()));
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, a.shape(), &out));
    const T* x = a.data<T>();
    const T* y = b.data<T>();
    T* z = out->data<T>();
    // Integers wrap, as TensorFlow's Eigen arithmetic does.
    auto sub_mul = [](T p, T q, T r, T s) { return WrapSub(WrapMul(p, q), WrapMul(r, s)); };
    for (int64_t i = 0; i < a.NumElements(); i += 3) {
      z[i] = sub_mul(x[i + 1], y[i + 2], x[i + 2], y[i + 1]);
      z[i + 1] = sub_mul(x[i + 2], y[i], x[i], y[i + 2]);
      z[i + 2] = sub_mul(x[i], y[i + 1], x[i + 1], y[i]);
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterCrossKernels(KernelRegistry* r) {
  r->Register("Cross", TypedFactory<CrossOp, float, double, int32_t, int64_t>());
}

}  // namespace kernels_internal
}  // namespace minigraph
