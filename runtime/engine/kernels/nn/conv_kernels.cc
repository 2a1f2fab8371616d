// Conv2D and its two gradients (NHWC, filter HWIO), lowered to matrix
// products as TensorFlow's CPU kernels do: the input's patches become rows
// of a matrix (im2col), a product with the filter gives the output, a
// product with the output's gradient gives the filter's, and the patches'
// gradient is added back onto the input (col2im). The patch matrix is built
// a few images at a time so its memory stays bounded. A grouped convolution
// (filter depth a divisor of the input's) runs group by group. Patch copying is
// written here because Eigen's Tensor module has no NHWC convolution
// (TensorFlow's SpatialConvolution is TensorFlow's own code).
#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/matmul_op.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/kernels/internal/window_kernel.h"
#include "runtime/graph/conv_util.h"

namespace minigraph {
namespace kernels_internal {
namespace {


// At most this many elements in a patch matrix (64 MiB of float).
constexpr int64_t kMaxPatchElements = int64_t{16} << 20;

// The geometry of one Conv2D: input [n, in_rows, in_cols, depth], filter
// [k_rows, k_cols, depth, out_depth], output [n, out_rows, out_cols,
// out_depth].
struct ConvGeometry {
  int64_t batch = 0, in_rows = 0, in_cols = 0, depth = 0;
  int64_t k_rows = 0, k_cols = 0, out_depth = 0;
  // A grouped convolution (filter depth = depth / groups) is `groups`
  // convolutions side by side: group i reads input channels [i * depth /
  // groups, ...) and writes output channels [i * out_depth / groups, ...).
  int64_t groups = 1;
  int64_t out_rows = 0, out_cols = 0;
  int64_t pad_rows = 0, pad_cols = 0;  // before
  int64_t stride_rows = 1, stride_cols = 1, dil_rows = 1, dil_cols = 1;

  int64_t patch_size() const { return k_rows * k_cols * depth; }
  int64_t patches_per_image() const { return out_rows * out_cols; }
  // A 1x1 filter that visits every input element once: the input itself is
  // the patch matrix.
  bool pointwise() const {
    return k_rows == 1 && k_cols == 1 && stride_rows == 1 && stride_cols == 1 && pad_rows == 0 &&
           pad_cols == 0 && out_rows == in_rows && out_cols == in_cols;
  }
  // The geometry of one group's convolution.
  ConvGeometry Group() const {
    ConvGeometry g = *this;
    g.depth = depth / groups;
    g.out_depth = out_depth / groups;
    g.groups = 1;
    return g;
  }
  // Images per patch matrix.
  int64_t images_per_chunk() const {
    const int64_t per_image = std::max<int64_t>(1, patches_per_image() * patch_size());
    return std::clamp<int64_t>(kMaxPatchElements / per_image, 1, std::max<int64_t>(batch, 1));
  }
};

absl::StatusOr<ConvGeometry> Geometry(const Window2D& w, const std::string& op,
                                      const TensorShape& input, const TensorShape& filter) {
  if (input.dims() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": input must be 4-dimensional", input.DebugString()));
  }
  if (filter.dims() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": filter must be 4-dimensional: ", filter.DebugString()));
  }
  ConvGeometry g;
  g.batch = input.dim_size(0);
  g.in_rows = input.dim_size(1);
  g.in_cols = input.dim_size(2);
  g.depth = input.dim_size(3);
  g.k_rows = filter.dim_size(0);
  g.k_cols = filter.dim_size(1);
  g.out_depth = filter.dim_size(3);
  if (filter.dim_size(2) != g.depth) {
    if (filter.dim_size(2) == 0 || g.depth % filter.dim_size(2) != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(op, ": input depth must be evenly divisible by filter depth: ", g.depth,
                       " vs ", filter.dim_size(2)));
    }
    g.groups = g.depth / filter.dim_size(2);
    if (g.out_depth % g.groups != 0 || g.out_depth < g.groups) {
      return absl::InvalidArgumentError(
          absl::StrCat(op, ": output depth must be evenly divisible by number of groups: ",
                       g.out_depth, " vs ", g.groups));
    }
  }
  MG_ASSIGN_OR_RETURN(WindowedSize rows, w.Size(1, g.in_rows, g.k_rows));
  MG_ASSIGN_OR_RETURN(WindowedSize cols, w.Size(2, g.in_cols, g.k_cols));
  g.out_rows = rows.out;
  g.out_cols = cols.out;
  g.pad_rows = rows.pad_before;
  g.pad_cols = cols.pad_before;
  g.stride_rows = w.stride[0];
  g.stride_cols = w.stride[1];
  g.dil_rows = w.dilation[0];
  g.dil_cols = w.dilation[1];
  return g;
}

// Calls f(patch_row, image, out_row, out_col) for the patch rows of images
// [first, last), on the step's pool.
template <typename F>
void ForEachPatchRow(const OpKernelContext* ctx, const ConvGeometry& g, int64_t first, int64_t last,
                     const F& f) {
  const int64_t per_image = g.patches_per_image();
  const double bytes_per_row = static_cast<double>(g.patch_size()) * 8;
  ctx->ParallelFor((last - first) * per_image, bytes_per_row, bytes_per_row, g.patch_size(),
                   [&](int64_t begin, int64_t end) {
                     for (int64_t r = begin; r < end; ++r) {
                       const int64_t image = first + r / per_image;
                       const int64_t p = r % per_image;
                       f(r, image, p / g.out_cols, p % g.out_cols);
                     }
                   });
}

// Patch rows of images [first, last) into `patches` (row-major, one row of
// patch_size() per output position: filter row, filter column, depth).
template <typename T>
void Im2Col(const OpKernelContext* ctx, const ConvGeometry& g, const T* input, int64_t first,
            int64_t last, T* patches) {
  const int64_t k = g.patch_size();
  ForEachPatchRow(ctx, g, first, last, [&](int64_t r, int64_t n, int64_t orow, int64_t ocol) {
    T* out = patches + r * k;
    for (int64_t kr = 0; kr < g.k_rows; ++kr) {
      const int64_t ir = orow * g.stride_rows - g.pad_rows + kr * g.dil_rows;
      for (int64_t kc = 0; kc < g.k_cols; ++kc, out += g.depth) {
        const int64_t ic = ocol * g.stride_cols - g.pad_cols + kc * g.dil_cols;
        if (ir < 0 || ir >= g.in_rows || ic < 0 || ic >= g.in_cols) {
          std::fill(out, out + g.depth, T(0));
        } else {
          std::memcpy(out, input + ((n * g.in_rows + ir) * g.in_cols + ic) * g.depth,
                      g.depth * sizeof(T));
        }
      }
    }
  });
}

// Adds patch gradients of images [first, last) onto `input_grad`. Windows
// of one image overlap, so each image is summed by one thread.
template <typename T>
void Col2Im(const OpKernelContext* ctx, const ConvGeometry& g, const T* patches, int64_t first,
            int64_t last, T* input_grad) {
  const int64_t k = g.patch_size();
  const double cost = static_cast<double>(g.patches_per_image() * k);
  ctx->ParallelFor(last - first, cost * 8, cost * 8, cost, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t n = first + i;
      const T* row = patches + i * g.patches_per_image() * k;
      for (int64_t orow = 0; orow < g.out_rows; ++orow) {
        for (int64_t ocol = 0; ocol < g.out_cols; ++ocol) {
          for (int64_t kr = 0; kr < g.k_rows; ++kr) {
            const int64_t ir = orow * g.stride_rows - g.pad_rows + kr * g.dil_rows;
            for (int64_t kc = 0; kc < g.k_cols; ++kc, row += g.depth) {
              const int64_t ic = ocol * g.stride_cols - g.pad_cols + kc * g.dil_cols;
              if (ir < 0 || ir >= g.in_rows || ic < 0 || ic >= g.in_cols) continue;
              T* dst = input_grad + ((n * g.in_rows + ir) * g.in_cols + ic) * g.depth;
              for (int64_t d = 0; d < g.depth; ++d) dst[d] += row[d];
            }
          }
        }
      }
    }
  });
}

absl::Status CheckOutBackprop(const ConvGeometry& g, const Tensor& dy, const std::string& op) {
  const TensorShape want({g.batch, g.out_rows, g.out_cols, g.out_depth});
  if (dy.shape() != want) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": out_backprop has shape ", dy.shape().DebugString(),
                     " but the convolution's output has shape ", want.DebugString()));
  }
  return absl::OkStatus();
}

// y = conv(x, f) for an ungrouped geometry g.
template <typename T>
absl::Status Forward(OpKernelContext* ctx, const ConvGeometry& g, const T* x, const T* f, T* y) {
  const int64_t k = g.patch_size();
  if (g.pointwise()) {
    Gemm(ctx, x, f, y, g.batch * g.patches_per_image(), g.out_depth, k, false, false, false);
    return absl::OkStatus();
  }
  const int64_t chunk = g.images_per_chunk();
  MG_ASSIGN_OR_RETURN(
      Tensor patches,
      ctx->allocate_temp(DataTypeToEnum<T>::value,
                         TensorShape({chunk * g.patches_per_image(), std::max<int64_t>(k, 1)})));
  for (int64_t first = 0; first < g.batch; first += chunk) {
    const int64_t last = std::min(g.batch, first + chunk);
    Im2Col(ctx, g, x, first, last, patches.data<T>());
    Gemm(ctx, patches.data<T>(), f, y + first * g.patches_per_image() * g.out_depth,
         (last - first) * g.patches_per_image(), g.out_depth, k, false, false, false);
  }
  return absl::OkStatus();
}

// dx from dy and f for an ungrouped geometry g (dy not empty).
template <typename T>
absl::Status BackpropInput(OpKernelContext* ctx, const ConvGeometry& g, const T* f, const T* dy,
                           T* dx) {
  const int64_t k = g.patch_size();
  if (g.pointwise()) {
    Gemm(ctx, dy, f, dx, g.batch * g.patches_per_image(), k, g.out_depth, false, true, false);
    return absl::OkStatus();
  }
  std::fill(dx, dx + g.batch * g.in_rows * g.in_cols * g.depth, T(0));
  const int64_t chunk = g.images_per_chunk();
  MG_ASSIGN_OR_RETURN(Tensor patches,
                      ctx->allocate_temp(DataTypeToEnum<T>::value,
                                         TensorShape({chunk * g.patches_per_image(), k})));
  for (int64_t first = 0; first < g.batch; first += chunk) {
    const int64_t last = std::min(g.batch, first + chunk);
    // The patches' gradient: dy (rows x out_depth) times the filter
    // (patch_size x out_depth) transposed.
    Gemm(ctx, dy + first * g.patches_per_image() * g.out_depth, f, patches.data<T>(),
         (last - first) * g.patches_per_image(), k, g.out_depth, false, true, false);
    Col2Im(ctx, g, patches.data<T>(), first, last, dx);
  }
  return absl::OkStatus();
}

// df from x and dy for an ungrouped geometry g.
template <typename T>
absl::Status BackpropFilter(OpKernelContext* ctx, const ConvGeometry& g, const T* x,
                            const T* dy, T* df) {
  const int64_t k = g.patch_size();
  const int64_t rows = g.batch * g.patches_per_image();
  if (g.pointwise() || rows == 0) {
    // The input (rows x depth) transposed times dy (rows x out_depth).
    Gemm(ctx, x, dy, df, k, g.out_depth, rows, true, false, false);
    return absl::OkStatus();
  }
  const int64_t chunk = g.images_per_chunk();
  MG_ASSIGN_OR_RETURN(Tensor patches,
                      ctx->allocate_temp(DataTypeToEnum<T>::value,
                                         TensorShape({chunk * g.patches_per_image(), k})));
  for (int64_t first = 0; first < g.batch; first += chunk) {
    const int64_t last = std::min(g.batch, first + chunk);
    Im2Col(ctx, g, x, first, last, patches.data<T>());
    Gemm(ctx, patches.data<T>(), dy + first * g.patches_per_image() * g.out_depth, df, k,
         g.out_depth, (last - first) * g.patches_per_image(), true, false,
         /*accumulate=*/first > 0);
  }
  return absl::OkStatus();
}

// Columns [offset, offset + count) of each of `rows` rows of `cols` values
// (a group's channels of an NHWC tensor, a group's output channels of a
// filter seen as [k_rows * k_cols * in, out]), copied to or from a dense
// rows x count block.
template <typename T>
void TakeColumns(const T* src, int64_t rows, int64_t cols, int64_t offset, int64_t count,
                 T* dst) {
  for (int64_t r = 0; r < rows; ++r) {
    std::copy(src + r * cols + offset, src + r * cols + offset + count, dst + r * count);
  }
}
template <typename T>
void PutColumns(const T* src, int64_t rows, int64_t cols, int64_t offset, int64_t count,
                T* dst) {
  for (int64_t r = 0; r < rows; ++r) {
    std::copy(src + r * count, src + (r + 1) * count, dst + r * cols + offset);
  }
}

// A grouped convolution's operands and results, one group at a time: each
// group's channels are copied out to dense tensors, the ungrouped
// computation runs on them, and its result is copied back. (The copies cost
// a pass over each operand; grouped convolutions are the small layers of
// ConvNeXt and RegNet.)
template <typename T>
struct Groups {
  const ConvGeometry& g;
  ConvGeometry one = g.Group();
  int64_t pixels_in = g.batch * g.in_rows * g.in_cols;
  int64_t pixels_out = g.batch * g.out_rows * g.out_cols;
  int64_t taps = g.k_rows * g.k_cols * one.depth;

  absl::StatusOr<Tensor> Temp(OpKernelContext* ctx, int64_t n) const {
    return ctx->allocate_temp(DataTypeToEnum<T>::value, TensorShape({n}));
  }
  // Group i's part of the input (pixels_in x depth), of the filter (taps x
  // out_depth) or of the output (pixels_out x out_depth), copied to or from
  // a dense block.
  void TakeInput(int64_t i, const T* x, T* block) const {
    TakeColumns(x, pixels_in, g.depth, i * one.depth, one.depth, block);
  }
  void PutInput(int64_t i, const T* block, T* x) const {
    PutColumns(block, pixels_in, g.depth, i * one.depth, one.depth, x);
  }
  void TakeFilter(int64_t i, const T* f, T* block) const {
    TakeColumns(f, taps, g.out_depth, i * one.out_depth, one.out_depth, block);
  }
  void PutFilter(int64_t i, const T* block, T* f) const {
    PutColumns(block, taps, g.out_depth, i * one.out_depth, one.out_depth, f);
  }
  void TakeOutput(int64_t i, const T* y, T* block) const {
    TakeColumns(y, pixels_out, g.out_depth, i * one.out_depth, one.out_depth, block);
  }
  void PutOutput(int64_t i, const T* block, T* y) const {
    PutColumns(block, pixels_out, g.out_depth, i * one.out_depth, one.out_depth, y);
  }
};

template <typename T>
class Conv2DOp : public WindowKernel {
 public:
  using WindowKernel::WindowKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    MG_ASSIGN_OR_RETURN(ConvGeometry g,
                        Geometry(window_, Where(), input.shape(), filter.shape()));
    Tensor* out;
    MG_RETURN_IF_ERROR(
        ctx->allocate_output(0, TensorShape({g.batch, g.out_rows, g.out_cols, g.out_depth}), &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    if (g.groups == 1) return Forward(ctx, g, input.data<T>(), filter.data<T>(), out->data<T>());
    const Groups<T> gr{g};
    MG_ASSIGN_OR_RETURN(Tensor x, gr.Temp(ctx, gr.pixels_in * gr.one.depth));
    MG_ASSIGN_OR_RETURN(Tensor f, gr.Temp(ctx, gr.taps * gr.one.out_depth));
    MG_ASSIGN_OR_RETURN(Tensor y, gr.Temp(ctx, gr.pixels_out * gr.one.out_depth));
    for (int64_t i = 0; i < g.groups; ++i) {
      gr.TakeInput(i, input.data<T>(), x.data<T>());
      gr.TakeFilter(i, filter.data<T>(), f.data<T>());
      MG_RETURN_IF_ERROR(Forward(ctx, gr.one, x.data<T>(), f.data<T>(), y.data<T>()));
      gr.PutOutput(i, y.data<T>(), out->data<T>());
    }
    return absl::OkStatus();
  }
};

template <typename T>
class Conv2DBackpropInputOp : public WindowKernel {
 public:
  using WindowKernel::WindowKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(TensorShape input_shape,
                        FourDimShapeInput(ctx->input(0), Where(), "input_sizes"));
    const Tensor& filter = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    MG_ASSIGN_OR_RETURN(ConvGeometry g,
                        Geometry(window_, Where(), input_shape, filter.shape()));
    MG_RETURN_IF_ERROR(CheckOutBackprop(g, dy, Where()));
    Tensor* dx;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, input_shape, &dx));
    if (dx->NumElements() == 0) return absl::OkStatus();
    if (dy.NumElements() == 0) {
      std::fill(dx->data<T>(), dx->data<T>() + dx->NumElements(), T(0));
      return absl::OkStatus();
    }
    if (g.groups == 1) return BackpropInput(ctx, g, filter.data<T>(), dy.data<T>(), dx->data<T>());
    const Groups<T> gr{g};
    MG_ASSIGN_OR_RETURN(Tensor f, gr.Temp(ctx, gr.taps * gr.one.out_depth));
    MG_ASSIGN_OR_RETURN(Tensor gy, gr.Temp(ctx, gr.pixels_out * gr.one.out_depth));
    MG_ASSIGN_OR_RETURN(Tensor gx, gr.Temp(ctx, gr.pixels_in * gr.one.depth));
    for (int64_t i = 0; i < g.groups; ++i) {
      gr.TakeFilter(i, filter.data<T>(), f.data<T>());
      gr.TakeOutput(i, dy.data<T>(), gy.data<T>());
      MG_RETURN_IF_ERROR(BackpropInput(ctx, gr.one, f.data<T>(), gy.data<T>(), gx.data<T>()));
      gr.PutInput(i, gx.data<T>(), dx->data<T>());
    }
    return absl::OkStatus();
  }
};

template <typename T>
class Conv2DBackpropFilterOp : public WindowKernel {
 public:
  using WindowKernel::WindowKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    MG_ASSIGN_OR_RETURN(TensorShape filter_shape,
                        FourDimShapeInput(ctx->input(1), Where(), "filter_sizes"));
    const Tensor& dy = ctx->input(2);
    MG_ASSIGN_OR_RETURN(ConvGeometry g,
                        Geometry(window_, Where(), input.shape(), filter_shape));
    MG_RETURN_IF_ERROR(CheckOutBackprop(g, dy, Where()));
    Tensor* df;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, filter_shape, &df));
    if (df->NumElements() == 0) return absl::OkStatus();
    if (g.groups == 1) return BackpropFilter(ctx, g, input.data<T>(), dy.data<T>(), df->data<T>());
    const Groups<T> gr{g};
    MG_ASSIGN_OR_RETURN(Tensor x, gr.Temp(ctx, gr.pixels_in * gr.one.depth));
    MG_ASSIGN_OR_RETURN(Tensor gy, gr.Temp(ctx, gr.pixels_out * gr.one.out_depth));
    MG_ASSIGN_OR_RETURN(Tensor gf, gr.Temp(ctx, gr.taps * gr.one.out_depth));
    for (int64_t i = 0; i < g.groups; ++i) {
      gr.TakeInput(i, input.data<T>(), x.data<T>());
      gr.TakeOutput(i, dy.data<T>(), gy.data<T>());
      MG_RETURN_IF_ERROR(BackpropFilter(ctx, gr.one, x.data<T>(), gy.data<T>(), gf.data<T>()));
      gr.PutFilter(i, gf.data<T>(), df->data<T>());
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterConvKernels(KernelRegistry* r) {
  r->Register("Conv2D", TypedFactory<Conv2DOp, float, double>());
  r->Register("Conv2DBackpropInput", TypedFactory<Conv2DBackpropInputOp, float, double>());
  r->Register("Conv2DBackpropFilter", TypedFactory<Conv2DBackpropFilterOp, float, double>());
}

}  // namespace kernels_internal
}  // namespace minigraph
