// MatrixLogarithm: the principal logarithm of each matrix, complex
// matrices only, as TensorFlow registers it.
#include <complex>

#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/linalg/matrix_function_op.h"

namespace minigraph {
namespace kernels_internal {
namespace {

struct Logarithm {
  template <typename M>
  M operator()(const M& m) const {
    return m.log();
  }
};
template <typename T>
using MatrixLogarithmOp = MatrixFunctionOp<T, Logarithm>;

}  // namespace

void RegisterMatrixLogarithmKernels(KernelRegistry* r) {
  r->Register("MatrixLogarithm",
              TypedFactory<MatrixLogarithmOp, std::complex<float>, std::complex<double>>());
}

}  // namespace kernels_internal
}  // namespace minigraph
