// Selu and Softsign and their gradients, and L2Loss, as TensorFlow's
// relu_op_functor.h, softsign_op.h and l2loss_op.h compute them.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/array_eval.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// SELU's constants (Klambauer et al., 2017), as TensorFlow writes them.
constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluScaleAlpha = 1.7580993408473768599402175208123;

// The two inputs of a gradient op must have one shape.
absl::Status SameShapes(const char* op, const Tensor& a, const Tensor& b) {
  if (a.shape() == b.shape()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(op, " inputs must have the same shape, got ",
                                                 a.shape().DebugString(), " and ",
                                                 b.shape().DebugString()));
}

template <typename T>
class SeluOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    Tensor* y;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &y));
    UnaryEvaluate(ctx, x.data<T>(), y->data<T>(), x.NumElements(), [](T v) {
      return v < T(0) ? T(kSeluScaleAlpha) * (std::exp(v) - T(1)) : T(kSeluScale) * v;
    });
    return absl::OkStatus();
  }
};

// SeluGrad(gradients, outputs).
template <typename T>
class SeluGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& g = ctx->input(0);
    const Tensor& y = ctx->input(1);
    MG_RETURN_IF_ERROR(SameShapes("SeluGrad", g, y));
    Tensor* dx;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, g.shape(), &dx));
    BinaryEvaluate(ctx, g.data<T>(), y.data<T>(), dx->data<T>(), g.NumElements(),
                   [](T gv, T yv) {
                     return yv < T(0) ? gv * (yv + T(kSeluScaleAlpha)) : gv * T(kSeluScale);
                   });
    return absl::OkStatus();
  }
};

template <typename T>
class SoftsignOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    Tensor* y;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &y));
    UnaryEvaluate(ctx, x.data<T>(), y->data<T>(), x.NumElements(),
                  [](T v) { return v / (std::abs(v) + T(1)); });
    return absl::OkStatus();
  }
};

// SoftsignGrad(gradients, features).
template <typename T>
class SoftsignGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& g = ctx->input(0);
    const Tensor& f = ctx->input(1);
    MG_RETURN_IF_ERROR(SameShapes("SoftsignGrad", g, f));
    Tensor* dx;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, g.shape(), &dx));
    BinaryEvaluate(ctx, g.data<T>(), f.data<T>(), dx->data<T>(), g.NumElements(),
                   [](T gv, T fv) {
                     const T d = std::abs(fv) + T(1);
                     return gv / (d * d);
                   });
    return absl::OkStatus();
  }
};

// sum(t^2) / 2, a scalar: Eigen's reduction of the halved squares, as
// TensorFlow's (its order of summation, so float results agree closely).
template <typename T>
class L2LossOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& t = ctx->input(0);
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape(), &out));
    Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> x(t.data<T>(), t.NumElements());
    *out->data<T>() = (x.square() * T(0.5)).sum();
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterActivationKernels(KernelRegistry* r) {
  r->Register("Selu", TypedFactory<SeluOp, float, double>());
  r->Register("SeluGrad", TypedFactory<SeluGradOp, float, double>());
  r->Register("Softsign", TypedFactory<SoftsignOp, float, double>());
  r->Register("SoftsignGrad", TypedFactory<SoftsignGradOp, float, double>());
  r->Register("L2Loss", TypedFactory<L2LossOp, float, double>());
}

}  // namespace kernels_internal
}  // namespace minigraph
