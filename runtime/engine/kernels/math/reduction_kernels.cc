// Sum, Mean, ArgMax, ArgMin, All and Any; the scans Cumsum, Cumprod and
// CumulativeLogsumexp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/reduction_ops.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/kernels/internal/wrapping.h"

namespace minigraph {
namespace kernels_internal {
namespace {

template <typename T, bool kMin>
class ArgOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("output_type", &out_type_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> d, IntsFromTensor(ctx->input(1), "dimension"));
    if (d.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(type_string(), " dimension must be a scalar"));
    }
    int64_t axis = d[0];
    if (axis < -x.dims() || axis >= x.dims()) {
      return absl::InvalidArgumentError(absl::StrCat(type_string(), " dimension ", axis,
                                                     " is out of range for input of shape ",
                                                     x.shape().DebugString()));
    }
    if (axis < 0) axis += x.dims();
    if (x.dim_size(axis) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          type_string(), " over an empty dimension of input ", x.shape().DebugString()));
    }
    std::vector<int64_t> out_dims;
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < x.dims(); ++i) {
      if (i == axis) continue;
      out_dims.push_back(x.dim_size(i));
      (i < axis ? outer : inner) *= x.dim_size(i);
    }
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(out_dims));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    const T* in = x.data<T>();
    const int64_t n = x.dim_size(axis);
    if (out_type_ == DT_INT64) {
      Write(ctx, in, outer, n, inner, out->data<int64_t>());
    } else {
      Write(ctx, in, outer, n, inner, out->data<int32_t>());
    }
    return absl::OkStatus();
  }

 private:
  // out[o][i] = the first k of in[o][k][i]'s extreme over k < n (NaN never
  // wins after the first element, which a comparison with it cannot beat).
  template <typename Idx>
  static void Write(const OpKernelContext* ctx, const T* in, int64_t outer, int64_t n,
                    int64_t inner, Idx* out) {
    ctx->ParallelFor(outer, n * inner * sizeof(T), inner * sizeof(Idx), n * inner,
                     [&](int64_t begin, int64_t end) {
                       std::vector<T> best(inner);
                       for (int64_t o = begin; o < end; ++o) {
                         const T* block = in + o * n * inner;
                         Idx* dst = out + o * inner;
                         std::copy(block, block + inner, best.begin());
                         std::fill(dst, dst + inner, Idx(0));
                         for (int64_t k = 1; k < n; ++k) {
                           const T* row = block + k * inner;
                           for (int64_t i = 0; i < inner; ++i) {
                             if (kMin ? row[i] < best[i] : row[i] > best[i]) {
                               best[i] = row[i];
                               dst[i] = static_cast<Idx>(k);
                             }
                           }
                         }
                       }
                     });
  }

  DataType out_type_ = DT_INT64;
};

template <typename T>
using ArgMaxOp = ArgOp<T, false>;
template <typename T>
using ArgMinOp = ArgOp<T, true>;

// The combining steps of the scans (integers wrap, as TensorFlow's do).
struct ScanSum {
  template <typename T>
  static T Init() { return T(0); }
  template <typename T>
  static T Apply(T acc, T x) { return WrapAdd(acc, x); }
};
struct ScanProd {
  template <typename T>
  static T Init() { return T(1); }
  template <typename T>
  static T Apply(T acc, T x) { return WrapMul(acc, x); }
};
// log(exp(acc) + exp(x)) as TensorFlow's LogSumExp computes it: the larger
// plus log1p(exp(smaller - larger)), -inf while both are, NaN from NaN.
struct ScanLogSumExp {
  template <typename T>
  static T Init() { return -std::numeric_limits<T>::infinity(); }
  template <typename T>
  static T Apply(T acc, T x) {
    if (std::isnan(acc) || std::isnan(x)) return std::numeric_limits<T>::quiet_NaN();
    const T hi = std::max(acc, x), lo = std::min(acc, x);
    return hi < std::numeric_limits<T>::lowest() ? hi : std::log1p(std::exp(lo - hi)) + hi;
  }
};

// Cumsum, Cumprod and CumulativeLogsumexp along `axis`: out[i] = x[0] op
// ... op x[i] (or up to x[i-1] with exclusive; from the end with reverse).
template <typename Combine>
struct ScanFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Init(OpKernelConstruction* c) {
      MG_RETURN_IF_ERROR(c->GetAttr("exclusive", &exclusive_));
      return c->GetAttr("reverse", &reverse_);
    }
    absl::Status Compute(OpKernelContext* ctx) const override {
      const Tensor& x = ctx->input(0);
      MG_ASSIGN_OR_RETURN(std::vector<int64_t> a, IntsFromTensor(ctx->input(1), "axis"));
      if (a.size() != 1 || ctx->input(1).dims() != 0) {
        return absl::InvalidArgumentError(absl::StrCat(type_string(),
                                                       ": axis must be a scalar, got shape ",
                                                       ctx->input(1).shape().DebugString()));
      }
      if (x.dims() == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(type_string(), " needs a tensor of rank >= 1"));
      }
      MG_ASSIGN_OR_RETURN(int64_t axis, CanonicalAxis(a[0], x.dims(), type_string()));
      Tensor* out;
      MG_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &out));
      const auto& d = x.shape().dim_sizes();
      int64_t outer = 1, inner = 1;
      for (int i = 0; i < axis; ++i) outer *= d[i];
      for (int i = static_cast<int>(axis) + 1; i < x.dims(); ++i) inner *= d[i];
      const int64_t n = d[axis];
      const T* in = x.data<T>();
      T* o = out->data<T>();
      const bool exclusive = exclusive_, reverse = reverse_;
      ctx->ParallelFor(outer, 2.0 * n * inner * sizeof(T), n * inner * sizeof(T), n * inner,
                       [=](int64_t begin, int64_t end) {
                         std::vector<T> acc(inner);
                         for (int64_t b = begin; b < end; ++b) {
                           std::fill(acc.begin(), acc.end(), Combine::template Init<T>());
                           for (int64_t s = 0; s < n; ++s) {
                             const int64_t k = reverse ? n - 1 - s : s;
                             const T* src = in + (b * n + k) * inner;
                             T* dst = o + (b * n + k) * inner;
                             for (int64_t i = 0; i < inner; ++i) {
                               const T next = Combine::Apply(acc[i], src[i]);
                               dst[i] = exclusive ? acc[i] : next;
                               acc[i] = next;
                             }
                           }
                         }
                       });
      return absl::OkStatus();
    }

   private:
    bool exclusive_ = false;
    bool reverse_ = false;
  };
};

}  // namespace

void RegisterReductionKernels(KernelRegistry* r) {
  r->Register("Sum",
              TypedFactory<ReductionFor<reducers::Sum>::Op, float, double, int32_t, int64_t,
                           complex64, complex128>());
  r->Register("Mean",
              TypedFactory<ReductionFor<reducers::Mean>::Op, float, double, int32_t, int64_t>());
  r->Register("ArgMax", TypedFactory<ArgMaxOp, float, double, int32_t, int64_t>());
  r->Register("Cumsum", TypedFactory<ScanFor<ScanSum>::Op, float, double, int32_t, int64_t>());
  r->Register("Cumprod", TypedFactory<ScanFor<ScanProd>::Op, float, double, int32_t, int64_t>());
  r->Register("CumulativeLogsumexp", TypedFactory<ScanFor<ScanLogSumExp>::Op, float, double>());
  r->Register("ArgMin", TypedFactory<ArgMinOp, float, double, int32_t, int64_t>());
  r->Register("All", [](OpKernelConstruction* c) {
    return kernel_registry_internal::Build<ReductionOp<bool, reducers::All>>(c);
  });
  r->Register("Any", [](OpKernelConstruction* c) {
    return kernel_registry_internal::Build<ReductionOp<bool, reducers::Any>>(c);
  });
}

}  // namespace kernels_internal
}  // namespace minigraph
