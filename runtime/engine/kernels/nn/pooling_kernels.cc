// MaxPool, AvgPool and their gradients (NHWC), with TensorFlow's CPU
// semantics: padding is never part of a window (a max ignores it, an
// average divides by the elements actually in the window), and a max's
// gradient goes to the first position of the window holding the maximum
// (rows, then columns). Written as loops over the window with the depth
// innermost (contiguous, vectorized): Eigen's Tensor module has no NHWC
// pooling (TensorFlow's SpatialMaxPooling is TensorFlow's own code).
#include <algorithm>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/graph/conv_util.h"

namespace minigraph {
namespace kernels_internal {
namespace {

struct PoolGeometry {
  int64_t batch = 0, in_rows = 0, in_cols = 0, depth = 0;
  int64_t out_rows = 0, out_cols = 0;
  int64_t k_rows = 1, k_cols = 1, stride_rows = 1, stride_cols = 1;
  int64_t pad_rows = 0, pad_cols = 0;

  // The input rows [r0, r1) and columns [c0, c1) of output (orow, ocol).
  void Window(int64_t orow, int64_t ocol, int64_t* r0, int64_t* r1, int64_t* c0,
              int64_t* c1) const {
    const int64_t rs = orow * stride_rows - pad_rows, cs = ocol * stride_cols - pad_cols;
    *r0 = std::max<int64_t>(rs, 0);
    *r1 = std::min(rs + k_rows, in_rows);
    *c0 = std::max<int64_t>(cs, 0);
    *c1 = std::min(cs + k_cols, in_cols);
  }
  int64_t in_index(int64_t n, int64_t r, int64_t c) const {
    return ((n * in_rows + r) * in_cols + c) * depth;
  }
  int64_t out_index(int64_t n, int64_t r, int64_t c) const {
    return ((n * out_rows + r) * out_cols + c) * depth;
  }
};

class PoolBase : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_ASSIGN_OR_RETURN(window_, Window2D::FromNode(c->def(), /*pool=*/true));
    return absl::OkStatus();
  }

 protected:
  absl::StatusOr<PoolGeometry> Geometry(const TensorShape& input) const {
    if (input.dims() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(type_string(), " '", name(),
                                                     "': input must be 4-dimensional, got ",
                                                     input.DebugString()));
    }
    PoolGeometry g;
    g.batch = input.dim_size(0);
    g.in_rows = input.dim_size(1);
    g.in_cols = input.dim_size(2);
    g.depth = input.dim_size(3);
    g.k_rows = window_.ksize[0];
    g.k_cols = window_.ksize[1];
    g.stride_rows = window_.stride[0];
    g.stride_cols = window_.stride[1];
    MG_ASSIGN_OR_RETURN(WindowedSize rows, window_.Size(1, g.in_rows, g.k_rows));
    MG_ASSIGN_OR_RETURN(WindowedSize cols, window_.Size(2, g.in_cols, g.k_cols));
    g.out_rows = rows.out;
    g.out_cols = cols.out;
    g.pad_rows = rows.pad_before;
    g.pad_cols = cols.pad_before;
    return g;
  }

  // Calls f(n, orow) for every image and output row, on the step's pool.
  template <typename F>
  static void ForEachOutputRow(const OpKernelContext* ctx, const PoolGeometry& g, const F& f) {
    const double cost = static_cast<double>(g.out_cols * g.k_rows * g.k_cols * g.depth);
    ctx->ParallelFor(g.batch * g.out_rows, cost, cost, cost, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) f(i / g.out_rows, i % g.out_rows);
    });
  }
  // Calls f(n) for every image, on the step's pool (a gradient: windows of
  // one image overlap, so one thread sums an image).
  template <typename F>
  static void ForEachImage(const OpKernelContext* ctx, const PoolGeometry& g, const F& f) {
    const double cost =
        static_cast<double>(g.out_rows * g.out_cols * g.k_rows * g.k_cols * g.depth);
    ctx->ParallelFor(g.batch, cost, cost, cost, [&](int64_t begin, int64_t end) {
      for (int64_t n = begin; n < end; ++n) f(n);
    });
  }
  absl::Status CheckGrad(const PoolGeometry& g, const Tensor& grad) const {
    const TensorShape want({g.batch, g.out_rows, g.out_cols, g.depth});
    if (grad.shape() != want) {
      return absl::InvalidArgumentError(absl::StrCat(
          type_string(), " '", name(), "': grad has shape ", grad.shape().DebugString(),
          " but the pool's output has shape ", want.DebugString()));
    }
    return absl::OkStatus();
  }

  Window2D window_;
};

template <typename T>
class MaxPoolGradOp : public PoolBase {
 public:
  using PoolBase::PoolBase;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const Tensor& grad = ctx->input(2);
    MG_ASSIGN_OR_RETURN(PoolGeometry g, Geometry(x.shape()));
    MG_RETURN_IF_ERROR(CheckGrad(g, grad));
    Tensor* dx;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &dx));
    T* out = dx->data<T>();
    std::fill(out, out + dx->NumElements(), T(0));
    if (grad.NumElements() == 0) return absl::OkStatus();
    const T* in = x.data<T>();
    const T* gr = grad.data<T>();
    ForEachImage(ctx, g, [&](int64_t n) {
      std::vector<T> best(g.depth);
      std::vector<int64_t> at(g.depth);
      for (int64_t orow = 0; orow < g.out_rows; ++orow) {
        for (int64_t ocol = 0; ocol < g.out_cols; ++ocol) {
          int64_t r0, r1, c0, c1;
          g.Window(orow, ocol, &r0, &r1, &c0, &c1);
          std::fill(at.begin(), at.end(), -1);
          for (int64_t r = r0; r < r1; ++r) {
            for (int64_t c = c0; c < c1; ++c) {
              const int64_t base = g.in_index(n, r, c);
              for (int64_t d = 0; d < g.depth; ++d) {
                if (at[d] < 0 || in[base + d] > best[d]) {
                  best[d] = in[base + d];
                  at[d] = base + d;
                }
              }
            }
          }
          const T* gv = gr + g.out_index(n, orow, ocol);
          for (int64_t d = 0; d < g.depth; ++d) {
            if (at[d] >= 0) out[at[d]] += gv[d];
          }
        }
      }
    });
    return absl::OkStatus();
  }
};

// MaxPool (kMax) and AvgPool: one pass over each window, depth innermost.
template <typename T, bool kMax>
class PoolOp : public PoolBase {
 public:
  using PoolBase::PoolBase;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    MG_ASSIGN_OR_RETURN(PoolGeometry g, Geometry(x.shape()));
    Tensor* y;
    MG_RETURN_IF_ERROR(
        ctx->allocate_output(0, TensorShape({g.batch, g.out_rows, g.out_cols, g.depth}), &y));
    if (y->NumElements() == 0) return absl::OkStatus();
    const T* in = x.data<T>();
    T* out = y->data<T>();
    ForEachOutputRow(ctx, g, [&](int64_t n, int64_t orow) {
      for (int64_t ocol = 0; ocol < g.out_cols; ++ocol) {
        T* o = out + g.out_index(n, orow, ocol);
        std::fill(o, o + g.depth, kMax ? std::numeric_limits<T>::lowest() : T(0));
        int64_t r0, r1, c0, c1;
        g.Window(orow, ocol, &r0, &r1, &c0, &c1);
        for (int64_t r = r0; r < r1; ++r) {
          for (int64_t c = c0; c < c1; ++c) {
            const T* v = in + g.in_index(n, r, c);
            for (int64_t d = 0; d < g.depth; ++d) o[d] = kMax ? std::max(o[d], v[d]) : o[d] + v[d];
          }
        }
        if (!kMax) {
          const T count = static_cast<T>(std::max<int64_t>(1, (r1 - r0) * (c1 - c0)));
          for (int64_t d = 0; d < g.depth; ++d) o[d] /= count;
        }
      }
    });
    return absl::OkStatus();
  }
};
template <typename T>
using MaxPoolOp = PoolOp<T, true>;
template <typename T>
using AvgPoolOp = PoolOp<T, false>;

template <typename T>
class AvgPoolGradOp : public PoolBase {
 public:
  using PoolBase::PoolBase;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& shape_in = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    const std::string where = absl::StrCat(type_string(), " '", name(), "': orig_input_shape");
    MG_ASSIGN_OR_RETURN(TensorShape shape, ShapeFromTensor(shape_in, where));
    if (shape.dims() != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " must have 4 elements, got ", shape.dims()));
    }
    MG_ASSIGN_OR_RETURN(PoolGeometry g, Geometry(shape));
    MG_RETURN_IF_ERROR(CheckGrad(g, grad));
    Tensor* dx;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &dx));
    T* out = dx->data<T>();
    std::fill(out, out + dx->NumElements(), T(0));
    if (grad.NumElements() == 0) return absl::OkStatus();
    const T* gr = grad.data<T>();
    ForEachImage(ctx, g, [&](int64_t n) {
      for (int64_t orow = 0; orow < g.out_rows; ++orow) {
        for (int64_t ocol = 0; ocol < g.out_cols; ++ocol) {
          int64_t r0, r1, c0, c1;
          g.Window(orow, ocol, &r0, &r1, &c0, &c1);
          const T count = static_cast<T>(std::max<int64_t>(1, (r1 - r0) * (c1 - c0)));
          const T* gv = gr + g.out_index(n, orow, ocol);
          for (int64_t r = r0; r < r1; ++r) {
            for (int64_t c = c0; c < c1; ++c) {
              T* o = out + g.in_index(n, r, c);
              for (int64_t d = 0; d < g.depth; ++d) o[d] += gv[d] / count;
            }
          }
        }
      }
    });
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterPoolingKernels(KernelRegistry* r) {
  r->Register("MaxPool", TypedFactory<MaxPoolOp, float, double, int32_t, int64_t>());
  r->Register("MaxPoolGrad", TypedFactory<MaxPoolGradOp, float, double>());
  r->Register("AvgPool", TypedFactory<AvgPoolOp, float, double>());
  r->Register("AvgPoolGrad", TypedFactory<AvgPoolGradOp, float, double>());
}

}  // namespace kernels_internal
}  // namespace minigraph
