// TensorFlow's stateless random ops: the same seed (or key and counter)
// gives TensorFlow's values bit for bit (internal/philox_random.h). TF 2's
// initializers (glorot_uniform and the rest) build them into every layer's
// graph: StatelessRandomGetKeyCounter then StatelessRandomUniformV2.
#include <memory>
#include <utility>

#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/philox_random.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/kernels/random/multinomial.h"
#include "runtime/engine/kernels/internal/random_streams.h"

namespace minigraph {
namespace kernels_internal {
namespace {

class GetKeyCounterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(auto seed, SeedOf(ctx->input(0), "StatelessRandomGetKeyCounter"));
    const PhiloxRandom gen = PhiloxRandom::FromSeed(seed.first, seed.second);
    Tensor *key, *counter;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({1}), &key));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({2}), &counter));
    key->data<uint64_t>()[0] = gen.key64();
    counter->data<uint64_t>()[0] = gen.counter64(0);
    counter->data<uint64_t>()[1] = gen.counter64(1);
    return absl::OkStatus();
  }
};

class GetAlgOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    Tensor* alg;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({}), &alg));
    *alg->data<int32_t>() = kAlgPhilox;
    return absl::OkStatus();
  }
};

// The V2 ops (shape, key, counter, alg) and the V1 ops (shape, seed), for
// distribution Dist<T>; PhiloxUniformInt's range from the inputs after them
// (minval, maxval).
template <template <typename> class Dist, bool kV2>
struct StatelessFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Compute(OpKernelContext* ctx) const override {
      MG_ASSIGN_OR_RETURN(TensorShape shape, ShapeFromTensor(ctx->input(0), "shape"));
      MG_ASSIGN_OR_RETURN(PhiloxRandom gen, Generator(ctx));
      Tensor* out;
      MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
      Dist<T> dist;
      // (An empty output reads no range, as TensorFlow's.)
      if constexpr (std::is_same_v<Dist<T>, PhiloxUniformInt<T>>) {
        if (shape.num_elements() == 0) return absl::OkStatus();
        const int first = kV2 ? 4 : 2;
        MG_ASSIGN_OR_RETURN(dist, UniformIntRange<T>(ctx->input(first), ctx->input(first + 1),
                                                     /*empty=*/false));
      }
      FillPhilox(gen, dist, out->data<T>(), shape.num_elements());
      return absl::OkStatus();
    }

   private:
    absl::StatusOr<PhiloxRandom> Generator(OpKernelContext* ctx) const {
      if constexpr (!kV2) {
        return SeedGenerator(ctx->input(1), name());
      } else {
        return KeyCounterGenerator(ctx->input(1), ctx->input(2), ctx->input(3), name());
      }
    }
  };
};

// StatelessMultinomial: Multinomial's draws (multinomial.h) from the
// stream of a seed, as int32 or int64 (Out).
template <typename Out>
struct StatelessMultinomialFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Compute(OpKernelContext* ctx) const override {
      const Tensor& logits = ctx->input(0);
      MG_ASSIGN_OR_RETURN(int32_t samples, MultinomialSampleCount(*this, logits, ctx->input(1)));
      MG_ASSIGN_OR_RETURN(auto seed, SeedOf(ctx->input(2), type_string()));
      const int64_t batch = logits.dim_size(0), classes = logits.dim_size(1);
      Tensor* out;
      MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({batch, samples}), &out));
      if (out->NumElements() == 0) return absl::OkStatus();
      SampleMultinomial(logits.data<T>(), batch, classes, samples,
                        PhiloxRandom::FromSeed(seed.first, seed.second), out->data<Out>());
      return absl::OkStatus();
    }
  };
};

using KernelResult = absl::StatusOr<std::unique_ptr<OpKernel>>;

}  // namespace

void RegisterStatelessRandomKernels(KernelRegistry* r) {
  r->Register("StatelessRandomGetKeyCounter", MakeFactory<GetKeyCounterOp>());
  r->Register("StatelessRandomGetAlg", MakeFactory<GetAlgOp>());
  r->Register("StatelessRandomUniformV2",
              TypedFactory<StatelessFor<PhiloxUniform, true>::Op, float, double>("dtype"));
  r->Register("StatelessRandomNormalV2",
              TypedFactory<StatelessFor<PhiloxNormal, true>::Op, float, double>("dtype"));
  r->Register("StatelessTruncatedNormalV2",
              TypedFactory<StatelessFor<PhiloxTruncatedNormal, true>::Op, float, double>("dtype"));
  r->Register("StatelessRandomUniform",
              TypedFactory<StatelessFor<PhiloxUniform, false>::Op, float, double>("dtype"));
  r->Register("StatelessRandomNormal",
              TypedFactory<StatelessFor<PhiloxNormal, false>::Op, float, double>("dtype"));
  r->Register("StatelessTruncatedNormal",
              TypedFactory<StatelessFor<PhiloxTruncatedNormal, false>::Op, float, double>("dtype"));
  r->Register("StatelessRandomUniformIntV2",
              TypedFactory<StatelessFor<PhiloxUniformInt, true>::Op, int32_t, int64_t, uint32_t,
                           uint64_t>("dtype"));
  r->Register("StatelessRandomUniformInt",
              TypedFactory<StatelessFor<PhiloxUniformInt, false>::Op, int32_t, int64_t>("dtype"));
  r->Register("StatelessRandomUniformFullIntV2",
              TypedFactory<StatelessFor<PhiloxFullInt, true>::Op, int32_t, int64_t, uint32_t,
                           uint64_t>("dtype"));
  r->Register("StatelessMultinomial", [](OpKernelConstruction* c) -> KernelResult {
    DataType out;
    MG_RETURN_IF_ERROR(c->GetAttr("output_dtype", &out));
    if (out == DT_INT32) {
      return TypedFactory<StatelessMultinomialFor<int32_t>::Op, float, double>()(c);
    }
    return TypedFactory<StatelessMultinomialFor<int64_t>::Op, float, double>()(c);
  });
  r->Register("StatelessRandomUniformFullInt",
              TypedFactory<StatelessFor<PhiloxFullInt, false>::Op, int32_t, int64_t, uint32_t,
                           uint64_t>("dtype"));
}

}  // namespace kernels_internal
}  // namespace minigraph
