// MatrixSquareRoot: the principal square root of each matrix, through a
// Schur decomposition (real for real matrices, so a negative real
// eigenvalue gives NaNs, as TensorFlow's does).
#include <complex>

#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/linalg/matrix_function_op.h"

namespace minigraph {
namespace kernels_internal {
namespace {

struct SquareRoot {
  template <typename M>
  M operator()(const M& m) const {
    return m.sqrt();
  }
};
template <typename T>
using MatrixSquareRootOp = MatrixFunctionOp<T, SquareRoot>;

}  // namespace

void RegisterMatrixSquareRootKernels(KernelRegistry* r) {
  r->Register("MatrixSquareRoot",
              TypedFactory<MatrixSquareRootOp, float, double, std::complex<float>,
                           std::complex<double>>());
}

}  // namespace kernels_internal
}  // namespace minigraph
