// Binary element-wise functions, with broadcasting: Atan2, NextAfter, the
// special functions Polygamma, Igamma, Igammac, IgammaGradA, Zeta and
// RandomGammaGrad (Eigen's functors, as TensorFlow's), the products and
// quotients that are 0 where an operand is (Xdivy, Xlogy, Xlog1py,
// MulNoNan); and the ternary ClipByValue and Betainc.
#include <cmath>
#include <limits>

#include "unsupported/Eigen/SpecialFunctions"  // polygamma, igamma, zeta, betainc
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

// The next representable value after x towards y (std::nextafter, as
// TensorFlow's; denormals come out as they are).
template <typename T>
struct NextAfterFunctor {
  T operator()(const T& x, const T& y) const { return std::nextafter(x, y); }
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

// zeta(x, q), 0 at q = +inf for x > 1 (the limit, and TensorFlow's Eigen;
// Debian's Eigen 3.4 gives NaN there).
template <typename T>
struct ZetaFunctor {
  T operator()(const T& x, const T& q) const {
    if (q == std::numeric_limits<T>::infinity() && x > T(1)) return T(0);
    return Eigen::internal::scalar_zeta_op<T>()(x, q);
  }
};

// x / y, x log(y), x log1p(y): 0 where x is 0 (whatever y is); x y: 0
// where y is 0 (TensorFlow's xdivy, xlogy, xlog1py and mul_no_nan).
template <typename T>
struct XdivyFunctor {
  T operator()(const T& x, const T& y) const { return x == T(0) ? T(0) : x / y; }
};
template <typename T>
struct XlogyFunctor {
  // (A denormal y is zero, as in TensorFlow's flushed step: log gives -inf.)
  T operator()(const T& x, const T& y) const {
    return x == T(0) ? T(0) : x * std::log(FlushDenormal(y));
  }
};
template <typename T>
struct Xlog1pyFunctor {
  T operator()(const T& x, const T& y) const { return x == T(0) ? T(0) : x * std::log1p(y); }
};
template <typename T>
struct MulNoNanFunctor {
  T operator()(const T& x, const T& y) const { return y == T(0) ? T(0) : x * y; }
};

// ClipByValue(t, lo, hi): max(min(t, hi), lo) elementwise (lo wins over a
// smaller hi), lo and hi scalars or of t's shape (TensorFlow's rule; no
// other broadcast).
template <typename T>
class ClipByValueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& t = ctx->input(0);
    const Tensor& lo = ctx->input(1);
    const Tensor& hi = ctx->input(2);
    auto fits = [&](const Tensor& b) { return b.dims() == 0 || b.shape() == t.shape(); };
    if (!fits(lo) || !fits(hi)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "clip_value_min and clip_value_max must be either scalars or have the same shape as "
          "the input: ", t.shape().DebugString(), ", ", lo.shape().DebugString(), ", ",
          hi.shape().DebugString()));
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, t.shape(), &out));
    const T* x = t.data<T>();
    const T* l = lo.data<T>();
    const T* h = hi.data<T>();
    const bool l_moves = lo.dims() != 0, h_moves = hi.dims() != 0;
    T* y = out->data<T>();
    ctx->ParallelFor(t.NumElements(), 3 * sizeof(T), sizeof(T), 2,
                     [&](int64_t begin, int64_t end) {
                       for (int64_t i = begin; i < end; ++i) {
                         const T low = l[l_moves ? i : 0], high = h[h_moves ? i : 0];
                         const T v = high < x[i] ? high : x[i];
                         y[i] = v < low ? low : v;
                       }
                     });
    return absl::OkStatus();
  }
};

// Betainc(a, b, x): the regularized incomplete beta function I_x(a, b), by
// Eigen's betainc (TensorFlow's); a, b and x of one shape, or scalars among
// them repeated (TensorFlow's rule: no other broadcast).
template <typename T>
class BetaincOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor* in[3] = {&ctx->input(0), &ctx->input(1), &ctx->input(2)};
    const Tensor* shaped = in[0];
    for (const Tensor* t : in) {
      if (t->dims() == 0) continue;
      if (shaped->dims() != 0 && shaped->shape() != t->shape()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Betainc: a, b and x must be scalars or of one shape, got ",
            in[0]->shape().DebugString(), ", ", in[1]->shape().DebugString(), " and ",
            in[2]->shape().DebugString()));
      }
      shaped = t;
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shaped->shape(), &out));
    const T* a = in[0]->data<T>();
    const T* b = in[1]->data<T>();
    const T* x = in[2]->data<T>();
    const bool a_moves = in[0]->dims() != 0, b_moves = in[1]->dims() != 0,
               x_moves = in[2]->dims() != 0;
    T* y = out->data<T>();
    // A continued fraction of up to a few hundred terms per element.
    ctx->ParallelFor(out->NumElements(), 3 * sizeof(T), sizeof(T), 2000,
                     [&](int64_t begin, int64_t end) {
                       for (int64_t i = begin; i < end; ++i) {
                         y[i] = Eigen::numext::betainc(a[a_moves ? i : 0], b[b_moves ? i : 0],
                                                       x[x_moves ? i : 0]);
                       }
                     });
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterBinaryMathKernels(KernelRegistry* r) {
  r->Register("Xdivy", TypedFactory<BinaryKernelFor<XdivyFunctor>::Op, float, double>());
  r->Register("Xlogy", TypedFactory<BinaryKernelFor<XlogyFunctor>::Op, float, double>());
  r->Register("Xlog1py", TypedFactory<BinaryKernelFor<Xlog1pyFunctor>::Op, float, double>());
  r->Register("MulNoNan", TypedFactory<BinaryKernelFor<MulNoNanFunctor>::Op, float, double>());
  r->Register("ClipByValue", TypedFactory<ClipByValueOp, float, double, int32_t, int64_t>());
  r->Register("Atan2", TypedFactory<BinaryKernelFor<Atan2Functor>::Op, float, double>());
  r->Register("NextAfter", TypedFactory<BinaryKernelFor<NextAfterFunctor>::Op, float, double>());
  r->Register("Betainc", TypedFactory<BetaincOp, float, double>());
  r->Register("Polygamma", TypedFactory<BinaryKernelFor<PolygammaFunctor>::Op, float, double>());
  using namespace Eigen::internal;  // NOLINT: scalar_*_op functors
  r->Register("Igamma", TypedFactory<BinaryKernelFor<scalar_igamma_op>::Op, float, double>());
  r->Register("Igammac", TypedFactory<BinaryKernelFor<scalar_igammac_op>::Op, float, double>());
  r->Register("IgammaGradA",
              TypedFactory<BinaryKernelFor<scalar_igamma_der_a_op>::Op, float, double>());
  r->Register("Zeta", TypedFactory<BinaryKernelFor<ZetaFunctor>::Op, float, double>());
  // d sample / d alpha of a gamma draw (the gamma ops' gradient).
  r->Register("RandomGammaGrad", TypedFactory<BinaryKernelFor<scalar_gamma_sample_der_alpha_op>::Op,
                                              float, double>());
}

}  // namespace kernels_internal
}  // namespace minigraph
