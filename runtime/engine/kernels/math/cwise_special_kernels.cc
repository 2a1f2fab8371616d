// Unary trigonometric, hyperbolic and special functions, through Eigen's
// functors as TensorFlow's kernels compute them: Tan, Sinh, Cosh, Asin,
// Acos, Atan, Asinh, Acosh, Atanh, Lgamma, Digamma, Ndtri, Erfinv, Rint and the
// exponentially scaled and plain modified Bessel functions of orders 0 and
// 1 (BesselI0e, BesselI1e, BesselI0, BesselI1). Apart from the unary file
// so that both cores compile them.
#include <cmath>
#include <limits>

#include "unsupported/Eigen/SpecialFunctions"  // lgamma, digamma, ndtri, Bessel
#include "runtime/engine/kernels/internal/cwise_unary_ops.h"
#include "runtime/engine/kernels/internal/kernel_families.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// ndtri(p), NaN outside [0, 1] (Debian's Eigen 3.4 gives +inf for +inf;
// TensorFlow's Eigen, and the definition, NaN).
template <typename T>
struct NdtriFunctor {
  T operator()(T p) const {
    if (!(p >= T(0) && p <= T(1))) return std::numeric_limits<T>::quiet_NaN();
    return Eigen::internal::scalar_ndtri_op<T>()(p);
  }
};

// erfinv(x) = ndtri((x + 1) / 2) / sqrt(2), as TensorFlow's
// scalar_erfinv_op defines it (NaN outside [-1, 1], infinite at its ends).
template <typename T>
struct ErfinvFunctor {
  T operator()(T x) const { return NdtriFunctor<T>()(T(0.5) * x + T(0.5)) * T(M_SQRT1_2); }
};

}  // namespace

void RegisterSpecialKernels(KernelRegistry* r) {
  using namespace Eigen::internal;  // NOLINT: scalar_*_op functors
  r->Register("Tan", TypedFactory<UnaryKernelFor<scalar_tan_op>::Op, float, double>());
  r->Register("Sinh", TypedFactory<UnaryKernelFor<scalar_sinh_op>::Op, float, double>());
  r->Register("Cosh", TypedFactory<UnaryKernelFor<scalar_cosh_op>::Op, float, double>());
  r->Register("Asin", TypedFactory<UnaryKernelFor<scalar_asin_op>::Op, float, double>());
  r->Register("Acos", TypedFactory<UnaryKernelFor<scalar_acos_op>::Op, float, double>());
  r->Register("Atan", TypedFactory<UnaryKernelFor<scalar_atan_op>::Op, float, double>());
  r->Register("Asinh", TypedFactory<UnaryKernelFor<scalar_asinh_op>::Op, float, double>());
  r->Register("Acosh", TypedFactory<UnaryKernelFor<scalar_acosh_op>::Op, float, double>());
  r->Register("Atanh", TypedFactory<UnaryKernelFor<scalar_atanh_op>::Op, float, double>());
  r->Register("Lgamma", TypedFactory<UnaryKernelFor<scalar_lgamma_op>::Op, float, double>());
  r->Register("Digamma", TypedFactory<UnaryKernelFor<scalar_digamma_op>::Op, float, double>());
  r->Register("Ndtri", TypedFactory<UnaryKernelFor<NdtriFunctor>::Op, float, double>());
  r->Register("Erfinv", TypedFactory<UnaryKernelFor<ErfinvFunctor>::Op, float, double>());
  r->Register("Rint", TypedFactory<UnaryKernelFor<scalar_rint_op>::Op, float, double>());
  r->Register("BesselI0e",
              TypedFactory<UnaryKernelFor<scalar_bessel_i0e_op>::Op, float, double>());
  r->Register("BesselI1e",
              TypedFactory<UnaryKernelFor<scalar_bessel_i1e_op>::Op, float, double>());
  r->Register("BesselI0", TypedFactory<UnaryKernelFor<scalar_bessel_i0_op>::Op, float, double>());
  r->Register("BesselI1", TypedFactory<UnaryKernelFor<scalar_bessel_i1_op>::Op, float, double>());
}

}  // namespace kernels_internal
}  // namespace minigraph
