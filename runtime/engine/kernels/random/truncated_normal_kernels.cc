// ParameterizedTruncatedNormal and StatelessParameterizedTruncatedNormal
// (tf.random.stateless_parameterized_truncated_normal): normal draws of a
// mean and deviation kept to [minval, maxval], by TensorFlow's three
// rejection samplers (parameterized_truncated_normal_op.cc), chosen per
// parameter set as it chooses them:
//   normal proposals      when a bound lies 1.3 deviations or more from
//                         the mean with the other across it;
//   uniform proposals     on [lo, hi] when that is narrower than the cutoff;
//   exponential proposals (Robert's) otherwise, from the nearer bound.
// Bit for bit with TensorFlow when it samples in one shard (small outputs;
// it restarts its stream per shard, which depends on its thread count).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/philox_random.h"
#include "runtime/engine/kernels/internal/random_streams.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

constexpr int kMaxIterations = 1000;

// Draws `count` values of one parameter set from `gen` (which moves on),
// handing each to emit(value).
template <typename T, typename Emit>
absl::Status SampleTruncated(T mean, T stddev, T minval, T maxval, int64_t count,
                             PhiloxRandom* gen, Emit emit) {
  if (!(stddev > T(0) && minval < maxval && (std::isfinite(minval) || std::isfinite(maxval)))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Invalid parameters: stddev ", stddev, " must be positive and [", minval, ", ", maxval,
        "] a non-empty range with a finite end"));
  }
  if ((std::isinf(minval) && minval < T(0)) || maxval < mean) {
    std::swap(minval, maxval);  // the one-sided bound below, or both above
    stddev = -stddev;
  }
  const T norm_min = (minval - mean) / stddev;
  const T norm_max = (maxval - mean) / stddev;
  const T sqrt_factor = std::sqrt(norm_min * norm_min + T(4));
  const T cutoff = T(2) * std::exp(T(0.5) + (norm_min * (norm_min - sqrt_factor)) / T(4)) /
                   (norm_min + sqrt_factor);
  const T diff = norm_max - norm_min;
  const T kInside = T(1.3);
  PhiloxUniform<T> uniform;
  PhiloxNormal<T> normal;
  int iterations = 0;
  int64_t done = 0;
  if ((norm_min < -kInside && norm_max >= T(0)) || (norm_max > kInside && norm_min <= T(0))) {
    while (done < count) {
      for (const T n : normal(gen)) {
        if (n >= norm_min && n <= norm_max) {
          emit(n * stddev + mean);
          if (++done >= count) break;
          iterations = 0;
        } else if (++iterations > kMaxIterations) {
          return absl::InternalError(
              "TruncatedNormal randn rejection sampler failed to accept a sample.");
        }
      }
    }
  } else if (diff < cutoff) {
    const T plus = norm_min < T(0) ? T(0) : norm_min * norm_min;
    while (done < count) {
      const auto r = uniform(gen);
      std::array<T, PhiloxUniform<T>::kGroup> z, g;
      for (size_t i = 0; i < r.size(); ++i) {
        z[i] = r[i] * diff + norm_min;
        g[i] = (plus - z[i] * z[i]) / T(2.0);
      }
      const auto u = uniform(gen);
      for (size_t i = 0; i < r.size(); ++i) {
        const bool accept = u[i] <= std::exp(g[i]);
        if (accept || iterations + 1 >= kMaxIterations) {
          if (!accept) {
            return absl::InternalError(
                "TruncatedNormal uniform rejection sampler failed to accept a sample.");
          }
          emit(z[i] * stddev + mean);
          if (++done >= count) break;
          iterations = 0;
        } else {
          ++iterations;
        }
      }
    }
  } else {
    const T alpha = (norm_min + std::sqrt(norm_min * norm_min + T(4))) / T(2);
    while (done < count) {
      const auto r = uniform(gen);
      size_t i = 0;
      while (i < r.size()) {  // two uniforms a proposal
        const T z = -std::log(r[i++]) / alpha + norm_min;
        const T x = norm_min < alpha ? alpha - z : norm_min - alpha;
        const T g = std::exp(-x * x / T(2.0));
        const T u = r[i++];
        const bool accept = u <= g && z < norm_max;
        if (accept || iterations + 1 >= kMaxIterations) {
          if (!accept) {
            return absl::InternalError(
                "TruncatedNormal exponential distribution rejection sampler failed to accept "
                "a sample.");
          }
          emit(z * stddev + mean);
          if (++done >= count) break;
          iterations = 0;
        } else {
          ++iterations;
        }
      }
    }
  }
  return absl::OkStatus();
}

// The flat index into `dims` (right-aligned, size-1 dimensions broadcast)
// of element `i` of an array of `out` dims.
int64_t BroadcastIndex(const std::vector<int64_t>& out, absl::Span<const int64_t> dims,
                       int64_t i) {
  int64_t index = 0, stride = 1;
  for (int d = static_cast<int>(out.size()) - 1, k = static_cast<int>(dims.size()) - 1; k >= 0;
       --d, --k) {
    const int64_t coord = i % out[d];
    i /= out[d];
    if (dims[k] != 1) index += coord * stride;
    stride *= dims[k];
  }
  return index;
}

template <typename T>
class TruncatedNormalOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    stateless_ = c->def().op() == "StatelessParameterizedTruncatedNormal";
    return stateless_ ? absl::OkStatus() : generator_.Init(c);
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const int p = stateless_ ? 2 : 1;  // the first parameter input
    const Tensor* params[4] = {&ctx->input(p), &ctx->input(p + 1), &ctx->input(p + 2),
                               &ctx->input(p + 3)};
    const Tensor& shape_t = ctx->input(0);
    if (shape_t.dims() != 1) {
      return Invalid(absl::StrCat("Input shape should be a vector, got shape: ",
                                  shape_t.shape().DebugString()));
    }
    MG_ASSIGN_OR_RETURN(TensorShape shape, ShapeFromTensor(shape_t, "shape"));
    return stateless_ ? Stateless(ctx, shape, params) : Stateful(ctx, shape, params);
  }

 private:
  std::string Where() const { return absl::StrCat(type_string(), " '", name(), "'"); }
  absl::Status Invalid(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(Where(), ": ", what));
  }
  absl::Status Named(const absl::Status& s) const {
    return absl::Status(s.code(), absl::StrCat(Where(), ": ", s.message()));
  }

  // Parameters of length 1 or the first dimension's, one set per row; with
  // one set for all, rows of 100 samples. Each row's draws follow the
  // previous row's on one stream.
  absl::Status Stateful(OpKernelContext* ctx, const TensorShape& shape,
                        const Tensor* const* params) const {
    if (shape.dims() == 0) return Invalid("Shape tensor must not be empty");
    int64_t batches = shape.dim_size(0);
    int64_t per_batch = shape.num_elements() / std::max<int64_t>(batches, 1);
    if (batches == 0) per_batch = 0;
    const int64_t total = shape.num_elements();
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    static const char* kNames[4] = {"means", "stddevs", "minvals", "maxvals"};
    bool one_set = true;
    for (int i = 0; i < 4; ++i) {
      if (params[i]->dims() > 1) {
        return Invalid(absl::StrCat("Input ", kNames[i],
                                    " should be a scalar or vector, got shape: ",
                                    params[i]->shape().DebugString()));
      }
      one_set &= params[i]->dims() == 0 || (i < 2 && params[i]->dim_size(0) == 1);
    }
    if (one_set) {
      per_batch = 100;
      batches = (total + per_batch - 1) / per_batch;
    } else {
      for (int i = 0; i < 4; ++i) {
        const int64_t n = params[i]->dims() == 0 ? 1 : params[i]->dim_size(0);
        if (n != 1 && n != batches) {
          return Invalid(absl::StrCat("Input ", kNames[i],
                                      " should have length 1 or shape[0], got shape: ",
                                      params[i]->shape().DebugString()));
        }
      }
    }
    PhiloxRandom gen = generator_.ReserveSamples128(static_cast<uint64_t>(batches) * 2 *
                                                    kMaxIterations * (per_batch + 3) / 4);
    T* o = out->data<T>();
    auto param = [&](int i, int64_t b) {
      return params[i]->data<T>()[params[i]->NumElements() == 1 ? 0 : b];
    };
    for (int64_t b = 0; b < batches; ++b) {
      const int64_t first = b * per_batch, last = std::min(first + per_batch, total);
      if (first >= last) break;
      int64_t k = first;
      absl::Status s = SampleTruncated<T>(param(0, b), param(1, b), param(2, b), param(3, b),
                                          last - first, &gen, [&](T v) { o[k++] = v; });
      if (!s.ok()) return Named(s);
    }
    return absl::OkStatus();
  }

  // Parameters broadcast together; the shape must end with theirs. Output
  // [samples..., batch...], each batch's samples drawn in turn from the
  // seed's stream.
  absl::Status Stateless(OpKernelContext* ctx, const TensorShape& shape,
                         const Tensor* const* params) const {
    MG_ASSIGN_OR_RETURN(PhiloxRandom gen, SeedGenerator(ctx->input(1), Where()));
    std::vector<int64_t> bshape;
    for (int i = 0; i < 4; ++i) {
      const auto dims = params[i]->shape().dim_sizes();
      if (dims.size() > bshape.size()) {
        bshape.insert(bshape.begin(), dims.size() - bshape.size(), 1);
      }
      for (size_t k = 0; k < dims.size(); ++k) {
        int64_t& d = bshape[bshape.size() - dims.size() + k];
        if (d == 1) {
          d = dims[k];
        } else if (dims[k] != 1 && dims[k] != d) {
          return Invalid(absl::StrCat(
              "means, stddevs, minvals, maxvals must have compatible batch dimensions: ",
              params[0]->shape().DebugString(), " vs. ", params[1]->shape().DebugString(),
              " vs. ", params[2]->shape().DebugString(), " vs. ",
              params[3]->shape().DebugString()));
        }
      }
    }
    MG_RETURN_IF_ERROR(CheckEndsWith(shape, TensorShape(bshape), "the parameters'"));
    int64_t batches = 1;
    for (int64_t d : bshape) batches *= d;
    const int64_t per_batch = batches == 0 ? 0 : shape.num_elements() / batches;
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    T* o = out->data<T>();
    for (int64_t b = 0; b < batches && per_batch > 0; ++b) {
      T v[4];
      for (int i = 0; i < 4; ++i) {
        v[i] = params[i]->data<T>()[BroadcastIndex(bshape, params[i]->shape().dim_sizes(), b)];
      }
      int64_t k = 0;
      absl::Status s = SampleTruncated<T>(v[0], v[1], v[2], v[3], per_batch, &gen,
                                          [&](T x) { o[k++ * batches + b] = x; });
      if (!s.ok()) return Named(s);
    }
    return absl::OkStatus();
  }

  bool stateless_ = false;
  NodeGenerator generator_;
};

}  // namespace

void RegisterTruncatedNormalKernels(KernelRegistry* r) {
  r->Register("ParameterizedTruncatedNormal",
              TypedFactory<TruncatedNormalOp, float, double>("dtype"));
  r->Register("StatelessParameterizedTruncatedNormal",
              TypedFactory<TruncatedNormalOp, float, double>("dtype"));
}

}  // namespace kernels_internal
}  // namespace minigraph
