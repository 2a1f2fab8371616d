// Complex numbers made and taken apart: Complex (with broadcasting), Real,
// Imag, Conj, ComplexAbs and Angle. The arithmetic on complex tensors is in
// the other element-wise files (their dtype lists include complex64 and
// complex128).
#include <cmath>
#include <complex>

#include "runtime/engine/kernels/internal/cwise_ops.h"
#include "runtime/engine/kernels/internal/kernel_families.h"

namespace minigraph {
namespace kernels_internal {
namespace {

template <typename R>
struct make_complex {
  std::complex<R> operator()(const R& re, const R& im) const { return std::complex<R>(re, im); }
};

// Complex(real, imag): T float or double, Tout its complex type.
template <typename R>
class ComplexOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    DataType out;
    MG_RETURN_IF_ERROR(c->GetAttr("Tout", &out));
    if (out != DataTypeToEnum<std::complex<R>>::value) return NoKernelForType(c, out);
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    using Loops = BinaryLoops<make_complex, R, std::complex<R>>;
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    Tensor* z;
    MG_ASSIGN_OR_RETURN(BCast b, BCast::Make(x.shape(), y.shape()));
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, b.output_shape(), &z));
    const int64_t n = z->NumElements();
    if (n == 0) return absl::OkStatus();
    if ((x.NumElements() == n || x.NumElements() == 1) &&
        (y.NumElements() == n || y.NumElements() == 1)) {
      Loops::Flat(ctx, x, x.NumElements() == n, y, y.NumElements() == n, z);
    } else {
      Loops::Broadcast(ctx, x, y, b, z);
    }
    return absl::OkStatus();
  }
};

// y = F(x) for complex x; Tout (when the op has it) is F's result type.
template <typename C, typename F>
class ComplexUnaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  using Out = decltype(F()(C()));
  absl::Status Init(OpKernelConstruction* c) {
    if (c->def().attr().count("Tout") == 0) return absl::OkStatus();
    DataType out;
    MG_RETURN_IF_ERROR(c->GetAttr("Tout", &out));
    if (out != DataTypeToEnum<Out>::value) return NoKernelForType(c, out);
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    Tensor* y;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &y));
    const C* in = x.data<C>();
    Out* out = y->data<Out>();
    ctx->ParallelFor(x.NumElements(), sizeof(C), sizeof(Out), 10, [&](int64_t begin, int64_t end) {
      const F f;
      for (int64_t i = begin; i < end; ++i) out[i] = f(in[i]);
    });
    return absl::OkStatus();
  }
};

template <typename C>
struct real_part {
  typename C::value_type operator()(const C& z) const { return z.real(); }
};
template <typename C>
struct imag_part {
  typename C::value_type operator()(const C& z) const { return z.imag(); }
};
template <typename C>
struct conjugate {
  C operator()(const C& z) const { return C(z.real(), -z.imag()); }
};
// |z| without overflow or underflow in between (std::hypot), as Eigen's.
template <typename C>
struct magnitude {
  typename C::value_type operator()(const C& z) const { return std::hypot(z.real(), z.imag()); }
};
template <typename C>
struct argument {
  typename C::value_type operator()(const C& z) const { return std::atan2(z.imag(), z.real()); }
};

// A factory for ComplexUnaryOp<C, F<C>>, C chosen by attr "T".
template <template <typename> class F>
KernelFactory ComplexUnary() {
  return [](OpKernelConstruction* c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DataType dt;
    MG_RETURN_IF_ERROR(c->GetAttr("T", &dt));
    if (dt == DT_COMPLEX64) {
      return kernel_registry_internal::Build<ComplexUnaryOp<complex64, F<complex64>>>(c);
    }
    if (dt == DT_COMPLEX128) {
      return kernel_registry_internal::Build<ComplexUnaryOp<complex128, F<complex128>>>(c);
    }
    return NoKernelForType(c, dt);
  };
}

}  // namespace

void RegisterComplexKernels(KernelRegistry* r) {
  r->Register("Complex", TypedFactory<ComplexOp, float, double>());
  r->Register("Real", ComplexUnary<real_part>());
  r->Register("Imag", ComplexUnary<imag_part>());
  r->Register("Conj", ComplexUnary<conjugate>());
  r->Register("ComplexAbs", ComplexUnary<magnitude>());
  r->Register("Angle", ComplexUnary<argument>());
}

}  // namespace kernels_internal
}  // namespace minigraph
