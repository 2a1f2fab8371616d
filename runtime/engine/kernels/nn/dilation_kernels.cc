// Grayscale morphological dilation (tf.nn.dilation2d): Dilation2D and its
// gradients' ops Dilation2DBackpropInput and Dilation2DBackpropFilter, as
// TensorFlow's dilation_ops.cc computes them: each output is the largest
// input + filter over the window's taps inside the input (the lowest value
// when none is), and a gradient goes to the first tap reaching it.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/graph/conv_util.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// The window of a dilation: strides and rates over rows and columns.
struct DilationWindow {
  Window2D window;  // strides and padding; rates widen the filter instead
  int64_t rate[2] = {1, 1};
};

absl::StatusOr<DilationWindow> ReadDilationWindow(OpKernelConstruction* c) {
  std::vector<int64_t> strides, rates;
  std::string padding;
  MG_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  MG_RETURN_IF_ERROR(c->GetAttr("rates", &rates));
  MG_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  const std::string& op = c->def().op();
  if (strides.size() != 4 || rates.size() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": strides and rates must have 4 elements each"));
  }
  if (strides[0] != 1 || strides[3] != 1 || rates[0] != 1 || rates[3] != 1) {
    return absl::UnimplementedError(
        absl::StrCat(op, ": strides and rates are only supported across rows and columns"));
  }
  for (int64_t v : {strides[1], strides[2], rates[1], rates[2]}) {
    if (v < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(op, ": strides and rates must be positive, got ", v));
    }
  }
  if (padding != "SAME" && padding != "VALID") {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": padding must be SAME or VALID, not ", padding));
  }
  DilationWindow w;
  w.window.node = c->def().name();
  w.window.stride = {strides[1], strides[2]};
  w.window.padding = padding == "SAME" ? Padding::kSame : Padding::kValid;
  w.rate[0] = rates[1];
  w.rate[1] = rates[2];
  return w;
}

// A dilation's sizes, checked: input [batch, rows, cols, depth], filter
// [filter_rows, filter_cols, depth] and the output's rows and columns.
struct DilationShape {
  int64_t batch, rows, cols, depth, f_rows, f_cols;
  WindowedSize out_rows, out_cols;
};

absl::StatusOr<DilationShape> ReadDilationShape(const OpKernel& k, const DilationWindow& w,
                                                const Tensor& input, const Tensor& filter) {
  if (input.dims() != 4 || filter.dims() != 3 || filter.dim_size(2) != input.dim_size(3)) {
    return absl::InvalidArgumentError(absl::StrCat(
        k.type_string(), ": input must be [batch, rows, cols, depth] and filter [rows, cols, "
        "depth] of the same depth, got ", input.shape().DebugString(), " and ",
        filter.shape().DebugString()));
  }
  DilationShape s{input.dim_size(0), input.dim_size(1), input.dim_size(2), input.dim_size(3),
                  filter.dim_size(0), filter.dim_size(1), {}, {}};
  // The filter widened by its rate: rate - 1 holes between taps.
  int64_t eff_rows, eff_cols;
  if (__builtin_mul_overflow(s.f_rows - 1, w.rate[0] - 1, &eff_rows) ||
      __builtin_add_overflow(eff_rows, s.f_rows, &eff_rows) ||
      __builtin_mul_overflow(s.f_cols - 1, w.rate[1] - 1, &eff_cols) ||
      __builtin_add_overflow(eff_cols, s.f_cols, &eff_cols)) {
    return absl::InvalidArgumentError(absl::StrCat(
        k.type_string(), ": the filter ", filter.shape().DebugString(),
        " widened by the rates does not fit in 64 bits"));
  }
  MG_ASSIGN_OR_RETURN(s.out_rows, w.window.Size(1, s.rows, eff_rows));
  MG_ASSIGN_OR_RETURN(s.out_cols, w.window.Size(2, s.cols, eff_cols));
  return s;
}

// Calls fn(out_index, largest, b, h0, w0, d, in_index, filter_index) for
// each output element: its largest input + filter, its batch entry, its
// window's first row and column clamped to 0, its depth, and the flat
// indices of the input and filter elements that reached the largest (-1
// for both when no tap is inside the input or none exceeds the lowest
// value).
template <typename T, typename Fn>
void ForEachDilation(const DilationWindow& w, const DilationShape& s, const T* in,
                     const T* filter, const Fn& fn) {
  int64_t o = 0;
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t ho = 0; ho < s.out_rows.out; ++ho) {
      const int64_t h0 = ho * w.window.stride[0] - s.out_rows.pad_before;
      for (int64_t wo = 0; wo < s.out_cols.out; ++wo) {
        const int64_t w0 = wo * w.window.stride[1] - s.out_cols.pad_before;
        for (int64_t d = 0; d < s.depth; ++d, ++o) {
          T best = std::numeric_limits<T>::lowest();
          int64_t best_in = -1, best_filter = -1;
          for (int64_t i = 0; i < s.f_rows; ++i) {
            const int64_t h = h0 + i * w.rate[0];
            if (h < 0 || h >= s.rows) continue;
            for (int64_t j = 0; j < s.f_cols; ++j) {
              const int64_t c = w0 + j * w.rate[1];
              if (c < 0 || c >= s.cols) continue;
              const int64_t at_in = ((b * s.rows + h) * s.cols + c) * s.depth + d;
              const int64_t at_filter = (i * s.f_cols + j) * s.depth + d;
              const T v = in[at_in] + filter[at_filter];
              if (v > best) {
                best = v;
                best_in = at_in;
                best_filter = at_filter;
              }
            }
          }
          fn(o, best, b, std::max<int64_t>(h0, 0), std::max<int64_t>(w0, 0), d, best_in,
             best_filter);
        }
      }
    }
  }
}

// Dilation2D, or (kGrad) one of its gradients' ops: out_backprop routed to
// the input (kFilter false) or filter (kFilter true) element that won.
template <bool kGrad, bool kFilter>
struct DilationFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Init(OpKernelConstruction* c) {
      MG_ASSIGN_OR_RETURN(window_, ReadDilationWindow(c));
      return absl::OkStatus();
    }
    absl::Status Compute(OpKernelContext* ctx) const override {
      const Tensor& input = ctx->input(0);
      const Tensor& filter = ctx->input(1);
      MG_ASSIGN_OR_RETURN(DilationShape s, ReadDilationShape(*this, window_, input, filter));
      const TensorShape out_shape({s.batch, s.out_rows.out, s.out_cols.out, s.depth});
      Tensor* out;
      if constexpr (!kGrad) {
        MG_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
        if (out->NumElements() == 0) return absl::OkStatus();
        T* o = out->data<T>();
        ForEachDilation<T>(window_, s, input.data<T>(), filter.data<T>(),
                           [&](int64_t i, T best, auto...) { o[i] = best; });
        return absl::OkStatus();
      } else {
        const Tensor& dy = ctx->input(2);
        if (dy.shape() != out_shape) {
          return absl::InvalidArgumentError(absl::StrCat(
              type_string(), ": out_backprop has shape ", dy.shape().DebugString(),
              " where the dilation's output has ", out_shape.DebugString()));
        }
        const Tensor& like = kFilter ? filter : input;
        MG_RETURN_IF_ERROR(ctx->allocate_output(0, like.shape(), &out));
        T* g = out->data<T>();
        std::fill(g, g + out->NumElements(), T(0));
        if (out->NumElements() == 0) return absl::OkStatus();
        const T* dy_v = dy.data<T>();
        ForEachDilation<T>(
            window_, s, input.data<T>(), filter.data<T>(),
            [&](int64_t i, T, int64_t b, int64_t h0, int64_t w0, int64_t d, int64_t best_in,
                int64_t best_filter) {
              // With no winner TensorFlow's default is the window's first
              // input element (clamped into the input) or filter tap.
              if constexpr (kFilter) {
                g[best_filter >= 0 ? best_filter : d] += dy_v[i];
              } else if (best_in >= 0) {
                g[best_in] += dy_v[i];
              } else if (h0 < s.rows && w0 < s.cols) {
                g[((b * s.rows + h0) * s.cols + w0) * s.depth + d] += dy_v[i];
              }
            });
        return absl::OkStatus();
      }
    }

   private:
    DilationWindow window_;
  };
};

}  // namespace

void RegisterDilationKernels(KernelRegistry* r) {
  r->Register("Dilation2D",
              TypedFactory<DilationFor<false, false>::Op, float, double, int32_t, int64_t>());
  r->Register("Dilation2DBackpropInput",
              TypedFactory<DilationFor<true, false>::Op, float, double, int32_t, int64_t>());
  r->Register("Dilation2DBackpropFilter",
              TypedFactory<DilationFor<true, true>::Op, float, double, int32_t, int64_t>());
}

}  // namespace kernels_internal
}  // namespace minigraph
