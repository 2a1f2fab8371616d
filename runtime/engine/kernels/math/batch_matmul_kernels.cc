// BatchMatMul and BatchMatMulV2: one GEMM per matrix of the (broadcast)
// batch, on the same GEMM as MatMul (GemmBatch).
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/matmul_op.h"
#include "runtime/engine/kernels/internal/matrix_batch.h"

namespace minigraph {
namespace kernels_internal {
namespace {

template <typename T>
class BatchMatMulOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("adj_x", &adj_x_));
    MG_RETURN_IF_ERROR(c->GetAttr("adj_y", &adj_y_));
    broadcast_ = c->def().op() != "BatchMatMul";
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    if (x.dims() < 2 || y.dims() < 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("In[0] and In[1] must be at least 2-dimensional: ", x.shape().DebugString(),
                       " ", y.shape().DebugString()));
    }
    const int rx = x.dims(), ry = y.dims();
    const int64_t m = x.dim_size(adj_x_ ? rx - 1 : rx - 2);
    const int64_t k = x.dim_size(adj_x_ ? rx - 2 : rx - 1);
    const int64_t ky = y.dim_size(adj_y_ ? ry - 1 : ry - 2);
    const int64_t n = y.dim_size(adj_y_ ? ry - 2 : ry - 1);
    if (k != ky) {
      return absl::InvalidArgumentError(
          absl::StrCat("Matrix size-incompatible: In[0]: ", x.shape().DebugString(),
                       ", In[1]: ", y.shape().DebugString()));
    }
    // The batch: x's and y's leading dimensions, broadcast (V1: equal).
    std::optional<MatrixBatch> batch = MatrixBatch::Make(x.shape(), y.shape(), broadcast_);
    if (!batch) {
      return absl::InvalidArgumentError(
          absl::StrCat(broadcast_ ? "In[0] and In[1] must have compatible batch dimensions: "
                                  : "In[0] and In[1] must have the same batch dimensions: ",
                       x.shape().DebugString(), " vs. ", y.shape().DebugString()));
    }
    std::vector<int64_t> dims = batch->dims();
    dims.push_back(m);
    dims.push_back(n);
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    GemmBatch(ctx, *batch, x.data<T>(), y.data<T>(), out->data<T>(), m, n, k, adj_x_, adj_y_,
              /*conjugate=*/true);
    return absl::OkStatus();
  }

 private:
  bool adj_x_ = false;
  bool adj_y_ = false;
  bool broadcast_ = true;
};

}  // namespace

void RegisterBatchMatMulKernels(KernelRegistry* r) {
  r->Register("BatchMatMul", TypedFactory<BatchMatMulOp, float, double, complex64, complex128>());
  r->Register("BatchMatMulV2",
              TypedFactory<BatchMatMulOp, float, double, complex64, complex128>());
}

}  // namespace kernels_internal
}  // namespace minigraph
