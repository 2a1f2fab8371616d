// Conv2D, Conv3D and their two gradients each (NHWC and NDHWC, filters
// HWIO and DHWIO). Float ones run on oneDNN (internal/onednn_conv.h), as
// TensorFlow's x86 build runs them; doubles, and any geometry oneDNN has no
// kernel for, are lowered to matrix products as TensorFlow's Eigen kernels
// do: the input's patches become rows
// of a matrix (im2col), a product with the filter gives the output, a
// product with the output's gradient gives the filter's, and the patches'
// gradient is added back onto the input (col2im). The patch matrix is built
// a few images at a time so its memory stays bounded. A grouped convolution
// (filter depth a divisor of the input's) runs group by group. Patch copying is
// written here because Eigen's Tensor module has no NHWC convolution
// (TensorFlow's SpatialConvolution is TensorFlow's own code).
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/matmul_op.h"
#include "runtime/engine/kernels/internal/onednn_conv.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/kernels/internal/window_kernel.h"
#include "runtime/graph/conv_util.h"

namespace minigraph {
namespace kernels_internal {
namespace {


// At most this many elements in a patch matrix (64 MiB of float).
constexpr int64_t kMaxPatchElements = int64_t{16} << 20;

// The geometry of one convolution: input [n, in_planes, in_rows, in_cols,
// depth], filter [k_planes, k_rows, k_cols, depth, out_depth], output [n,
// out_planes, out_rows, out_cols, out_depth]; a 2-D one has one plane and
// its tensors no planes dimension.
struct ConvGeometry {
  int spatial = 2;  // spatial dimensions: 2 or 3
  int64_t batch = 0, in_planes = 1, in_rows = 0, in_cols = 0, depth = 0;
  int64_t k_planes = 1, k_rows = 0, k_cols = 0, out_depth = 0;
  // A grouped convolution (filter depth = depth / groups) is `groups`
  // convolutions side by side: group i reads input channels [i * depth /
  // groups, ...) and writes output channels [i * out_depth / groups, ...).
  int64_t groups = 1;
  int64_t out_planes = 1, out_rows = 0, out_cols = 0;
  int64_t pad_planes = 0, pad_rows = 0, pad_cols = 0;  // before
  int64_t stride_planes = 1, stride_rows = 1, stride_cols = 1;
  int64_t dil_rows = 1, dil_cols = 1;  // Conv3D has none

  int64_t patch_size() const { return k_planes * k_rows * k_cols * depth; }
  int64_t patches_per_image() const { return out_planes * out_rows * out_cols; }
  int64_t pixels_per_image() const { return in_planes * in_rows * in_cols; }
  // A 1x1 filter that visits every input element once: the input itself is
  // the patch matrix.
  bool pointwise() const {
    return k_planes == 1 && k_rows == 1 && k_cols == 1 && stride_planes == 1 &&
           stride_rows == 1 && stride_cols == 1 && pad_planes == 0 && pad_rows == 0 &&
           pad_cols == 0 && out_planes == in_planes && out_rows == in_rows &&
           out_cols == in_cols;
  }
  // The output's shape ([n, (planes,) rows, cols, out_depth]).
  TensorShape output_shape() const {
    return spatial == 2 ? TensorShape({batch, out_rows, out_cols, out_depth})
                        : TensorShape({batch, out_planes, out_rows, out_cols, out_depth});
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

// The rank of a window's tensors.
template <typename W>
constexpr int kRank = std::is_same_v<W, Window2D> ? 4 : 5;

// The input's depth against the filter's: a 2-D convolution's filter may
// be shallower, by a divisor (`groups` convolutions side by side).
absl::Status CheckDepths(const Window2D&, const std::string& op, int64_t filter_depth,
                         ConvGeometry* g) {
  if (filter_depth == g->depth) return absl::OkStatus();
  if (filter_depth == 0 || g->depth % filter_depth != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": input depth must be evenly divisible by filter depth: ", g->depth,
                     " vs ", filter_depth));
  }
  g->groups = g->depth / filter_depth;
  if (g->out_depth % g->groups != 0 || g->out_depth < g->groups) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": output depth must be evenly divisible by number of groups: ",
                     g->out_depth, " vs ", g->groups));
  }
  return absl::OkStatus();
}

// Conv3D's may not (TensorFlow's CPU kernel refuses groups, with these
// messages).
absl::Status CheckDepths(const Window3D&, const std::string& op, int64_t filter_depth,
                         ConvGeometry* g) {
  if (filter_depth == 0) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": filter_depth must be non-zero"));
  }
  if (g->depth % filter_depth != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": Input depth must be evenly divisible by filter depth: ", g->depth, " vs ",
        filter_depth));
  }
  if (filter_depth != g->depth) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": Number of channels in filter (", filter_depth,
                     ") must match last dimension of input (", g->depth, ")"));
  }
  return absl::OkStatus();
}

// The geometry of a convolution over window w (Window2D or Window3D) of
// `input` by a filter of shape `filter`.
template <typename W>
absl::StatusOr<ConvGeometry> Geometry(const W& w, const std::string& op,
                                      const TensorShape& input, const TensorShape& filter) {
  constexpr int rank = kRank<W>, spatial = rank - 2;
  if (input.dims() != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": input must be ", rank, "-dimensional: ", input.DebugString()));
  }
  if (filter.dims() != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": filter must be ", rank, "-dimensional: ", filter.DebugString()));
  }
  ConvGeometry g;
  g.spatial = spatial;
  g.batch = input.dim_size(0);
  g.depth = input.dim_size(rank - 1);
  g.out_depth = filter.dim_size(rank - 1);
  MG_RETURN_IF_ERROR(CheckDepths(w, op, filter.dim_size(rank - 2), &g));
  // Planes, rows, columns; a 2-D window's start at rows.
  int64_t* in[] = {&g.in_planes, &g.in_rows, &g.in_cols};
  int64_t* k[] = {&g.k_planes, &g.k_rows, &g.k_cols};
  int64_t* out[] = {&g.out_planes, &g.out_rows, &g.out_cols};
  int64_t* pad[] = {&g.pad_planes, &g.pad_rows, &g.pad_cols};
  int64_t* stride[] = {&g.stride_planes, &g.stride_rows, &g.stride_cols};
  for (int i = 0; i < spatial; ++i) {
    const int at = 3 - spatial + i;
    *in[at] = input.dim_size(1 + i);
    *k[at] = filter.dim_size(i);
    MG_ASSIGN_OR_RETURN(WindowedSize size, w.Size(i + 1, *in[at], *k[at]));
    *out[at] = size.out;
    *pad[at] = size.pad_before;
    *stride[at] = w.stride[i];
  }
  if constexpr (spatial == 2) {
    g.dil_rows = w.dilation[0];
    g.dil_cols = w.dilation[1];
  }
  return g;
}

// Calls f(patch_row, image, out_plane, out_row, out_col) for the patch
// rows of images [first, last), on the step's pool.
template <typename F>
void ForEachPatchRow(const OpKernelContext* ctx, const ConvGeometry& g, int64_t first, int64_t last,
                     const F& f) {
  const int64_t per_image = g.patches_per_image();
  const int64_t per_plane = g.out_rows * g.out_cols;
  const double bytes_per_row = static_cast<double>(g.patch_size()) * 8;
  ctx->ParallelFor((last - first) * per_image, bytes_per_row, bytes_per_row, g.patch_size(),
                   [&](int64_t begin, int64_t end) {
                     for (int64_t r = begin; r < end; ++r) {
                       const int64_t image = first + r / per_image;
                       const int64_t p = r % per_image;
                       const int64_t q = p % per_plane;
                       f(r, image, p / per_plane, q / g.out_cols, q % g.out_cols);
                     }
                   });
}

// Calls f(filter_tap, input_pixel) for the filter taps of the window at
// output position (oplane, orow, ocol) of image n, in the patch's order;
// input_pixel is -1 for a tap in the padding.
template <typename F>
void ForEachTap(const ConvGeometry& g, int64_t n, int64_t oplane, int64_t orow, int64_t ocol,
                const F& f) {
  int64_t tap = 0;
  for (int64_t kp = 0; kp < g.k_planes; ++kp) {
    const int64_t ip = oplane * g.stride_planes - g.pad_planes + kp;
    for (int64_t kr = 0; kr < g.k_rows; ++kr) {
      const int64_t ir = orow * g.stride_rows - g.pad_rows + kr * g.dil_rows;
      for (int64_t kc = 0; kc < g.k_cols; ++kc, ++tap) {
        const int64_t ic = ocol * g.stride_cols - g.pad_cols + kc * g.dil_cols;
        const bool inside = ip >= 0 && ip < g.in_planes && ir >= 0 && ir < g.in_rows &&
                            ic >= 0 && ic < g.in_cols;
        f(tap, inside ? ((n * g.in_planes + ip) * g.in_rows + ir) * g.in_cols + ic : -1);
      }
    }
  }
}

// Patch rows of images [first, last) into `patches` (row-major, one row of
// patch_size() per output position: filter plane, row, column, depth).
template <typename T>
void Im2Col(const OpKernelContext* ctx, const ConvGeometry& g, const T* input, int64_t first,
            int64_t last, T* patches) {
  const int64_t k = g.patch_size();
  ForEachPatchRow(ctx, g, first, last,
                  [&](int64_t r, int64_t n, int64_t oplane, int64_t orow, int64_t ocol) {
                    T* row = patches + r * k;
                    ForEachTap(g, n, oplane, orow, ocol, [&](int64_t tap, int64_t pixel) {
                      T* out = row + tap * g.depth;
                      if (pixel < 0) {
                        std::fill(out, out + g.depth, T(0));
                      } else {
                        std::memcpy(out, input + pixel * g.depth, g.depth * sizeof(T));
                      }
                    });
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
      for (int64_t oplane = 0; oplane < g.out_planes; ++oplane) {
        for (int64_t orow = 0; orow < g.out_rows; ++orow) {
          for (int64_t ocol = 0; ocol < g.out_cols; ++ocol, row += k) {
            ForEachTap(g, n, oplane, orow, ocol, [&](int64_t tap, int64_t pixel) {
              if (pixel < 0) return;
              const T* src = row + tap * g.depth;
              T* dst = input_grad + pixel * g.depth;
              for (int64_t d = 0; d < g.depth; ++d) dst[d] += src[d];
            });
          }
        }
      }
    }
  });
}

absl::Status CheckOutBackprop(const ConvGeometry& g, const Tensor& dy, const std::string& op) {
  const TensorShape want = g.output_shape();
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
  std::fill(dx, dx + g.batch * g.pixels_per_image() * g.depth, T(0));
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
  int64_t pixels_in = g.batch * g.pixels_per_image();
  int64_t pixels_out = g.batch * g.patches_per_image();
  int64_t taps = g.k_planes * g.k_rows * g.k_cols * one.depth;

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

// The geometry in oneDNN's terms.
OneDnnConv ToOneDnn(const ConvGeometry& g) {
  OneDnnConv c;
  c.spatial = g.spatial;
  c.batch = g.batch;
  c.depth = g.depth;
  c.out_depth = g.out_depth;
  c.groups = g.groups;
  c.in[0] = g.in_planes, c.in[1] = g.in_rows, c.in[2] = g.in_cols;
  c.kernel[0] = g.k_planes, c.kernel[1] = g.k_rows, c.kernel[2] = g.k_cols;
  c.out[0] = g.out_planes, c.out[1] = g.out_rows, c.out[2] = g.out_cols;
  c.stride[0] = g.stride_planes, c.stride[1] = g.stride_rows, c.stride[2] = g.stride_cols;
  c.dilation[1] = g.dil_rows, c.dilation[2] = g.dil_cols;
  c.pad_before[0] = g.pad_planes, c.pad_before[1] = g.pad_rows, c.pad_before[2] = g.pad_cols;
  return c;
}

// Whether oneDNN may take this convolution: nothing empty (the kernels
// answer empty ones themselves).
bool OneDnnUsable(const ConvGeometry& g) {
  return g.batch > 0 && g.depth > 0 && g.out_depth > 0 && g.patches_per_image() > 0 &&
         g.pixels_per_image() > 0 && g.patch_size() > 0;
}

// Conv2D (W = Window2D) and Conv3D (Window3D), and their backprops below.
template <typename W, typename T>
class ConvOp : public WindowKernelOf<W> {
 public:
  using WindowKernelOf<W>::WindowKernelOf;
  using WindowKernelOf<W>::Where;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    MG_ASSIGN_OR_RETURN(ConvGeometry g,
                        Geometry(this->window_, Where(), input.shape(), filter.shape()));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, g.output_shape(), &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    absl::Status s;
    const OneDnnConv c = ToOneDnn(g);
    if (TryOneDnn<T>(OneDnnUsable(g), [&] {
          return OneDnnConvForward(c, AsFloat(input.data<T>()), AsFloat(filter.data<T>()),
                                   AsFloat(out->data<T>()), ctx);
        }, &s)) {
      return s;
    }
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

template <typename W, typename T>
class ConvBackpropInputOp : public WindowKernelOf<W> {
 public:
  using WindowKernelOf<W>::WindowKernelOf;
  using WindowKernelOf<W>::Where;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(TensorShape input_shape,
                        RankedShapeInput(ctx->input(0), Where(), "input_sizes", kRank<W>));
    const Tensor& filter = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    MG_ASSIGN_OR_RETURN(ConvGeometry g,
                        Geometry(this->window_, Where(), input_shape, filter.shape()));
    MG_RETURN_IF_ERROR(CheckOutBackprop(g, dy, Where()));
    Tensor* dx;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, input_shape, &dx));
    if (dx->NumElements() == 0) return absl::OkStatus();
    if (dy.NumElements() == 0) {
      std::fill(dx->data<T>(), dx->data<T>() + dx->NumElements(), T(0));
      return absl::OkStatus();
    }
    absl::Status s;
    const OneDnnConv c = ToOneDnn(g);
    if (TryOneDnn<T>(OneDnnUsable(g), [&] {
          return OneDnnConvBackwardData(c, AsFloat(filter.data<T>()), AsFloat(dy.data<T>()),
                                        AsFloat(dx->data<T>()), ctx);
        }, &s)) {
      return s;
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

template <typename W, typename T>
class ConvBackpropFilterOp : public WindowKernelOf<W> {
 public:
  using WindowKernelOf<W>::WindowKernelOf;
  using WindowKernelOf<W>::Where;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    MG_ASSIGN_OR_RETURN(TensorShape filter_shape,
                        RankedShapeInput(ctx->input(1), Where(), "filter_sizes", kRank<W>));
    const Tensor& dy = ctx->input(2);
    MG_ASSIGN_OR_RETURN(ConvGeometry g,
                        Geometry(this->window_, Where(), input.shape(), filter_shape));
    MG_RETURN_IF_ERROR(CheckOutBackprop(g, dy, Where()));
    Tensor* df;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, filter_shape, &df));
    if (df->NumElements() == 0) return absl::OkStatus();
    absl::Status s;
    const OneDnnConv c = ToOneDnn(g);
    if (TryOneDnn<T>(OneDnnUsable(g), [&] {
          return OneDnnConvBackwardWeights(c, AsFloat(input.data<T>()), AsFloat(dy.data<T>()),
                                           AsFloat(df->data<T>()), ctx);
        }, &s)) {
      return s;
    }
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

template <typename T>
using Conv2DOp = ConvOp<Window2D, T>;
template <typename T>
using Conv2DBackpropInputOp = ConvBackpropInputOp<Window2D, T>;
template <typename T>
using Conv2DBackpropFilterOp = ConvBackpropFilterOp<Window2D, T>;
template <typename T>
using Conv3DOp = ConvOp<Window3D, T>;
template <typename T>
using Conv3DBackpropInputOp = ConvBackpropInputOp<Window3D, T>;
template <typename T>
using Conv3DBackpropFilterOp = ConvBackpropFilterOp<Window3D, T>;

}  // namespace

void RegisterConvKernels(KernelRegistry* r) {
  r->Register("Conv2D", TypedFactory<Conv2DOp, float, double>());
  r->Register("Conv2DBackpropInput", TypedFactory<Conv2DBackpropInputOp, float, double>());
  r->Register("Conv2DBackpropFilter", TypedFactory<Conv2DBackpropFilterOp, float, double>());
  r->Register("Conv3D", TypedFactory<Conv3DOp, float, double>());
  r->Register("Conv3DBackpropInputV2", TypedFactory<Conv3DBackpropInputOp, float, double>());
  r->Register("Conv3DBackpropFilterV2", TypedFactory<Conv3DBackpropFilterOp, float, double>());
}

}  // namespace kernels_internal
}  // namespace minigraph
