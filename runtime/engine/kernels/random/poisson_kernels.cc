// Poisson draws, TensorFlow's streams value for value: RandomPoissonV2
// (output [shape..., rate...], a stateful generator) and
// StatelessRandomPoisson (output `shape`, which ends with the rates' shape;
// a seed), as random_poisson_op.cc draws them, in double: each output from
// its own part of the stream (256 blocks apart), uniform doubles read last
// first; for a rate below 10 Knuth's product of uniforms, for larger rates
// Hormann's transformed rejection (PTRS), an infinite rate giving infinity
// (0 for integer outputs, as TensorFlow's).
#include <cmath>
#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/philox_random.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/kernels/internal/random_streams.h"

namespace minigraph {
namespace kernels_internal {
namespace {

constexpr uint64_t kBlocksPerOutput = 256;

// The draw of an infinite rate: infinity, and for integer outputs 0
// (TensorFlow's NumTraits<U>::infinity(), numeric_limits' 0 for them).
template <typename U>
U Infinite() {
  return std::numeric_limits<U>::infinity();
}

// One draw of Poisson(rate) from `gen`.
template <typename U>
U DrawPoisson(double rate, PhiloxRandom* gen) {
  LastFirst<PhiloxUniform<double>> uniforms;
  auto uniform = [&] { return uniforms(gen); };
  if (rate < 10) {
    // Knuth: the count of uniforms whose running product stays above
    // exp(-rate).
    const double limit = std::exp(-rate);
    double product = 1, count = 0;
    while (true) {
      product *= uniform();
      if (product <= limit && count <= static_cast<double>(std::numeric_limits<U>::max())) {
        return static_cast<U>(count);
      }
      count += 1;
    }
  }
  if (std::isinf(rate)) return Infinite<U>();
  // Hormann's PTRS, with his constants for the dominating distribution.
  const double log_rate = std::log(rate);
  const double b = 0.931 + 2.53 * std::sqrt(rate);
  const double a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
  while (true) {
    const double u = uniform() - 0.5;
    const double v = uniform();
    const double us = 0.5 - std::abs(u);
    const double k = std::floor((2 * a / us + b) * u + rate + 0.43);
    if (k < 0) continue;
    if (us >= 0.07 && v <= 0.9277 - 3.6224 / (b - 2)) return static_cast<U>(k);
    if (us < 0.013 && v > us) continue;
    const double s = std::log(v * inv_alpha / (a / (us * us) + b));
    const double t = -rate + k * log_rate - std::lgamma(k + 1);
    if (s <= t) return static_cast<U>(k);
  }
}

// Output i = sample * rates + r, draw k (rate by rate) from `gen` skipped
// by k * 256 blocks.
template <typename T, typename U>
void FillPoisson(const OpKernelContext* ctx, const T* rate, int64_t rates, int64_t per_rate,
                 const PhiloxRandom& gen, U* out) {
  ctx->ParallelFor(rates * per_rate, sizeof(T), sizeof(U), 200, [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) {
      const int64_t r = k / per_rate, sample = k % per_rate;
      PhiloxRandom at = gen;
      at.Skip(kBlocksPerOutput * static_cast<uint64_t>(k));
      out[sample * rates + r] = DrawPoisson<U>(static_cast<double>(rate[r]), &at);
    }
  });
}

// The kernel for rates of type T and outputs of type U.
template <typename T, typename U, bool kStateless>
class PoissonOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    if constexpr (kStateless) return absl::OkStatus();
    return generator_.Init(c);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(TensorShape shape, ShapeFromTensor(ctx->input(0), "shape"));
    const Tensor& rate = ctx->input(kStateless ? 2 : 1);
    int64_t per_rate = shape.num_elements();
    PhiloxRandom gen = PhiloxRandom::FromSeedPair(0, 0);
    if constexpr (kStateless) {
      MG_ASSIGN_OR_RETURN(gen, SeedGenerator(ctx->input(1), name()));
      MG_RETURN_IF_ERROR(CheckEndsWith(shape, rate.shape(), "lam's"));
      per_rate = rate.NumElements() == 0 ? 0 : shape.num_elements() / rate.NumElements();
    } else {
      for (int64_t d : rate.shape().dim_sizes()) MG_RETURN_IF_ERROR(shape.AddDim(d));
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return absl::OkStatus();
    if constexpr (!kStateless) {
      gen = generator_.Reserve(static_cast<uint64_t>(shape.num_elements()));
    }
    FillPoisson(ctx, rate.data<T>(), rate.NumElements(), per_rate, gen, out->data<U>());
    return absl::OkStatus();
  }

 private:
  NodeGenerator generator_;
};

// The rate dtype (`rate_attr`) and output dtype (`out_attr`) pairs
// TensorFlow registers, among float, double, int32 and int64.
template <bool kStateless>
KernelFactory PoissonFactory(const char* rate_attr, const char* out_attr) {
  return [rate_attr, out_attr](OpKernelConstruction* c)
             -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DataType r, u;
    MG_RETURN_IF_ERROR(c->GetAttr(rate_attr, &r));
    MG_RETURN_IF_ERROR(c->GetAttr(out_attr, &u));
    auto with_rate = [&](auto rate_type) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
      using T = decltype(rate_type);
      switch (u) {
        case DT_FLOAT: return MakeFactory<PoissonOp<T, float, kStateless>>()(c);
        case DT_DOUBLE: return MakeFactory<PoissonOp<T, double, kStateless>>()(c);
        case DT_INT32: return MakeFactory<PoissonOp<T, int32_t, kStateless>>()(c);
        case DT_INT64: return MakeFactory<PoissonOp<T, int64_t, kStateless>>()(c);
        default: return NoKernelForType(c, u);
      }
    };
    switch (r) {
      case DT_FLOAT: return with_rate(float());
      case DT_DOUBLE: return with_rate(double());
      case DT_INT32: return with_rate(int32_t());
      case DT_INT64: return with_rate(int64_t());
      default: return NoKernelForType(c, r);
    }
  };
}

}  // namespace

void RegisterPoissonKernels(KernelRegistry* r) {
  r->Register("RandomPoissonV2", PoissonFactory<false>("R", "dtype"));
  r->Register("StatelessRandomPoisson", PoissonFactory<true>("Rtype", "dtype"));
}

}  // namespace kernels_internal
}  // namespace minigraph
