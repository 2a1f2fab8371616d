// MatrixBandPart: each innermost matrix with everything outside a band
// around its diagonal set to zero (causal attention masks, triangular
// parts), as TensorFlow's matrix_band_part_op.cc defines it.
#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// A scalar bound (num_lower, num_upper) of either index type.
absl::StatusOr<int64_t> Bound(const Tensor& t, const char* what, int64_t limit,
                              const char* dim) {
  if (t.dims() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be scalar, got shape ", t.shape().DebugString()));
  }
  const int64_t v = t.dtype() == DT_INT32 ? *t.data<int32_t>() : *t.data<int64_t>();
  if (v > limit) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must be negative or less or equal to number of ", dim, " (", limit, ") got: ", v));
  }
  return v;
}

// Copies the band; T is moved as bytes of its size (any dtype).
template <typename T>
class MatrixBandPartOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    if (input.dims() < 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input must be at least 2-dim, received shape: ", input.shape().DebugString()));
    }
    const int64_t rows = input.dim_size(input.dims() - 2);
    const int64_t cols = input.dim_size(input.dims() - 1);
    MG_ASSIGN_OR_RETURN(int64_t lower, Bound(ctx->input(1), "num_lower", rows, "rows"));
    MG_ASSIGN_OR_RETURN(int64_t upper, Bound(ctx->input(2), "num_upper", cols, "columns"));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, input.shape(), &out));
    const int64_t n = input.NumElements();
    if (n == 0) return absl::OkStatus();
    const T* x = input.data<T>();
    T* y = out->data<T>();
    const int64_t matrix_rows = n / cols;
    ctx->ParallelFor(matrix_rows, cols * sizeof(T), cols * sizeof(T), cols,
                     [&](int64_t begin, int64_t end) {
                       for (int64_t r = begin; r < end; ++r) {
                         const int64_t m = r % rows;  // the row within its matrix
                         // Columns [first, last) are in the band.
                         const int64_t first = lower < 0 ? 0 : std::max<int64_t>(0, m - lower);
                         const int64_t last =
                             upper < 0 ? cols : std::min<int64_t>(cols, m + upper + 1);
                         const T* xr = x + r * cols;
                         T* yr = y + r * cols;
                         std::fill(yr, yr + cols, T());
                         if (first < last) std::copy(xr + first, xr + last, yr + first);
                       }
                     });
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterMatrixBandPartKernels(KernelRegistry* r) {
  r->Register("MatrixBandPart", TypedFactory<MatrixBandPartOp, float, double, int32_t, int64_t,
                                             bool, std::string>());
}

}  // namespace kernels_internal
}  // namespace minigraph
