// MaxPool, AvgPool, MaxPool3D, AvgPool3D, MaxPoolWithArgmax and their
// gradients (NHWC, NDHWC), with TensorFlow's CPU semantics: padding is
// never part of a window (a max ignores it, an average divides by the
// elements actually in the window). MaxPoolGrad sends a window's gradient
// to the first position holding its maximum (planes, rows, then columns);
// MaxPool3DGrad, as TensorFlow's, to every position within 1e-5 of it.
// Written as loops over the window with the depth innermost (contiguous,
// vectorized): Eigen's Tensor module has no NHWC pooling (TensorFlow's
// SpatialMaxPooling and CuboidMaxPooling are TensorFlow's own code).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/kernels/internal/window_kernel.h"
#include "runtime/graph/conv_util.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// The input elements of one window: planes [p0, p1), rows [r0, r1),
// columns [c0, c1).
struct Box {
  int64_t p0, p1, r0, r1, c0, c1;
  int64_t count() const { return (p1 - p0) * (r1 - r0) * (c1 - c0); }
};

// A pool over [n, (planes,) rows, cols, depth]; a 2-D one has one plane.
struct PoolGeometry {
  int spatial = 2;
  int64_t batch = 0, in_planes = 1, in_rows = 0, in_cols = 0, depth = 0;
  int64_t out_planes = 1, out_rows = 0, out_cols = 0;
  int64_t k_planes = 1, k_rows = 1, k_cols = 1;
  int64_t stride_planes = 1, stride_rows = 1, stride_cols = 1;
  int64_t pad_planes = 0, pad_rows = 0, pad_cols = 0;

  // The input elements of output (oplane, orow, ocol)'s window.
  Box Window(int64_t oplane, int64_t orow, int64_t ocol) const {
    const int64_t ps = oplane * stride_planes - pad_planes;
    const int64_t rs = orow * stride_rows - pad_rows;
    const int64_t cs = ocol * stride_cols - pad_cols;
    return {std::max<int64_t>(ps, 0), std::min(ps + k_planes, in_planes),
            std::max<int64_t>(rs, 0), std::min(rs + k_rows, in_rows),
            std::max<int64_t>(cs, 0), std::min(cs + k_cols, in_cols)};
  }
  int64_t in_index(int64_t n, int64_t p, int64_t r, int64_t c) const {
    return (((n * in_planes + p) * in_rows + r) * in_cols + c) * depth;
  }
  int64_t out_index(int64_t n, int64_t p, int64_t r, int64_t c) const {
    return (((n * out_planes + p) * out_rows + r) * out_cols + c) * depth;
  }
  int64_t window_size() const { return k_planes * k_rows * k_cols; }
  TensorShape output_shape() const {
    return spatial == 2 ? TensorShape({batch, out_rows, out_cols, depth})
                        : TensorShape({batch, out_planes, out_rows, out_cols, depth});
  }
};

// Calls f(base) with the input offset of each element of window `b` of
// image n (planes, rows, then columns).
template <typename F>
void ForEachInWindow(const PoolGeometry& g, int64_t n, const Box& b, const F& f) {
  for (int64_t p = b.p0; p < b.p1; ++p) {
    for (int64_t r = b.r0; r < b.r1; ++r) {
      for (int64_t c = b.c0; c < b.c1; ++c) f(g.in_index(n, p, r, c));
    }
  }
}

// Calls f(oplane, orow, ocol) for every output position of an image.
template <typename F>
void ForEachOutput(const PoolGeometry& g, const F& f) {
  for (int64_t op = 0; op < g.out_planes; ++op) {
    for (int64_t orow = 0; orow < g.out_rows; ++orow) {
      for (int64_t ocol = 0; ocol < g.out_cols; ++ocol) f(op, orow, ocol);
    }
  }
}

// A pool kernel over a 2-D (Window2D) or 3-D (Window3D) window.
template <typename W>
class PoolBase : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    if constexpr (std::is_same_v<W, Window2D>) {
      MG_ASSIGN_OR_RETURN(window_, Window2D::FromNode(c->def(), /*pool=*/true));
    } else {
      MG_ASSIGN_OR_RETURN(window_, Window3D::FromNode(c->def(), /*pool=*/true));
    }
    return absl::OkStatus();
  }

 protected:
  static constexpr int kRank = std::is_same_v<W, Window2D> ? 4 : 5;

  std::string Where() const { return absl::StrCat(type_string(), " '", name(), "'"); }

  absl::StatusOr<PoolGeometry> Geometry(const TensorShape& input) const {
    if (input.dims() != kRank) {
      return absl::InvalidArgumentError(absl::StrCat(Where(), ": input must be ", kRank,
                                                     "-dimensional, got ", input.DebugString()));
    }
    PoolGeometry g;
    g.spatial = kRank - 2;
    g.batch = input.dim_size(0);
    g.depth = input.dim_size(kRank - 1);
    // Planes, rows, columns; a 2-D window's start at rows.
    int64_t* in[] = {&g.in_planes, &g.in_rows, &g.in_cols};
    int64_t* k[] = {&g.k_planes, &g.k_rows, &g.k_cols};
    int64_t* out[] = {&g.out_planes, &g.out_rows, &g.out_cols};
    int64_t* pad[] = {&g.pad_planes, &g.pad_rows, &g.pad_cols};
    int64_t* stride[] = {&g.stride_planes, &g.stride_rows, &g.stride_cols};
    for (int i = 0; i < g.spatial; ++i) {
      const int at = 3 - g.spatial + i;
      *in[at] = input.dim_size(1 + i);
      *k[at] = window_.ksize[i];
      *stride[at] = window_.stride[i];
      MG_ASSIGN_OR_RETURN(WindowedSize size, window_.Size(i + 1, *in[at], *k[at]));
      *out[at] = size.out;
      *pad[at] = size.pad_before;
    }
    return g;
  }

  // Calls f(n, oplane, orow) for every image and output row, on the
  // step's pool.
  template <typename F>
  static void ForEachOutputRow(const OpKernelContext* ctx, const PoolGeometry& g, const F& f) {
    const double cost = static_cast<double>(g.out_cols * g.window_size() * g.depth);
    const int64_t rows = g.out_planes * g.out_rows;
    ctx->ParallelFor(g.batch * rows, cost, cost, cost, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        f(i / rows, (i % rows) / g.out_rows, i % g.out_rows);
      }
    });
  }
  // Calls f(n) for every image, on the step's pool (a gradient: windows of
  // one image overlap, so one thread sums an image).
  template <typename F>
  static void ForEachImage(const OpKernelContext* ctx, const PoolGeometry& g, const F& f) {
    const double cost = static_cast<double>(g.out_planes * g.out_rows * g.out_cols *
                                            g.window_size() * g.depth);
    ctx->ParallelFor(g.batch, cost, cost, cost, [&](int64_t begin, int64_t end) {
      for (int64_t n = begin; n < end; ++n) f(n);
    });
  }
  // `what` (grad, orig_output) has the pool's output shape.
  absl::Status CheckOutputShaped(const PoolGeometry& g, const Tensor& t, const char* what) const {
    const TensorShape want = g.output_shape();
    if (t.shape() != want) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": ", what, " has shape ", t.shape().DebugString(),
                       " but the pool's output has shape ", want.DebugString()));
    }
    return absl::OkStatus();
  }
  absl::Status CheckGrad(const PoolGeometry& g, const Tensor& grad) const {
    return CheckOutputShaped(g, grad, "grad");
  }
  // The geometry of a max's gradient (and its gradient's) from its inputs
  // orig_input and orig_output, the latter checked.
  absl::StatusOr<PoolGeometry> OrigGeometry(const OpKernelContext* ctx) const {
    MG_ASSIGN_OR_RETURN(PoolGeometry g, Geometry(ctx->input(0).shape()));
    MG_RETURN_IF_ERROR(CheckOutputShaped(g, ctx->input(1), "orig_output"));
    return g;
  }
  // The orig_input_shape input of an average's gradient.
  absl::StatusOr<TensorShape> OrigInputShape(const Tensor& t) const {
    return RankedShapeInput(t, Where(), "orig_input_shape", kRank);
  }

  W window_;
};

// For each output of image n, f(its offset, where each channel's window
// has its first maximum of `in`: an input offset, -1 for an empty window).
template <typename T, typename F>
void ForEachWindowMax(const PoolGeometry& g, int64_t n, const T* in, F f) {
  std::vector<T> best(g.depth);
  std::vector<int64_t> at(g.depth);
  T* b = best.data();
  int64_t* a = at.data();
  ForEachOutput(g, [&](int64_t op, int64_t orow, int64_t ocol) {
    bool first = true;
    ForEachInWindow(g, n, g.Window(op, orow, ocol), [&](int64_t base) {
      const T* x = in + base;
      if (first) {
        for (int64_t d = 0; d < g.depth; ++d) {
          b[d] = x[d];
          a[d] = base + d;
        }
        first = false;
        return;
      }
      // Branch-free over the channels (they vectorize): a later position
      // wins only when strictly greater, so the first maximum stays.
      for (int64_t d = 0; d < g.depth; ++d) {
        const bool greater = x[d] > b[d];
        b[d] = greater ? x[d] : b[d];
        a[d] = greater ? base + d : a[d];
      }
    });
    if (first) std::fill(at.begin(), at.end(), -1);
    f(g.out_index(n, op, orow, ocol), at);
  });
}

// MaxPoolGrad: each window's gradient to the first position of its
// maximum, the maximum recomputed from the input.
template <typename T>
class MaxPoolGradOp : public PoolBase<Window2D> {
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
      ForEachWindowMax(g, n, in, [&](int64_t o, const std::vector<int64_t>& at) {
        for (int64_t d = 0; d < g.depth; ++d) {
          if (at[d] >= 0) out[at[d]] += gr[o + d];
        }
      });
    });
    return absl::OkStatus();
  }
};

// MaxPoolGradGrad: the gradient of MaxPoolGrad with respect to its grad,
// as TensorFlow's CPU kernel computes it: each output takes the input
// gradient at its window's first maximum of orig_input (recomputed, not
// compared with orig_output).
template <typename T>
class MaxPoolGradGradOp : public PoolBase<Window2D> {
 public:
  using PoolBase::PoolBase;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    const Tensor& grad = ctx->input(2);
    MG_ASSIGN_OR_RETURN(PoolGeometry g, Geometry(x.shape()));
    MG_RETURN_IF_ERROR(CheckGrad(g, y));
    if (grad.shape() != x.shape()) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": grad has shape ", grad.shape().DebugString(),
                       " but orig_input has shape ", x.shape().DebugString()));
    }
    Tensor* dy;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, y.shape(), &dy));
    T* out = dy->data<T>();
    std::fill(out, out + dy->NumElements(), T(0));
    if (dy->NumElements() == 0) return absl::OkStatus();
    const T* in = x.data<T>();
    const T* gr = grad.data<T>();
    ForEachImage(ctx, g, [&](int64_t n) {
      ForEachWindowMax(g, n, in, [&](int64_t o, const std::vector<int64_t>& at) {
        for (int64_t d = 0; d < g.depth; ++d) {
          if (at[d] >= 0) out[o + d] = gr[at[d]];
        }
      });
    });
    return absl::OkStatus();
  }
};

// MaxPool3DGrad, as TensorFlow's CPU kernel defines it: each window's
// gradient goes to every position whose input is within 1e-5 of the
// window's orig_output (all of a tie, not the first).
template <typename T>
class MaxPool3DGradOp : public PoolBase<Window3D> {
 public:
  using PoolBase::PoolBase;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(PoolGeometry g, OrigGeometry(ctx));
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    const Tensor& grad = ctx->input(2);
    MG_RETURN_IF_ERROR(CheckGrad(g, grad));
    Tensor* dx;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &dx));
    T* out = dx->data<T>();
    std::fill(out, out + dx->NumElements(), T(0));
    if (grad.NumElements() == 0) return absl::OkStatus();
    const T* in = x.data<T>();
    const T* ys = y.data<T>();
    const T* gr = grad.data<T>();
    const T tolerance = static_cast<T>(1e-5);
    ForEachImage(ctx, g, [&](int64_t n) {
      ForEachOutput(g, [&](int64_t op, int64_t orow, int64_t ocol) {
        const int64_t o = g.out_index(n, op, orow, ocol);
        ForEachInWindow(g, n, g.Window(op, orow, ocol), [&](int64_t base) {
          for (int64_t d = 0; d < g.depth; ++d) {
            if (std::abs(in[base + d] - ys[o + d]) < tolerance) out[base + d] += gr[o + d];
          }
        });
      });
    });
    return absl::OkStatus();
  }
};

// MaxPool3DGradGrad: the gradient of MaxPool3DGrad with respect to its
// grad: each output takes the input gradient at the first position (planes,
// rows, columns) of its window equal to orig_output.
template <typename T>
class MaxPool3DGradGradOp : public PoolBase<Window3D> {
 public:
  using PoolBase::PoolBase;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(PoolGeometry g, OrigGeometry(ctx));
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    const Tensor& grad = ctx->input(2);
    if (grad.shape() != x.shape()) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": grad has shape ", grad.shape().DebugString(),
                       " but orig_input has shape ", x.shape().DebugString()));
    }
    for (const auto& [t, what] : {std::pair<const Tensor*, const char*>{&x, "orig_input"},
                                  {&y, "orig_output"}, {&grad, "grad"}}) {
      if (t->NumElements() == 0) {  // as TensorFlow's kernel refuses them
        return absl::InvalidArgumentError(absl::StrCat(Where(), ": received empty tensor ", what,
                                                       ": ", t->shape().DebugString()));
      }
    }
    Tensor* dy;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, y.shape(), &dy));
    T* out = dy->data<T>();
    std::fill(out, out + dy->NumElements(), T(0));
    const T* in = x.data<T>();
    const T* ys = y.data<T>();
    const T* gr = grad.data<T>();
    ForEachImage(ctx, g, [&](int64_t n) {
      std::vector<bool> found(g.depth);
      ForEachOutput(g, [&](int64_t op, int64_t orow, int64_t ocol) {
        const int64_t o = g.out_index(n, op, orow, ocol);
        std::fill(found.begin(), found.end(), false);
        ForEachInWindow(g, n, g.Window(op, orow, ocol), [&](int64_t base) {
          for (int64_t d = 0; d < g.depth; ++d) {
            if (!found[d] && in[base + d] == ys[o + d]) {
              out[o + d] = gr[base + d];
              found[d] = true;
            }
          }
        });
      });
    });
    return absl::OkStatus();
  }
};

// MaxPool (kMax) and AvgPool, 2-D or 3-D: one pass over each window, depth
// innermost. A NaN never wins a max.
template <typename W, typename T, bool kMax>
class PoolOp : public PoolBase<W> {
 public:
  using PoolBase<W>::PoolBase;
  // Where a max starts: TensorFlow's 2-D kernel starts at the lowest finite
  // value (a window of -inf gives it), the 3-D one (Eigen's reducer) at
  // -inf.
  static constexpr T kMaxStart = std::is_same_v<W, Window2D>
                                     ? std::numeric_limits<T>::lowest()
                                     : -std::numeric_limits<T>::infinity();
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    MG_ASSIGN_OR_RETURN(PoolGeometry g, this->Geometry(x.shape()));
    Tensor* y;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, g.output_shape(), &y));
    if (y->NumElements() == 0) return absl::OkStatus();
    const T* in = x.data<T>();
    T* out = y->data<T>();
    this->ForEachOutputRow(ctx, g, [&](int64_t n, int64_t op, int64_t orow) {
      for (int64_t ocol = 0; ocol < g.out_cols; ++ocol) {
        T* o = out + g.out_index(n, op, orow, ocol);
        std::fill(o, o + g.depth, kMax ? kMaxStart : T(0));
        const Box b = g.Window(op, orow, ocol);
        ForEachInWindow(g, n, b, [&](int64_t base) {
          const T* v = in + base;
          for (int64_t d = 0; d < g.depth; ++d) o[d] = kMax ? std::max(o[d], v[d]) : o[d] + v[d];
        });
        if (!kMax) {
          const T count = static_cast<T>(std::max<int64_t>(1, b.count()));
          for (int64_t d = 0; d < g.depth; ++d) o[d] /= count;
        }
      }
    });
    return absl::OkStatus();
  }
};
template <typename T>
using MaxPoolOp = PoolOp<Window2D, T, true>;
template <typename T>
using AvgPoolOp = PoolOp<Window2D, T, false>;
template <typename T>
using MaxPool3DOp = PoolOp<Window3D, T, true>;
template <typename T>
using AvgPool3DOp = PoolOp<Window3D, T, false>;

// AvgPoolGrad and AvgPool3DGrad: each window's gradient spread evenly over
// the elements it averaged.
template <typename W, typename T>
class AvgPoolGradOp : public PoolBase<W> {
 public:
  using PoolBase<W>::PoolBase;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& grad = ctx->input(1);
    MG_ASSIGN_OR_RETURN(TensorShape shape, this->OrigInputShape(ctx->input(0)));
    MG_ASSIGN_OR_RETURN(PoolGeometry g, this->Geometry(shape));
    MG_RETURN_IF_ERROR(this->CheckGrad(g, grad));
    Tensor* dx;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &dx));
    T* out = dx->data<T>();
    std::fill(out, out + dx->NumElements(), T(0));
    if (grad.NumElements() == 0) return absl::OkStatus();
    const T* gr = grad.data<T>();
    this->ForEachImage(ctx, g, [&](int64_t n) {
      ForEachOutput(g, [&](int64_t op, int64_t orow, int64_t ocol) {
        const Box b = g.Window(op, orow, ocol);
        const T count = static_cast<T>(std::max<int64_t>(1, b.count()));
        const T* gv = gr + g.out_index(n, op, orow, ocol);
        ForEachInWindow(g, n, b, [&](int64_t base) {
          T* o = out + base;
          for (int64_t d = 0; d < g.depth; ++d) o[d] += gv[d] / count;
        });
      });
    });
    return absl::OkStatus();
  }
};
template <typename T>
using AvgPool2DGradOp = AvgPoolGradOp<Window2D, T>;
template <typename T>
using AvgPool3DGradOp = AvgPoolGradOp<Window3D, T>;

// MaxPoolWithArgmax: MaxPool, and where each maximum is, as the flat index
// ((n * rows + row) * cols + col) * depth + channel, n omitted unless
// include_batch_in_index. A window's first element starts its maximum (a
// NaN there stays), and the first of equal values wins.
template <typename T>
class MaxPoolWithArgmaxOp : public PoolBase<Window2D> {
 public:
  using PoolBase::PoolBase;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(PoolBase::Init(c));
    MG_RETURN_IF_ERROR(c->GetAttr("Targmax", &targmax_));
    if (targmax_ != DT_INT32 && targmax_ != DT_INT64) return NoKernelForType(c, targmax_);
    return c->GetAttr("include_batch_in_index", &include_batch_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    MG_ASSIGN_OR_RETURN(PoolGeometry g, Geometry(x.shape()));
    if (x.NumElements() == 0) {  // as TensorFlow's kernel refuses it
      return absl::InvalidArgumentError(absl::StrCat(Where(), ": tensor_in must not be empty"));
    }
    Tensor *y, *argmax;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, g.output_shape(), &y));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, g.output_shape(), &argmax));
    if (y->NumElements() == 0) return absl::OkStatus();
    if (targmax_ == DT_INT32) {
      Pool(ctx, g, x.data<T>(), y->data<T>(), argmax->data<int32_t>());
    } else {
      Pool(ctx, g, x.data<T>(), y->data<T>(), argmax->data<int64_t>());
    }
    return absl::OkStatus();
  }

 private:
  template <typename Index>
  void Pool(const OpKernelContext* ctx, const PoolGeometry& g, const T* in, T* out,
            Index* argmax) const {
    const int64_t image = g.in_index(1, 0, 0, 0);
    ForEachOutputRow(ctx, g, [&](int64_t n, int64_t op, int64_t orow) {
      const int64_t offset = include_batch_ ? 0 : n * image;
      for (int64_t ocol = 0; ocol < g.out_cols; ++ocol) {
        const int64_t o = g.out_index(n, op, orow, ocol);
        std::fill(argmax + o, argmax + o + g.depth, Index(-1));
        ForEachInWindow(g, n, g.Window(op, orow, ocol), [&](int64_t base) {
          for (int64_t d = 0; d < g.depth; ++d) {
            if (argmax[o + d] < 0 || in[base + d] > out[o + d]) {
              out[o + d] = in[base + d];
              argmax[o + d] = static_cast<Index>(base + d - offset);
            }
          }
        });
      }
    });
  }

  DataType targmax_ = DT_INT64;
  bool include_batch_ = false;
};

// MaxPoolGradWithArgmax: each gradient element added at its argmax in the
// input's shape. An argmax outside its image is InvalidArgument
// (TensorFlow's kernel aborts the process on it).
template <typename T>
class MaxPoolGradWithArgmaxOp : public PoolBase<Window2D> {
 public:
  using PoolBase::PoolBase;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(PoolBase::Init(c));
    DataType targmax;
    MG_RETURN_IF_ERROR(c->GetAttr("Targmax", &targmax));
    if (targmax != DT_INT64) return NoKernelForType(c, targmax);
    return c->GetAttr("include_batch_in_index", &include_batch_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    const Tensor& argmax = ctx->input(2);
    MG_ASSIGN_OR_RETURN(PoolGeometry g, Geometry(x.shape()));
    MG_RETURN_IF_ERROR(CheckGrad(g, grad));
    MG_RETURN_IF_ERROR(CheckOutputShaped(g, argmax, "argmax"));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &out));
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), T(0));
    const int64_t pooled = g.out_index(1, 0, 0, 0), image = g.in_index(1, 0, 0, 0);
    const T* gr = grad.data<T>();
    const int64_t* at = argmax.data<int64_t>();
    for (int64_t n = 0; n < g.batch; ++n) {
      const int64_t first = include_batch_ ? n * image : 0;
      const int64_t offset = include_batch_ ? 0 : n * image;
      for (int64_t i = n * pooled; i < (n + 1) * pooled; ++i) {
        if (at[i] < first || at[i] >= first + image) {
          return absl::InvalidArgumentError(
              absl::StrCat(Where(), ": argmax ", i, " is ", at[i], ", outside [", first, ", ",
                           first + image, ") (image ", n, " of the input)"));
        }
        o[at[i] + offset] += gr[i];
      }
    }
    return absl::OkStatus();
  }

 private:
  bool include_batch_ = false;
};

}  // namespace

void RegisterPoolingKernels(KernelRegistry* r) {
  r->Register("MaxPool", TypedFactory<MaxPoolOp, float, double, int32_t, int64_t>());
  r->Register("MaxPoolGrad", TypedFactory<MaxPoolGradOp, float, double>());
  r->Register("MaxPoolGradGrad", TypedFactory<MaxPoolGradGradOp, float, double>());
  r->Register("AvgPool", TypedFactory<AvgPoolOp, float, double>());
  r->Register("AvgPoolGrad", TypedFactory<AvgPool2DGradOp, float, double>());
  // float only, as TensorFlow's CPU kernels.
  r->Register("MaxPool3D", TypedFactory<MaxPool3DOp, float>());
  r->Register("MaxPool3DGrad", TypedFactory<MaxPool3DGradOp, float>());
  r->Register("MaxPool3DGradGrad", TypedFactory<MaxPool3DGradGradOp, float>());
  r->Register("AvgPool3D", TypedFactory<AvgPool3DOp, float>());
  r->Register("AvgPool3DGrad", TypedFactory<AvgPool3DGradOp, float>());
  r->Register("MaxPoolWithArgmax",
              TypedFactory<MaxPoolWithArgmaxOp, float, double, int32_t, int64_t>());
  r->Register("MaxPoolGradWithArgmax",
              TypedFactory<MaxPoolGradWithArgmaxOp, float, double, int32_t, int64_t>());
}

}  // namespace kernels_internal
}  // namespace minigraph
