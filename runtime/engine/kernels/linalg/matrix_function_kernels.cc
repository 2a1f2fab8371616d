// Matrix functions by Eigen's MatrixFunctions module, as TensorFlow's
// matrix_square_root_op.cc and matrix_logarithm_op.cc call it:
// MatrixSquareRoot (the principal square root, through a Schur
// decomposition: real for real matrices, so a negative real eigenvalue
// gives NaNs, as there) and MatrixLogarithm (complex matrices only, as
// TensorFlow registers it).
#include <complex>

#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/linalg/matrices.h"
#include "unsupported/Eigen/MatrixFunctions"

namespace minigraph {
namespace kernels_internal {
namespace {

enum class MatrixFunction { kSquareRoot, kLogarithm };

template <typename T, MatrixFunction kFunction>
class MatrixFunctionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& a = ctx->input(0);
    MG_RETURN_IF_ERROR(CheckSquareBatch(a, 0));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, a.shape(), &out));
    const int64_t n = a.dim_size(a.dims() - 1);
    if (n == 0) return absl::OkStatus();
    ForEachMatrix(ctx, MatrixCount(a), n, [&](int64_t i) {
      // (Eigen's matrix functions want a column-major plain matrix.)
      const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> m =
          ConstMatrixMap<T>(a.data<T>() + i * n * n, n, n);
      MatrixMap<T> y(out->data<T>() + i * n * n, n, n);
      if constexpr (kFunction == MatrixFunction::kSquareRoot) {
        y = m.sqrt();
      } else {
        y = m.log();
      }
    });
    return absl::OkStatus();
  }
};
template <typename T>
using MatrixSquareRootOp = MatrixFunctionOp<T, MatrixFunction::kSquareRoot>;
template <typename T>
using MatrixLogarithmOp = MatrixFunctionOp<T, MatrixFunction::kLogarithm>;

}  // namespace

void RegisterMatrixFunctionKernels(KernelRegistry* r) {
  r->Register("MatrixSquareRoot",
              TypedFactory<MatrixSquareRootOp, float, double, std::complex<float>,
                           std::complex<double>>());
  r->Register("MatrixLogarithm",
              TypedFactory<MatrixLogarithmOp, std::complex<float>, std::complex<double>>());
}

}  // namespace kernels_internal
}  // namespace minigraph
