// Binary element-wise functions, with broadcasting: Atan2 and Polygamma
// (Eigen's functor, as TensorFlow's).
#include <cmath>
#include <limits>

#include "unsupported/Eigen/SpecialFunctions"  // scalar_polygamma_op
#include "runtime/engine/kernels/internal/cwise_ops.h"
#include "runtime/engine/kernels/internal/kernel_families.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// atan2(y, x): the angle of the point (x, y), in [-pi, pi] (std::atan2).
// Denormal operands are zeros, as everywhere in a step (denormal.h):
// glibc's atan2 is not written for denormals-are-zero and returns NaN or
// pi/2 for them, and TensorFlow's own answer depends on where the element
// lies (its vectorized body and its scalar tail disagree).
template <typename T>
struct Atan2Functor {
  T operator()(const T& y, const T& x) const {
    return std::atan2(FlushDenormal(y), FlushDenormal(x));
  }
};

// polygamma(n, x), 0 at x = +inf for n >= 1 (the limit, and what
// TensorFlow's Eigen gives; Debian's Eigen 3.4 gives NaN there).
template <typename T>
struct PolygammaFunctor {
  T operator()(const T& n, const T& x) const {
    if (x == std::numeric_limits<T>::infinity() && n >= T(1) && n == std::floor(n)) return T(0);
    return Eigen::internal::scalar_polygamma_op<T>()(n, x);
  }
};

}  // namespace

void RegisterBinaryMathKernels(KernelRegistry* r) {
  r->Register("Atan2", TypedFactory<BinaryKernelFor<Atan2Functor>::Op, float, double>());
  r->Register("Polygamma", TypedFactory<BinaryKernelFor<PolygammaFunctor>::Op, float, double>());
}

}  // namespace kernels_internal
}  // namespace minigraph
