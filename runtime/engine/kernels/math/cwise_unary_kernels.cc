// Unary math and activation kernels, and their gradient helpers.
#include "unsupported/Eigen/SpecialFunctions"  // scalar_erf_op, scalar_erfc_op
#include "runtime/engine/kernels/internal/cwise_unary_ops.h"
#include "runtime/engine/kernels/internal/kernel_families.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// LeakyRelu and its gradient (gradients, features): the slope `alpha` is an
// attr, so these are not plain functors.
template <typename T>
class LeakyReluOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("alpha", &alpha_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    Tensor* y;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &y));
    const T a = static_cast<T>(alpha_);
    UnaryEvaluate(ctx, x.data<T>(), y->data<T>(), x.NumElements(),
                  [a](T v) { return v > T(0) ? v : v * a; });
    return absl::OkStatus();
  }

 private:
  float alpha_ = 0.2f;
};

template <typename T>
class LeakyReluGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("alpha", &alpha_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& g = ctx->input(0);
    const Tensor& f = ctx->input(1);
    if (g.shape() != f.shape()) {
      return absl::InvalidArgumentError(
          absl::StrCat("LeakyReluGrad inputs must have the same shape, got ",
                       g.shape().DebugString(), " and ", f.shape().DebugString()));
    }
    Tensor* dx;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, g.shape(), &dx));
    const T a = static_cast<T>(alpha_);
    BinaryEvaluate(ctx, g.data<T>(), f.data<T>(), dx->data<T>(), g.NumElements(),
                   [a](T gv, T fv) { return fv > T(0) ? gv : gv * a; });
    return absl::OkStatus();
  }

 private:
  float alpha_ = 0.2f;
};

// IsFinite, IsNan and IsInf: a float's class as bools.
template <bool (*kTest)(double)>
struct ClassifyFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Compute(OpKernelContext* ctx) const override {
      const Tensor& x = ctx->input(0);
      Tensor* y;
      MG_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &y));
      const T* in = x.data<T>();
      bool* out = y->data<bool>();
      for (int64_t i = 0; i < x.NumElements(); ++i) out[i] = kTest(static_cast<double>(in[i]));
      return absl::OkStatus();
    }
  };
};

// Neg and Square through Eigen's vectorized functors for floats, and
// wrapping around for integers (wrapping.h), as TensorFlow's do.
template <typename T>
using NegFunctor = std::conditional_t<kWraps<T>, functor::negate<T>,
                                      Eigen::internal::scalar_opposite_op<T>>;
template <typename T>
using SquareFunctor = std::conditional_t<kWraps<T>, functor::square<T>,
                                         Eigen::internal::scalar_square_op<T>>;

// |x|, wrapping for the most negative integer as TensorFlow's (two's
// complement) does.
template <typename T>
struct AbsFunctor {
  T operator()(T v) const {
    if constexpr (kWraps<T>) {
      return v < T(0) ? WrapNeg(v) : v;
    } else {
      return std::abs(v);
    }
  }
};

// erf and erfc: Eigen's vectorized rational approximation for float (what
// TensorFlow's float kernels compute), the C library's for double (Eigen's
// packet path clamps its input, which makes erf(NaN) 1; TensorFlow's is NaN).
template <typename T>
using ErfFunctor = std::conditional_t<std::is_same_v<T, float>,
                                      Eigen::internal::scalar_erf_op<T>, functor::erf<T>>;
template <typename T>
using ErfcFunctor = std::conditional_t<std::is_same_v<T, float>,
                                       Eigen::internal::scalar_erfc_op<T>, functor::erfc<T>>;

bool IsFiniteValue(double v) { return std::isfinite(v); }
bool IsNanValue(double v) { return std::isnan(v); }
bool IsInfValue(double v) { return std::isinf(v); }

}  // namespace

void RegisterUnaryKernels(KernelRegistry* r) {
  using namespace Eigen::internal;  // NOLINT: scalar_*_op functors
  r->Register(
      "Neg",
      TypedFactory<UnaryKernelFor<NegFunctor>::Op, float, double, int32_t, int64_t, complex64,
                   complex128>());
  r->Register(
      "Square",
      TypedFactory<UnaryKernelFor<SquareFunctor>::Op, float, double, int32_t, int64_t, complex64,
                   complex128>());
  r->Register("Sqrt", TypedFactory<UnaryKernelFor<functor::sqrt>::Op, float, double>());
  r->Register("Exp", TypedFactory<UnaryKernelFor<scalar_exp_op>::Op, float, double, complex64,
                                     complex128>());
  // float through Eigen's vectorized log; double through functor::log, whose
  // denormals read as zero as TensorFlow's do (Eigen's double log does not).
  r->Register("Log", [](OpKernelConstruction* c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DataType dt;
    MG_RETURN_IF_ERROR(c->GetAttr("T", &dt));
    if (dt == DT_DOUBLE) return TypedFactory<UnaryKernelFor<functor::log>::Op, double>()(c);
    return TypedFactory<UnaryKernelFor<scalar_log_op>::Op, float>()(c);
  });
  r->Register("Abs",
              TypedFactory<UnaryKernelFor<AbsFunctor>::Op, float, double, int32_t, int64_t>());
  r->Register("Sign",
              TypedFactory<UnaryKernelFor<scalar_sign_op>::Op, float, double, int32_t, int64_t>());
  r->Register("Expm1", TypedFactory<UnaryKernelFor<scalar_expm1_op>::Op, float, double>());
  r->Register("Erf", TypedFactory<UnaryKernelFor<ErfFunctor>::Op, float, double>());
  r->Register("Erfc", TypedFactory<UnaryKernelFor<ErfcFunctor>::Op, float, double>());
  r->Register("Sigmoid", TypedFactory<UnaryKernelFor<scalar_logistic_op>::Op, float, double>());
  r->Register("Tanh", TypedFactory<UnaryKernelFor<scalar_tanh_op>::Op, float, double>());
  r->Register("Sin", TypedFactory<UnaryKernelFor<scalar_sin_op>::Op, float, double>());
  r->Register("Cos", TypedFactory<UnaryKernelFor<scalar_cos_op>::Op, float, double>());
  r->Register("Reciprocal", TypedFactory<UnaryKernelFor<scalar_inverse_op>::Op, float, double,
                                            complex64, complex128>());
  r->Register("Floor", TypedFactory<UnaryKernelFor<scalar_floor_op>::Op, float, double>());
  r->Register("Ceil", TypedFactory<UnaryKernelFor<scalar_ceil_op>::Op, float, double>());
  r->Register("Relu",
              TypedFactory<UnaryKernelFor<functor::relu>::Op, float, double, int32_t, int64_t>());
  r->Register("ReluGrad", TypedFactory<SameShapeBinaryKernelFor<functor::relu_grad>::Op, float,
                                       double, int32_t, int64_t>());
  r->Register("SigmoidGrad",
              TypedFactory<SameShapeBinaryKernelFor<functor::sigmoid_grad>::Op, float, double>());
  r->Register("TanhGrad",
              TypedFactory<SameShapeBinaryKernelFor<functor::tanh_grad>::Op, float, double>());
  r->Register("SqrtGrad",
              TypedFactory<SameShapeBinaryKernelFor<functor::sqrt_grad>::Op, float, double>());
  r->Register("ReciprocalGrad", TypedFactory<SameShapeBinaryKernelFor<functor::reciprocal_grad>::Op,
                                             float, double, complex64, complex128>());
  r->Register("InvGrad", TypedFactory<SameShapeBinaryKernelFor<functor::reciprocal_grad>::Op,
                                      float, double, complex64, complex128>());
  r->Register("Rsqrt", TypedFactory<UnaryKernelFor<functor::rsqrt>::Op, float, double>());
  r->Register("RsqrtGrad",
              TypedFactory<SameShapeBinaryKernelFor<functor::rsqrt_grad>::Op, float, double>());
  r->Register("Log1p", TypedFactory<UnaryKernelFor<functor::log1p>::Op, float, double>());
  r->Register("Round", TypedFactory<UnaryKernelFor<functor::round_half_even>::Op, float, double,
                                    int32_t, int64_t>());
  r->Register("Softplus", TypedFactory<UnaryKernelFor<functor::softplus>::Op, float, double>());
  r->Register("SoftplusGrad",
              TypedFactory<SameShapeBinaryKernelFor<functor::softplus_grad>::Op, float, double>());
  r->Register("Elu", TypedFactory<UnaryKernelFor<functor::elu>::Op, float, double>());
  r->Register("EluGrad",
              TypedFactory<SameShapeBinaryKernelFor<functor::elu_grad>::Op, float, double>());
  r->Register("Relu6", TypedFactory<UnaryKernelFor<functor::relu6>::Op, float, double>());
  r->Register("Relu6Grad",
              TypedFactory<SameShapeBinaryKernelFor<functor::relu6_grad>::Op, float, double>());
  r->Register("LeakyRelu", TypedFactory<LeakyReluOp, float, double>());
  r->Register("LeakyReluGrad", TypedFactory<LeakyReluGradOp, float, double>());
  r->Register("IsFinite", TypedFactory<ClassifyFor<IsFiniteValue>::Op, float, double>());
  r->Register("IsNan", TypedFactory<ClassifyFor<IsNanValue>::Op, float, double>());
  r->Register("IsInf", TypedFactory<ClassifyFor<IsInfValue>::Op, float, double>());
  r->Register("LogicalNot", [](OpKernelConstruction* c) {
    return kernel_registry_internal::Build<UnaryKernelFor<functor::logical_not>::Op<bool>>(c);
  });
}

}  // namespace kernels_internal
}  // namespace minigraph
