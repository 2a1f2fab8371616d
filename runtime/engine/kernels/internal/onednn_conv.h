// Float convolutions (2-D and 3-D, grouped and depthwise) and their two
// gradients, and float matrix products (GEMM), on oneDNN, the library TensorFlow's x86 build runs them on, with
// minigraph's layouts: NHWC / NDHWC activations and TensorFlow's filters
// (HWIO / DHWIO, a group's output channels contiguous, a depthwise filter
// [kh, kw, channels, multiplier] as `channels` groups).
//
// oneDNN picks its kernel for the machine (AVX-512, AVX2, ...) and keeps
// its compiled primitives in its own cache, so a step after the first
// costs no compilation. Each call returns Unimplemented when oneDNN has no
// kernel for the geometry; the caller then computes it itself.
#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_ONEDNN_CONV_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_ONEDNN_CONV_H_

#include <cstdint>
#include <type_traits>

#include "absl/status/status.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {

// One convolution: input [batch, (planes,) rows, cols, depth], filter
// [(k_planes,) k_rows, k_cols, depth / groups, out_depth], output [batch,
// (out_planes,) out_rows, out_cols, out_depth]. Index 0 of each triple is
// the planes (1 and unused for spatial 2), then rows, then columns.
struct OneDnnConv {
  int spatial = 2;  // 2 or 3
  int64_t batch = 0, depth = 0, out_depth = 0, groups = 1;
  int64_t in[3] = {1, 0, 0};
  int64_t kernel[3] = {1, 0, 0};
  int64_t out[3] = {1, 0, 0};
  int64_t stride[3] = {1, 1, 1};
  int64_t dilation[3] = {1, 1, 1};  // TensorFlow's: 1 is none
  int64_t pad_before[3] = {0, 0, 0};
};

// y = conv(x, f), on the step's intra-op threads (the batch shared out).
absl::Status OneDnnConvForward(const OneDnnConv& c, const float* x, const float* f, float* y,
                               const OpKernelContext* ctx);
// dx from f and dy.
absl::Status OneDnnConvBackwardData(const OneDnnConv& c, const float* f, const float* dy,
                                    float* dx, const OpKernelContext* ctx);
// df from x and dy.
absl::Status OneDnnConvBackwardWeights(const OneDnnConv& c, const float* x, const float* dy,
                                       float* df, const OpKernelContext* ctx);

// C = op(A) * op(B), or C += op(A) * op(B) when `accumulate`, row-major,
// as kernels_internal::Gemm takes them (lda, ldb, ldc: elements between
// rows), on `threads` threads: oneDNN's JIT GEMM for this machine's ISA,
// which TensorFlow's MatMul runs on too.
absl::Status OneDnnGemm(const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
                        int64_t ldc, int64_t m, int64_t n, int64_t k, bool ta, bool tb,
                        bool accumulate, int threads);

// C_i = op(A_i) * op(B_i) for `batch` row-major products stored one after
// another (A's m x k as op(A) sees them, B's k x n, C's m x n; with
// `b_shared`, one B for all), as one oneDNN matmul on `threads` threads:
// attention's many small products, where a GEMM call per matrix costs
// more than its arithmetic.
absl::Status OneDnnBatchGemm(const float* a, const float* b, float* c, int64_t batch, int64_t m,
                             int64_t n, int64_t k, bool ta, bool tb, bool b_shared, int threads);

// For a kernel templated on T: runs `call` (one of the calls above) when T
// is float and the convolution is `usable` (nothing empty); true with its
// status then, false (the kernel computes it itself) otherwise or when
// oneDNN has no kernel for it.
template <typename T, typename Call>
bool TryOneDnn(bool usable, Call call, absl::Status* status) {
  if constexpr (std::is_same_v<T, float>) {
    if (!usable) return false;
    *status = call();
    return status->code() != absl::StatusCode::kUnimplemented;
  }
  return false;
}

// A kernel's T* as the float* the calls above take, so that a kernel
// templated on T compiles for every T; called only where T is float.
template <typename T>
const float* AsFloat(const T* p) {
  return reinterpret_cast<const float*>(p);
}
template <typename T>
float* AsFloat(T* p) {
  return reinterpret_cast<float*>(p);
}

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_ONEDNN_CONV_H_
