// Gamma draws, TensorFlow's streams value for value: RandomGamma (output
// [shape..., alpha...], a stateful generator) and StatelessRandomGammaV2
// and V3 (output `shape`, which ends with alpha's shape; a seed, or a key,
// counter and algorithm). Marsaglia and Tsang's transformation-rejection
// from pairs of normal and uniform doubles, as random_gamma_op.cc and
// stateless_random_gamma_op.cc draw them: each output from its own part of
// the stream (256 blocks apart, so the values do not depend on how the
// work is split), each distribution's pair of values read last first, an
// exponential (-log1p(-u)) for alpha 1, and for alpha below 1 the draw for
// alpha + 1 times u^(1/alpha).
#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/philox_random.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/kernels/internal/random_streams.h"

namespace minigraph {
namespace kernels_internal {
namespace {

constexpr uint64_t kBlocksPerOutput = 256;

// Output i = sample * alphas + a for sample in [0, per_alpha): the draws
// enumerated alpha by alpha, draw k from the stream `gen` skipped by k *
// 256 blocks.
template <typename T>
void FillGamma(const OpKernelContext* ctx, const T* alpha, int64_t alphas, int64_t per_alpha,
               const PhiloxRandom& gen, T* out) {
  ctx->ParallelFor(alphas * per_alpha, sizeof(T), sizeof(T), 200,
                   [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) {
      const int64_t a = k / per_alpha, sample = k % per_alpha;
      PhiloxRandom at = gen;
      at.Skip(kBlocksPerOutput * static_cast<uint64_t>(k));
      LastFirst<PhiloxNormal<double>> normal;
      LastFirst<PhiloxUniform<double>> uniform;
      const double shape = static_cast<double>(alpha[a]);
      double value;
      if (shape == 1.0) {
        value = -std::log1p(-uniform(&at));
      } else {
        const bool below_one = shape < 1;
        const double d = shape + (below_one ? 2.0 / 3 : -1.0 / 3);
        const double c = 1.0 / 3 / std::sqrt(d);
        while (true) {
          const double x = normal(&at);
          double v = 1 + c * x;
          if (v <= 0) continue;
          v = v * v * v;
          const double u = uniform(&at);
          if (u < 1 - 0.0331 * (x * x) * (x * x) ||
              std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v))) {
            value = d * v;
            if (below_one) value *= std::pow(uniform(&at), 1 / shape);
            break;
          }
        }
      }
      out[sample * alphas + a] = static_cast<T>(value);
    }
  });
}

// RandomGamma: `shape` draws for every alpha.
template <typename T>
class RandomGammaOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return generator_.Init(c); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& alpha = ctx->input(1);
    MG_ASSIGN_OR_RETURN(TensorShape shape, ShapeFromTensor(ctx->input(0), "shape"));
    const int64_t per_alpha = shape.num_elements();
    for (int64_t d : alpha.shape().dim_sizes()) MG_RETURN_IF_ERROR(shape.AddDim(d));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return absl::OkStatus();
    const PhiloxRandom gen = generator_.Reserve(static_cast<uint64_t>(shape.num_elements()));
    FillGamma(ctx, alpha.data<T>(), alpha.NumElements(), per_alpha, gen, out->data<T>());
    return absl::OkStatus();
  }

 private:
  NodeGenerator generator_;
};

// StatelessRandomGammaV2 (shape, seed, alpha) and V3 (shape, key, counter,
// alg, alpha): draws of `shape`, alpha broadcast along its leading
// dimensions.
template <bool kV3>
struct StatelessGammaFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Compute(OpKernelContext* ctx) const override {
      MG_ASSIGN_OR_RETURN(TensorShape shape, ShapeFromTensor(ctx->input(0), "shape"));
      PhiloxRandom gen = PhiloxRandom::FromSeedPair(0, 0);
      if constexpr (kV3) {
        MG_ASSIGN_OR_RETURN(gen, KeyCounterGenerator(ctx->input(1), ctx->input(2),
                                                     ctx->input(3), name()));
      } else {
        MG_ASSIGN_OR_RETURN(gen, SeedGenerator(ctx->input(1), name()));
      }
      const Tensor& alpha = ctx->input(kV3 ? 4 : 2);
      Tensor* out;
      MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
      if (shape.num_elements() == 0) return absl::OkStatus();
      MG_RETURN_IF_ERROR(CheckEndsWith(shape, alpha.shape(), "alpha's"));
      const int64_t alphas = alpha.NumElements();
      if (alphas == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("Input alpha should have non-zero element count, got: ", alphas));
      }
      FillGamma(ctx, alpha.data<T>(), alphas, shape.num_elements() / alphas, gen,
                out->data<T>());
      return absl::OkStatus();
    }
  };
};

}  // namespace

void RegisterGammaKernels(KernelRegistry* r) {
  r->Register("RandomGamma", TypedFactory<RandomGammaOp, float, double>());
  r->Register("StatelessRandomGammaV2",
              TypedFactory<StatelessGammaFor<false>::Op, float, double>("dtype"));
  r->Register("StatelessRandomGammaV3",
              TypedFactory<StatelessGammaFor<true>::Op, float, double>("dtype"));
}

}  // namespace kernels_internal
}  // namespace minigraph
