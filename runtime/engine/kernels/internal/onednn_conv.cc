#include "runtime/engine/kernels/internal/onednn_conv.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "oneapi/dnnl/dnnl.hpp"

// libgomp's, which oneDNN's parallel regions run on (Debian builds oneDNN
// with its OpenMP runtime): how many threads the calling thread's next
// regions take.
extern "C" void omp_set_num_threads(int threads);

namespace minigraph {
namespace kernels_internal {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;

// ThreadSanitizer cannot see libgomp's synchronization: under it, oneDNN
// runs on the calling thread alone.
#if defined(__SANITIZE_THREAD__)
constexpr bool kOneThread = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool kOneThread = true;
#else
constexpr bool kOneThread = false;
#endif
#else
constexpr bool kOneThread = false;
#endif

const dnnl::engine& Engine() {
  static const dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

// The descriptors and parameters of one convolution, in oneDNN's terms.
struct Descs {
  memory::desc src, weights, dst;     // the caller's layouts
  memory::desc weights_any;           // oneDNN's choice of filter layout
  memory::dims strides, dilates, pad_l, pad_r;
};

Descs Describe(const OneDnnConv& c) {
  const int first = c.spatial == 3 ? 0 : 1;
  memory::dims spatial_in, spatial_k, spatial_out;
  Descs d;
  for (int i = first; i < 3; ++i) {
    spatial_in.push_back(c.in[i]);
    spatial_k.push_back(c.kernel[i]);
    spatial_out.push_back(c.out[i]);
    d.strides.push_back(c.stride[i]);
    d.dilates.push_back(c.dilation[i] - 1);
    d.pad_l.push_back(c.pad_before[i]);
    // The padding after: what the last window needs past the input (none
    // when the input has rows to spare, which the windows skip).
    const int64_t reach = (c.out[i] - 1) * c.stride[i] + (c.kernel[i] - 1) * c.dilation[i] + 1;
    d.pad_r.push_back(std::max<int64_t>(0, reach - c.in[i] - c.pad_before[i]));
  }
  memory::dims src_dims = {c.batch, c.depth}, dst_dims = {c.batch, c.out_depth};
  src_dims.insert(src_dims.end(), spatial_in.begin(), spatial_in.end());
  dst_dims.insert(dst_dims.end(), spatial_out.begin(), spatial_out.end());
  memory::dims w_dims;
  Tag w_tag;
  if (c.groups == 1) {
    w_dims = {c.out_depth, c.depth};
    w_tag = c.spatial == 3 ? Tag::dhwio : Tag::hwio;
  } else {
    w_dims = {c.groups, c.out_depth / c.groups, c.depth / c.groups};
    w_tag = c.spatial == 3 ? Tag::dhwigo : Tag::hwigo;
  }
  w_dims.insert(w_dims.end(), spatial_k.begin(), spatial_k.end());
  const Tag act = c.spatial == 3 ? Tag::ndhwc : Tag::nhwc;
  const auto f32 = memory::data_type::f32;
  d.src = memory::desc(src_dims, f32, act);
  d.dst = memory::desc(dst_dims, f32, act);
  d.weights = memory::desc(w_dims, f32, w_tag);
  d.weights_any = memory::desc(w_dims, f32, Tag::any);
  return d;
}

dnnl::convolution_forward::primitive_desc ForwardPd(const Descs& d, dnnl::prop_kind kind) {
  return dnnl::convolution_forward::primitive_desc(
      dnnl::convolution_forward::desc(kind, dnnl::algorithm::convolution_direct, d.src,
                                      d.weights_any, d.dst, d.strides, d.dilates, d.pad_l,
                                      d.pad_r),
      Engine());
}

// The caller's filter `f` in the layout `chosen` a primitive wants: the
// caller's memory itself, or a reordered copy.
memory Weights(const Descs& d, const memory::desc& chosen, const float* f,
               dnnl::stream& stream) {
  memory user(d.weights, Engine(), const_cast<float*>(f));
  if (chosen == d.weights) return user;
  memory w(chosen, Engine());
  dnnl::reorder(user, w).execute(stream, user, w);
  return w;
}

// Runs `body` (which makes and executes the primitives) with oneDNN's
// failures as Statuses: Unimplemented when it has no kernel.
template <typename Body>
absl::Status Run(const char* what, int threads, Body body) {
  omp_set_num_threads(kOneThread ? 1 : std::max(threads, 1));
  try {
    dnnl::stream stream(Engine());
    body(stream);
    stream.wait();
  } catch (const dnnl::error& e) {
    const std::string message = absl::StrCat("oneDNN ", what, ": ", e.what());
    if (e.status == dnnl_unimplemented) return absl::UnimplementedError(message);
    return absl::InternalError(message);
  }
  return absl::OkStatus();
}

absl::Status Forward(const OneDnnConv& c, const float* x, const float* f, float* y,
                     int threads) {
  return Run("convolution", threads, [&](dnnl::stream& stream) {
    const Descs d = Describe(c);
    const auto pd = ForwardPd(d, dnnl::prop_kind::forward_inference);
    memory src(d.src, Engine(), const_cast<float*>(x));
    memory dst(d.dst, Engine(), y);
    memory w = Weights(d, pd.weights_desc(), f, stream);
    dnnl::convolution_forward(pd).execute(
        stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, dst}});
  });
}

absl::Status BackwardData(const OneDnnConv& c, const float* f, const float* dy, float* dx,
                          int threads) {
  return Run("convolution's input gradient", threads, [&](dnnl::stream& stream) {
    const Descs d = Describe(c);
    const auto hint = ForwardPd(d, dnnl::prop_kind::forward_training);
    const dnnl::convolution_backward_data::primitive_desc pd(
        dnnl::convolution_backward_data::desc(dnnl::algorithm::convolution_direct, d.src,
                                              d.weights_any, d.dst, d.strides, d.dilates,
                                              d.pad_l, d.pad_r),
        Engine(), hint);
    memory diff_src(d.src, Engine(), dx);
    memory diff_dst(d.dst, Engine(), const_cast<float*>(dy));
    memory w = Weights(d, pd.weights_desc(), f, stream);
    dnnl::convolution_backward_data(pd).execute(
        stream, {{DNNL_ARG_DIFF_DST, diff_dst}, {DNNL_ARG_WEIGHTS, w},
                 {DNNL_ARG_DIFF_SRC, diff_src}});
  });
}

absl::Status BackwardWeights(const OneDnnConv& c, const float* x, const float* dy, float* df,
                             int threads) {
  return Run("convolution's filter gradient", threads, [&](dnnl::stream& stream) {
    const Descs d = Describe(c);
    const auto hint = ForwardPd(d, dnnl::prop_kind::forward_training);
    const dnnl::convolution_backward_weights::primitive_desc pd(
        dnnl::convolution_backward_weights::desc(dnnl::algorithm::convolution_direct, d.src,
                                                 d.weights_any, d.dst, d.strides, d.dilates,
                                                 d.pad_l, d.pad_r),
        Engine(), hint);
    memory src(d.src, Engine(), const_cast<float*>(x));
    memory diff_dst(d.dst, Engine(), const_cast<float*>(dy));
    memory user_dw(d.weights, Engine(), df);
    memory dw = user_dw;
    if (pd.diff_weights_desc() != d.weights) dw = memory(pd.diff_weights_desc(), Engine());
    dnnl::convolution_backward_weights(pd).execute(
        stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, diff_dst},
                 {DNNL_ARG_DIFF_WEIGHTS, dw}});
    if (dw != user_dw) dnnl::reorder(dw, user_dw).execute(stream, dw, user_dw);
  });
}

// Elements of one batch item of x and of y, and of the filter.
int64_t XItem(const OneDnnConv& c) { return c.in[0] * c.in[1] * c.in[2] * c.depth; }
int64_t YItem(const OneDnnConv& c) { return c.out[0] * c.out[1] * c.out[2] * c.out_depth; }
int64_t FilterSize(const OneDnnConv& c) {
  return c.kernel[0] * c.kernel[1] * c.kernel[2] * (c.depth / c.groups) * c.out_depth;
}

// Runs one(share, s, first) for the batch cut into one share per intra-op
// thread (`share` the convolution of its items, `s` its number, `first`
// its first item), each a oneDNN call on that thread alone: oneDNN's own
// OpenMP threads spin on the cores after each region and slow the
// intra-op pool's next kernels (a CNN's batch norm and ReLUs ran 30% slower
// on two threads than on one). A batch smaller than the threads is one
// call on as many OpenMP threads.
template <typename F>
absl::Status ByBatch(const OpKernelContext* ctx, const OneDnnConv& c, F one) {
  const int threads = ctx->intra_op_threads();
  if (c.batch < threads || threads <= 1) return one(c, 0, 0, threads);
  std::vector<absl::Status> status(threads);
  ctx->ParallelFor(threads, 0, 0, 1e9, [&](int64_t begin, int64_t end) {
    for (int64_t s = begin; s < end; ++s) {
      OneDnnConv share = c;
      const int64_t first = c.batch * s / threads;
      share.batch = c.batch * (s + 1) / threads - first;
      status[s] = one(share, static_cast<int>(s), first, 1);
    }
  });
  for (const absl::Status& s : status) {
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status OneDnnConvForward(const OneDnnConv& c, const float* x, const float* f, float* y,
                               const OpKernelContext* ctx) {
  return ByBatch(ctx, c, [&](const OneDnnConv& share, int, int64_t first, int threads) {
    return Forward(share, x + first * XItem(c), f, y + first * YItem(c), threads);
  });
}

absl::Status OneDnnConvBackwardData(const OneDnnConv& c, const float* f, const float* dy,
                                    float* dx, const OpKernelContext* ctx) {
  return ByBatch(ctx, c, [&](const OneDnnConv& share, int, int64_t first, int threads) {
    return BackwardData(share, f, dy + first * YItem(c), dx + first * XItem(c), threads);
  });
}

absl::Status OneDnnConvBackwardWeights(const OneDnnConv& c, const float* x, const float* dy,
                                       float* df, const OpKernelContext* ctx) {
  // The first share's gradient goes to df, each other's to a buffer of its
  // own; they are added in order after.
  const int64_t size = FilterSize(c);
  std::vector<std::vector<float>> partial(std::max(ctx->intra_op_threads(), 1));
  MG_RETURN_IF_ERROR(
      ByBatch(ctx, c, [&](const OneDnnConv& share, int s, int64_t first, int threads) {
        float* out = df;
        if (s > 0) {
          partial[s].resize(size);
          out = partial[s].data();
        }
        return BackwardWeights(share, x + first * XItem(c), dy + first * YItem(c), out, threads);
      }));
  for (const std::vector<float>& p : partial) {
    for (int64_t i = 0; i < static_cast<int64_t>(p.size()); ++i) df[i] += p[i];
  }
  return absl::OkStatus();
}

absl::Status OneDnnGemm(const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
                        int64_t ldc, int64_t m, int64_t n, int64_t k, bool ta, bool tb,
                        bool accumulate, int threads) {
  omp_set_num_threads(kOneThread ? 1 : std::max(threads, 1));
  const dnnl_status_t s = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, lda, b,
                                     ldb, accumulate ? 1.0f : 0.0f, c, ldc);
  if (s == dnnl_success) return absl::OkStatus();
  const std::string message = absl::StrCat("oneDNN GEMM of ", m, "x", k, " by ", k, "x", n,
                                           " failed: status ", static_cast<int>(s));
  if (s == dnnl_unimplemented) return absl::UnimplementedError(message);
  return absl::InternalError(message);
}

absl::Status OneDnnBatchGemm(const float* a, const float* b, float* c, int64_t batch, int64_t m,
                             int64_t n, int64_t k, bool ta, bool tb, bool b_shared, int threads) {
  return Run("batched GEMM", threads, [&](dnnl::stream& stream) {
    const auto f32 = memory::data_type::f32;
    // Transposed operands as strides: oneDNN reads them in place.
    const memory::desc src({batch, m, k}, f32,
                           ta ? memory::dims{m * k, 1, m} : memory::dims{m * k, k, 1});
    const memory::desc weights({b_shared ? 1 : batch, k, n}, f32,
                               tb ? memory::dims{k * n, 1, k} : memory::dims{k * n, n, 1});
    const memory::desc dst({batch, m, n}, f32, memory::dims{m * n, n, 1});
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, weights, dst), Engine());
    memory x(src, Engine(), const_cast<float*>(a));
    memory w(weights, Engine(), const_cast<float*>(b));
    memory y(dst, Engine(), c);
    dnnl::matmul(pd).execute(stream, {{DNNL_ARG_SRC, x}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, y}});
  });
}

}  // namespace kernels_internal
}  // namespace minigraph
