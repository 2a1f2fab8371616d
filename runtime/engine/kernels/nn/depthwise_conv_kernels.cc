// DepthwiseConv2dNative and its two gradients (NHWC; filter [rows, cols,
// depth, multiplier]): each input channel convolved with its own
// `multiplier` filters, output channel c * multiplier + m. Float ones run on
// oneDNN as a convolution of `depth` groups (internal/onednn_conv.h), as
// TensorFlow's x86 build runs them. Doubles (and any geometry oneDNN has no
// kernel for) are written as direct
// loops rather than im2col + GEMM: per channel the product is a dot of
// rows * cols elements, too small for a GEMM, while the loops over channels
// are contiguous and vectorize (`omp simd`). Every output row (forward), input
// row (input gradient) or block of output rows (filter gradient, summed
// after) is one unit of work on the step's pool, so nothing is written twice
// at once.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/onednn_conv.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/kernels/internal/window_kernel.h"
#include "runtime/graph/conv_util.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// input [batch, in_rows, in_cols, depth], filter [k_rows, k_cols, depth,
// mult], output [batch, out_rows, out_cols, depth * mult].
struct DepthwiseGeometry {
  int64_t batch = 0, in_rows = 0, in_cols = 0, depth = 0, mult = 0;
  int64_t k_rows = 0, k_cols = 0, out_rows = 0, out_cols = 0;
  int64_t pad_rows = 0, pad_cols = 0;  // before
  int64_t stride_rows = 1, stride_cols = 1, dil_rows = 1, dil_cols = 1;

  int64_t out_depth() const { return depth * mult; }
  TensorShape input_shape() const { return TensorShape({batch, in_rows, in_cols, depth}); }
  TensorShape output_shape() const {
    return TensorShape({batch, out_rows, out_cols, out_depth()});
  }
  // The input row (column) filter row kr of output row r reads; may lie in
  // the padding (< 0 or >= in_rows).
  int64_t InRow(int64_t r, int64_t kr) const { return r * stride_rows - pad_rows + kr * dil_rows; }
  int64_t InCol(int64_t c, int64_t kc) const { return c * stride_cols - pad_cols + kc * dil_cols; }
};

absl::StatusOr<DepthwiseGeometry> Geometry(const Window2D& w, const std::string& where,
                                           const TensorShape& input, const TensorShape& filter) {
  if (input.dims() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": input must be 4-dimensional, got ", input.DebugString()));
  }
  if (filter.dims() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": filter must be 4-dimensional, got ", filter.DebugString()));
  }
  DepthwiseGeometry g;
  g.batch = input.dim_size(0);
  g.in_rows = input.dim_size(1);
  g.in_cols = input.dim_size(2);
  g.depth = input.dim_size(3);
  g.k_rows = filter.dim_size(0);
  g.k_cols = filter.dim_size(1);
  g.mult = filter.dim_size(3);
  if (filter.dim_size(2) != g.depth) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": input and filter must have the same depth: ", g.depth, " vs ",
                     filter.dim_size(2)));
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

// The geometry as oneDNN's grouped convolution: a group per channel.
OneDnnConv ToOneDnn(const DepthwiseGeometry& g) {
  OneDnnConv c;
  c.batch = g.batch;
  c.depth = g.depth;
  c.out_depth = g.out_depth();
  c.groups = g.depth;
  c.in[1] = g.in_rows, c.in[2] = g.in_cols;
  c.kernel[1] = g.k_rows, c.kernel[2] = g.k_cols;
  c.out[1] = g.out_rows, c.out[2] = g.out_cols;
  c.stride[1] = g.stride_rows, c.stride[2] = g.stride_cols;
  c.dilation[1] = g.dil_rows, c.dilation[2] = g.dil_cols;
  c.pad_before[1] = g.pad_rows, c.pad_before[2] = g.pad_cols;
  return c;
}

// Whether oneDNN may take this convolution: nothing empty.
bool OneDnnUsable(const DepthwiseGeometry& g) {
  return g.batch > 0 && g.depth > 0 && g.mult > 0 && g.in_rows > 0 && g.in_cols > 0 &&
         g.out_rows > 0 && g.out_cols > 0 && g.k_rows > 0 && g.k_cols > 0;
}

absl::Status CheckOutBackprop(const DepthwiseGeometry& g, const Tensor& dy,
                              const std::string& where) {
  if (dy.shape() != g.output_shape()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": out_backprop has shape ", dy.shape().DebugString(),
                     " but the convolution's output has shape ",
                     g.output_shape().DebugString()));
  }
  return absl::OkStatus();
}

// out[c * mult + m] += in[c] * f[c * mult + m] for every channel c.
template <typename T>
inline void MultiplyAdd(const T* __restrict in, const T* __restrict f, T* __restrict out,
                        int64_t depth, int64_t mult) {
  if (mult == 1) {
#pragma omp simd
    for (int64_t c = 0; c < depth; ++c) out[c] += in[c] * f[c];
    return;
  }
  for (int64_t c = 0; c < depth; ++c) {
    const T v = in[c];
    const T* fc = f + c * mult;
    T* oc = out + c * mult;
#pragma omp simd
    for (int64_t m = 0; m < mult; ++m) oc[m] += v * fc[m];
  }
}

// Channels summed at once in registers: a 64-byte block.
template <typename T>
constexpr int64_t kChannelBlock = 64 / sizeof(T);

// One output position of a multiplier-1 convolution, every channel: the
// taps' products summed a block of channels at a time.
template <typename T>
void ForwardPosition(const DepthwiseGeometry& g, const T* x, const T* f, T* yc, int64_t n,
                     int64_t r, int64_t c) {
  constexpr int64_t kB = kChannelBlock<T>;
  const int64_t d = g.depth;
  for (int64_t c0 = 0; c0 < d; c0 += kB) {
    const int64_t len = std::min(kB, d - c0);
    T acc[kB] = {};
    for (int64_t kr = 0; kr < g.k_rows; ++kr) {
      const int64_t ir = g.InRow(r, kr);
      if (ir < 0 || ir >= g.in_rows) continue;
      for (int64_t kc = 0; kc < g.k_cols; ++kc) {
        const int64_t ic = g.InCol(c, kc);
        if (ic < 0 || ic >= g.in_cols) continue;
        const T* xp = x + ((n * g.in_rows + ir) * g.in_cols + ic) * d + c0;
        const T* fp = f + (kr * g.k_cols + kc) * d + c0;
        if (len == kB) {
#pragma omp simd
          for (int64_t j = 0; j < kB; ++j) acc[j] += xp[j] * fp[j];
        } else {
          for (int64_t j = 0; j < len; ++j) acc[j] += xp[j] * fp[j];
        }
      }
    }
    std::copy(acc, acc + len, yc + c0);
  }
}

// Output row `row` (image and row) of a multiplier-1 convolution. The
// columns whose every tap lies inside the input go kW at a time, a block of
// channels at a time: each tap's filter block is loaded once for kW
// positions, and the kW sums stay in registers. The other columns one
// position at a time.
template <typename T>
void ForwardRow(const DepthwiseGeometry& g, const T* x, const T* f, T* y, int64_t row) {
  constexpr int64_t kB = kChannelBlock<T>;
  constexpr int64_t kW = 4;
  const int64_t n = row / g.out_rows, r = row % g.out_rows, d = g.depth;
  T* yr = y + row * g.out_cols * d;
  // [begin, end): the interior columns, a multiple of kW of them.
  const int64_t span = (g.k_cols - 1) * g.dil_cols;
  int64_t begin = 0;
  while (begin < g.out_cols && g.InCol(begin, 0) < 0) ++begin;
  int64_t end = begin;
  while (end < g.out_cols && g.InCol(end, 0) + span < g.in_cols) ++end;
  end = begin + (end - begin) / kW * kW;
  if (d % kB != 0 || g.k_rows > 64) begin = end = 0;
  int64_t valid_rows[64], row_count = 0;  // the filter rows inside the input
  for (int64_t kr = 0; kr < g.k_rows && kr < 64; ++kr) {
    const int64_t ir = g.InRow(r, kr);
    if (ir >= 0 && ir < g.in_rows) valid_rows[row_count++] = kr;
  }
  for (int64_t c = begin; c < end; c += kW) {
    for (int64_t c0 = 0; c0 < d; c0 += kB) {
      T acc[kW][kB] = {};
      for (int64_t i = 0; i < row_count; ++i) {
        const int64_t kr = valid_rows[i];
        const T* xr = x + ((n * g.in_rows + g.InRow(r, kr)) * g.in_cols) * d + c0;
        for (int64_t kc = 0; kc < g.k_cols; ++kc) {
          const T* fp = f + (kr * g.k_cols + kc) * d + c0;
          for (int64_t w = 0; w < kW; ++w) {
            const T* xp = xr + g.InCol(c + w, kc) * d;
#pragma omp simd
            for (int64_t j = 0; j < kB; ++j) acc[w][j] += xp[j] * fp[j];
          }
        }
      }
      for (int64_t w = 0; w < kW; ++w) std::copy(acc[w], acc[w] + kB, yr + (c + w) * d + c0);
    }
  }
  for (int64_t c = 0; c < g.out_cols; ++c) {
    if (c == begin && end > begin) c = end;
    if (c >= g.out_cols) break;
    ForwardPosition(g, x, f, yr + c * d, n, r, c);
  }
}

// Input row `row` (image and row) of the input gradient of a multiplier-1,
// stride-1 convolution: a correlation of dy with the filter turned round,
// done as ForwardRow does (kW interior positions at a time, the sums in
// registers); the edge positions one at a time.
template <typename T>
void BackpropInputRow(const DepthwiseGeometry& g, const T* dy, const T* f, T* dx, int64_t row) {
  constexpr int64_t kB = kChannelBlock<T>;
  constexpr int64_t kW = 4;
  const int64_t n = row / g.in_rows, ir = row % g.in_rows, d = g.depth;
  T* dxr = dx + row * g.in_cols * d;
  // The output position filter tap (kr, kc) of input (ir, ic) comes from.
  auto out_row = [&](int64_t kr) { return ir + g.pad_rows - kr * g.dil_rows; };
  auto out_col = [&](int64_t ic, int64_t kc) { return ic + g.pad_cols - kc * g.dil_cols; };
  int64_t valid_rows[64], row_count = 0;
  for (int64_t kr = 0; kr < g.k_rows && kr < 64; ++kr) {
    const int64_t r = out_row(kr);
    if (r >= 0 && r < g.out_rows) valid_rows[row_count++] = kr;
  }
  // [begin, end): the input columns every filter column maps into dy.
  int64_t begin = 0;
  while (begin < g.in_cols && out_col(begin, g.k_cols - 1) < 0) ++begin;
  int64_t end = begin;
  while (end < g.in_cols && out_col(end, 0) < g.out_cols) ++end;
  end = begin + (end - begin) / kW * kW;
  if (d % kB != 0 || g.k_rows > 64) begin = end = 0;
  for (int64_t ic = begin; ic < end; ic += kW) {
    for (int64_t c0 = 0; c0 < d; c0 += kB) {
      T acc[kW][kB] = {};
      for (int64_t i = 0; i < row_count; ++i) {
        const int64_t kr = valid_rows[i];
        const T* gr = dy + ((n * g.out_rows + out_row(kr)) * g.out_cols) * d + c0;
        for (int64_t kc = 0; kc < g.k_cols; ++kc) {
          const T* fp = f + (kr * g.k_cols + kc) * d + c0;
          for (int64_t w = 0; w < kW; ++w) {
            const T* gp = gr + out_col(ic + w, kc) * d;
#pragma omp simd
            for (int64_t j = 0; j < kB; ++j) acc[w][j] += gp[j] * fp[j];
          }
        }
      }
      for (int64_t w = 0; w < kW; ++w) std::copy(acc[w], acc[w] + kB, dxr + (ic + w) * d + c0);
    }
  }
  for (int64_t ic = 0; ic < g.in_cols; ++ic) {
    if (ic == begin && end > begin) ic = end;
    if (ic >= g.in_cols) break;
    T* out = dxr + ic * d;
    std::fill(out, out + d, T(0));
    for (int64_t i = 0; i < row_count; ++i) {
      const int64_t kr = valid_rows[i];
      for (int64_t kc = 0; kc < g.k_cols; ++kc) {
        const int64_t oc = out_col(ic, kc);
        if (oc < 0 || oc >= g.out_cols) continue;
        const T* gp = dy + ((n * g.out_rows + out_row(kr)) * g.out_cols + oc) * d;
        const T* fp = f + (kr * g.k_cols + kc) * d;
#pragma omp simd
        for (int64_t j = 0; j < d; ++j) out[j] += gp[j] * fp[j];
      }
    }
  }
}

// Adds output row `row`'s part of a multiplier-1 filter gradient (depth a
// whole number of channel blocks) to `df`: per tap and block of channels,
// the products along the row summed in registers, then added once.
template <typename T>
void BackpropFilterRow(const DepthwiseGeometry& g, const T* x, const T* dy, T* df, int64_t row) {
  constexpr int64_t kB = kChannelBlock<T>;
  const int64_t n = row / g.out_rows, r = row % g.out_rows, d = g.depth;
  const T* gyr = dy + row * g.out_cols * d;
  for (int64_t kr = 0; kr < g.k_rows; ++kr) {
    const int64_t ir = g.InRow(r, kr);
    if (ir < 0 || ir >= g.in_rows) continue;
    const T* xr = x + (n * g.in_rows + ir) * g.in_cols * d;
    for (int64_t kc = 0; kc < g.k_cols; ++kc) {
      // The output columns whose tap kc lies inside the input.
      int64_t begin = 0, end = g.out_cols;
      while (begin < end && g.InCol(begin, kc) < 0) ++begin;
      while (end > begin && g.InCol(end - 1, kc) >= g.in_cols) --end;
      T* dft = df + (kr * g.k_cols + kc) * d;
      for (int64_t c0 = 0; c0 < d; c0 += kB) {
        T acc[kB] = {};
        for (int64_t c = begin; c < end; ++c) {
          const T* xp = xr + g.InCol(c, kc) * d + c0;
          const T* gp = gyr + c * d + c0;
#pragma omp simd
          for (int64_t j = 0; j < kB; ++j) acc[j] += xp[j] * gp[j];
        }
#pragma omp simd
        for (int64_t j = 0; j < kB; ++j) dft[c0 + j] += acc[j];
      }
    }
  }
}

template <typename T>
class DepthwiseConv2dNativeOp : public WindowKernel {
 public:
  using WindowKernel::WindowKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    MG_ASSIGN_OR_RETURN(DepthwiseGeometry g,
                        Geometry(window_, Where(), input.shape(), filter.shape()));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, g.output_shape(), &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    const T* x = input.data<T>();
    const T* f = filter.data<T>();
    T* y = out->data<T>();
    absl::Status s;
    const OneDnnConv c = ToOneDnn(g);
    if (TryOneDnn<T>(OneDnnUsable(g), [&] {
          return OneDnnConvForward(c, AsFloat(x), AsFloat(f), AsFloat(y), ctx);
        }, &s)) {
      return s;
    }
    const int64_t od = g.out_depth();
    const double row_cost = static_cast<double>(g.out_cols * g.k_rows * g.k_cols * od);
    if (g.mult == 1) {
      ctx->ParallelFor(g.batch * g.out_rows, row_cost * sizeof(T), g.out_cols * od * sizeof(T),
                       row_cost, [&](int64_t begin, int64_t end) {
                         for (int64_t row = begin; row < end; ++row) ForwardRow(g, x, f, y, row);
                       });
      return absl::OkStatus();
    }
    ctx->ParallelFor(g.batch * g.out_rows, row_cost * sizeof(T), g.out_cols * od * sizeof(T),
                     row_cost, [&](int64_t begin, int64_t end) {
                       for (int64_t row = begin; row < end; ++row) {
                         const int64_t n = row / g.out_rows, r = row % g.out_rows;
                         T* yr = y + row * g.out_cols * od;
                         std::fill(yr, yr + g.out_cols * od, T(0));
                         for (int64_t kr = 0; kr < g.k_rows; ++kr) {
                           const int64_t ir = g.InRow(r, kr);
                           if (ir < 0 || ir >= g.in_rows) continue;
                           const T* xr = x + (n * g.in_rows + ir) * g.in_cols * g.depth;
                           for (int64_t c = 0; c < g.out_cols; ++c) {
                             for (int64_t kc = 0; kc < g.k_cols; ++kc) {
                               const int64_t ic = g.InCol(c, kc);
                               if (ic < 0 || ic >= g.in_cols) continue;
                               MultiplyAdd(xr + ic * g.depth, f + (kr * g.k_cols + kc) * od,
                                           yr + c * od, g.depth, g.mult);
                             }
                           }
                         }
                       }
                     });
    return absl::OkStatus();
  }
};

// dx[n, ir, ic, c] = sum over the output positions and filter taps that read
// it of dy[..., c * mult + m] * f[kr, kc, c, m]: gathered per input row.
template <typename T>
class DepthwiseConv2dNativeBackpropInputOp : public WindowKernel {
 public:
  using WindowKernel::WindowKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(TensorShape input_shape,
                        RankedShapeInput(ctx->input(0), Where(), "input_sizes", 4));
    const Tensor& filter = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    MG_ASSIGN_OR_RETURN(DepthwiseGeometry g,
                        Geometry(window_, Where(), input_shape, filter.shape()));
    MG_RETURN_IF_ERROR(CheckOutBackprop(g, dy, Where()));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, input_shape, &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    const T* f = filter.data<T>();
    const T* gy = dy.data<T>();
    T* dx = out->data<T>();
    absl::Status s;
    const OneDnnConv c = ToOneDnn(g);
    if (TryOneDnn<T>(OneDnnUsable(g), [&] {
          return OneDnnConvBackwardData(c, AsFloat(f), AsFloat(gy), AsFloat(dx),
                                        ctx);
        }, &s)) {
      return s;
    }
    const int64_t od = g.out_depth();
    const double row_cost = static_cast<double>(g.in_cols * g.k_rows * g.k_cols * od);
    if (g.mult == 1 && g.stride_rows == 1 && g.stride_cols == 1) {
      ctx->ParallelFor(g.batch * g.in_rows, row_cost * sizeof(T), g.in_cols * od * sizeof(T),
                       row_cost, [&](int64_t begin, int64_t end) {
                         for (int64_t row = begin; row < end; ++row) {
                           BackpropInputRow(g, gy, f, dx, row);
                         }
                       });
      return absl::OkStatus();
    }
    ctx->ParallelFor(
        g.batch * g.in_rows, row_cost * sizeof(T), g.in_cols * g.depth * sizeof(T), row_cost,
        [&](int64_t begin, int64_t end) {
          std::vector<T> sum(g.depth);
          for (int64_t row = begin; row < end; ++row) {
            const int64_t n = row / g.in_rows, ir = row % g.in_rows;
            for (int64_t ic = 0; ic < g.in_cols; ++ic) {
              std::fill(sum.begin(), sum.end(), T(0));
              for (int64_t kr = 0; kr < g.k_rows; ++kr) {
                // The output row whose window puts filter row kr on ir.
                const int64_t num_r = ir + g.pad_rows - kr * g.dil_rows;
                if (num_r < 0 || num_r % g.stride_rows != 0) continue;
                const int64_t r = num_r / g.stride_rows;
                if (r >= g.out_rows) continue;
                for (int64_t kc = 0; kc < g.k_cols; ++kc) {
                  const int64_t num_c = ic + g.pad_cols - kc * g.dil_cols;
                  if (num_c < 0 || num_c % g.stride_cols != 0) continue;
                  const int64_t c = num_c / g.stride_cols;
                  if (c >= g.out_cols) continue;
                  const T* gyc = gy + ((n * g.out_rows + r) * g.out_cols + c) * od;
                  const T* fk = f + (kr * g.k_cols + kc) * od;
                  if (g.mult == 1) {
#pragma omp simd
                    for (int64_t d = 0; d < g.depth; ++d) sum[d] += gyc[d] * fk[d];
                  } else {
                    for (int64_t d = 0; d < g.depth; ++d) {
                      T acc = 0;
                      for (int64_t m = 0; m < g.mult; ++m) {
                        acc += gyc[d * g.mult + m] * fk[d * g.mult + m];
                      }
                      sum[d] += acc;
                    }
                  }
                }
              }
              std::copy(sum.begin(), sum.end(), dx + (row * g.in_cols + ic) * g.depth);
            }
          }
        });
    return absl::OkStatus();
  }
};

// df[kr, kc, c, m] = sum over the output positions of x[the tap's input, c]
// * dy[..., c * mult + m]: each block of output rows sums into its own
// partial filter gradient, and the partials are added after.
template <typename T>
class DepthwiseConv2dNativeBackpropFilterOp : public WindowKernel {
 public:
  using WindowKernel::WindowKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    MG_ASSIGN_OR_RETURN(TensorShape filter_shape,
                        RankedShapeInput(ctx->input(1), Where(), "filter_sizes", 4));
    const Tensor& dy = ctx->input(2);
    MG_ASSIGN_OR_RETURN(DepthwiseGeometry g,
                        Geometry(window_, Where(), input.shape(), filter_shape));
    MG_RETURN_IF_ERROR(CheckOutBackprop(g, dy, Where()));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, filter_shape, &out));
    T* df = out->data<T>();
    const int64_t size = out->NumElements();
    std::fill(df, df + size, T(0));
    const int64_t rows = g.batch * g.out_rows;
    if (size == 0 || rows == 0 || g.out_cols == 0) return absl::OkStatus();
    absl::Status s;
    const OneDnnConv c = ToOneDnn(g);
    if (TryOneDnn<T>(OneDnnUsable(g), [&] {
          return OneDnnConvBackwardWeights(c, AsFloat(input.data<T>()), AsFloat(dy.data<T>()),
                                           AsFloat(df), ctx);
        }, &s)) {
      return s;
    }
    // As many blocks as threads (each a partial gradient of `size`).
    const int64_t blocks = std::min<int64_t>(rows, std::max(1, ctx->intra_op_threads()));
    MG_ASSIGN_OR_RETURN(
        Tensor partials,
        ctx->allocate_temp(DataTypeToEnum<T>::value, TensorShape({blocks - 1, size})));
    const T* x = input.data<T>();
    const T* gy = dy.data<T>();
    const int64_t od = g.out_depth();
    const double block_cost =
        static_cast<double>(rows / blocks) * g.out_cols * g.k_rows * g.k_cols * od;
    ctx->ParallelFor(blocks, block_cost * sizeof(T), size * sizeof(T), block_cost,
                     [&](int64_t begin, int64_t end) {
                       for (int64_t b = begin; b < end; ++b) {
                         T* acc = b == 0 ? df : partials.data<T>() + (b - 1) * size;
                         if (b > 0) std::fill(acc, acc + size, T(0));
                         if (g.mult == 1 && g.depth % kChannelBlock<T> == 0) {
                           for (int64_t row = rows * b / blocks; row < rows * (b + 1) / blocks;
                                ++row) {
                             BackpropFilterRow(g, x, gy, acc, row);
                           }
                           continue;
                         }
                         for (int64_t row = rows * b / blocks; row < rows * (b + 1) / blocks;
                              ++row) {
                           const int64_t n = row / g.out_rows, r = row % g.out_rows;
                           const T* gyr = gy + row * g.out_cols * od;
                           for (int64_t kr = 0; kr < g.k_rows; ++kr) {
                             const int64_t ir = g.InRow(r, kr);
                             if (ir < 0 || ir >= g.in_rows) continue;
                             const T* xr = x + (n * g.in_rows + ir) * g.in_cols * g.depth;
                             for (int64_t c = 0; c < g.out_cols; ++c) {
                               for (int64_t kc = 0; kc < g.k_cols; ++kc) {
                                 const int64_t ic = g.InCol(c, kc);
                                 if (ic < 0 || ic >= g.in_cols) continue;
                                 // df[tap] += x[c'] * dy[c' * mult + m]: the
                                 // forward's product with dy as the "filter".
                                 MultiplyAdd(xr + ic * g.depth, gyr + c * od,
                                             acc + (kr * g.k_cols + kc) * od, g.depth, g.mult);
                               }
                             }
                           }
                         }
                       }
                     });
    for (int64_t b = 1; b < blocks; ++b) {
      const T* p = partials.data<T>() + (b - 1) * size;
#pragma omp simd
      for (int64_t i = 0; i < size; ++i) df[i] += p[i];
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterDepthwiseConvKernels(KernelRegistry* r) {
  r->Register("DepthwiseConv2dNative", TypedFactory<DepthwiseConv2dNativeOp, float, double>());
  r->Register("DepthwiseConv2dNativeBackpropInput",
              TypedFactory<DepthwiseConv2dNativeBackpropInputOp, float, double>());
  r->Register("DepthwiseConv2dNativeBackpropFilter",
              TypedFactory<DepthwiseConv2dNativeBackpropFilterOp, float, double>());
}

}  // namespace kernels_internal
}  // namespace minigraph
