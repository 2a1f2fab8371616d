// RandomUniform, RandomUniformInt, RandomStandardNormal, TruncatedNormal,
// Multinomial and RandomShuffle: TensorFlow's stateful random ops, value
// for value. Each node
// owns a Philox generator made from its (seed, seed2) attrs as TensorFlow's
// GuardedPhiloxRandom makes it (key = seed, the counter's high half =
// seed2); every run takes the generator's state and moves it on by 256
// blocks per value reserved, so successive runs continue TensorFlow's
// sequence. Seeds (0, 0) draw a fresh seed pair.
// And RngReadAndSkip, which tf.random.Generator and Keras' random layers
// read and advance their state variables by.
#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/philox_random.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/kernels/random/multinomial.h"
#include "runtime/engine/kernels/internal/random_streams.h"

namespace minigraph {
namespace kernels_internal {
namespace {

template <template <typename> class Dist>
struct RandomFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Init(OpKernelConstruction* c) { return generator_.Init(c); }

    absl::Status Compute(OpKernelContext* ctx) const override {
      MG_ASSIGN_OR_RETURN(TensorShape shape, ShapeFromTensor(ctx->input(0), "shape"));
      const int64_t n = shape.num_elements();
      Dist<T> dist;
      if constexpr (std::is_integral_v<T>) {  // RandomUniformInt's minval, maxval
        MG_ASSIGN_OR_RETURN(dist, UniformIntRange<T>(ctx->input(1), ctx->input(2), n == 0));
      }
      Tensor* out;
      MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
      PhiloxRandom local = generator_.Reserve(static_cast<uint64_t>(n));
      FillPhilox(local, dist, out->data<T>(), n);
      return absl::OkStatus();
    }

   private:
    NodeGenerator generator_;
  };
};

// Multinomial (tf.random.categorical's stateful op): num_samples classes
// drawn per row of logits (multinomial.h), as int32 or int64 (Out).
template <typename Out>
struct MultinomialFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Init(OpKernelConstruction* c) { return generator_.Init(c); }

    absl::Status Compute(OpKernelContext* ctx) const override {
      const Tensor& logits = ctx->input(0);
      MG_ASSIGN_OR_RETURN(int32_t samples, MultinomialSampleCount(*this, logits, ctx->input(1)));
      const int64_t batch = logits.dim_size(0), classes = logits.dim_size(1);
      Tensor* out;
      MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({batch, samples}), &out));
      if (out->NumElements() == 0) return absl::OkStatus();
      SampleMultinomial(logits.data<T>(), batch, classes, samples,
                        generator_.Reserve(MultinomialOutputs(batch, samples)), out->data<Out>());
      return absl::OkStatus();
    }

   private:
    NodeGenerator generator_;
  };
};

// RngReadAndSkip(resource, alg, delta): the state variable's first three
// elements (Philox's [counter low, counter high, key]), and the 128-bit
// counter advanced by delta * 256, the product in 64 bits as TensorFlow
// computes it. TensorFlow's messages; ThreeFry is XLA's only.
class RngReadAndSkipOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& alg_t = ctx->input(1);
    const Tensor& delta_t = ctx->input(2);
    if (alg_t.dims() != 0 || delta_t.dims() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": alg and delta must be scalars, got ", alg_t.shape().DebugString(),
          " and ", delta_t.shape().DebugString()));
    }
    const int32_t alg = *alg_t.data<int32_t>();
    const uint64_t delta = *delta_t.data<uint64_t>();
    MG_ASSIGN_OR_RETURN(Var * v, ctx->input_var(0));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({3}), &out));
    absl::MutexLock l(v->mu());
    if (!v->is_initialized()) return ctx->uninitialized_error(0, *v);
    const Tensor& state = v->value();
    if (state.dtype() != DT_INT64) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": dtype of RNG state variable must be int64, not ",
                       DataTypeString(state.dtype())));
    }
    if (state.dims() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": RNG state must have one and only one dimension, not ", state.dims()));
    }
    if (alg == kAlgThreeFry) {
      return absl::UnimplementedError(
          absl::StrCat(Where(), ": Non-XLA devices don't support the ThreeFry algorithm."));
    }
    if (alg != kAlgPhilox && alg != kAlgAutoSelect) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": Unsupported algorithm id: ", alg));
    }
    if (state.NumElements() < 3) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": For the Philox algorithm, the size of state must be at "
                                "least 3; got ", state.NumElements()));
    }
    std::copy_n(state.data<int64_t>(), 3, out->data<int64_t>());
    uint64_t* counter = reinterpret_cast<uint64_t*>(v->mutable_value()->data<int64_t>());
    const uint64_t step = delta * 256;  // wraps, as TensorFlow's
    counter[0] += step;
    if (counter[0] < step) ++counter[1];
    return absl::OkStatus();
  }

 private:
  // TensorFlow's RNG_ALG_* numbers.
  static constexpr int32_t kAlgPhilox = 1, kAlgThreeFry = 2, kAlgAutoSelect = 3;

  std::string Where() const { return absl::StrCat(type_string(), " '", name(), "'"); }
};

// RandomShuffle: the rows (first dimension) of its input in a random
// order, TensorFlow's Fisher-Yates over its stream: for each row i but the
// last, a swap with row i + (a sample modulo the rows left), one 32-bit
// sample each (two, high then low, past 2^31 rows). A tensor of one row or
// element is passed through without drawing.
class RandomShuffleOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return generator_.Init(c); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    if (in.NumElements() <= 1 || in.dims() == 0 || in.dim_size(0) <= 1) {
      ctx->set_output(0, in);
      return absl::OkStatus();
    }
    const int64_t rows = in.dim_size(0);
    const bool wide = rows >= std::numeric_limits<int32_t>::max();
    PhiloxRandom gen = generator_.ReserveSamples32(static_cast<uint64_t>(rows - 1));
    PhiloxSamples sample(&gen);
    std::vector<int64_t> order(rows);
    std::iota(order.begin(), order.end(), 0);
    for (int64_t i = 0; i + 1 < rows; ++i) {
      const uint64_t left = static_cast<uint64_t>(rows - i);
      uint64_t r;
      if (wide) {
        const uint64_t hi = sample();
        r = ((hi << 32) | sample()) % left;
      } else {
        r = sample() % static_cast<uint32_t>(left);
      }
      std::swap(order[i], order[i + r]);
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, in.shape(), &out));
    const int64_t row = in.NumElements() / rows;
    for (int64_t i = 0; i < rows; ++i) CopyElements(in, order[i] * row, out, i * row, row);
    return absl::OkStatus();
  }

 private:
  NodeGenerator generator_;
};

using KernelResult = absl::StatusOr<std::unique_ptr<OpKernel>>;

}  // namespace

void RegisterRandomKernels(KernelRegistry* r) {
  r->Register("RngReadAndSkip", MakeFactory<RngReadAndSkipOp>());
  r->Register("RandomShuffle", MakeFactory<RandomShuffleOp>());
  r->Register("RandomUniform", TypedFactory<RandomFor<PhiloxUniform>::Op, float, double>("dtype"));
  r->Register("RandomUniformInt",
              TypedFactory<RandomFor<PhiloxUniformInt>::Op, int32_t, int64_t>("Tout"));
  r->Register("RandomStandardNormal",
              TypedFactory<RandomFor<PhiloxNormal>::Op, float, double>("dtype"));
  r->Register("TruncatedNormal",
              TypedFactory<RandomFor<PhiloxTruncatedNormal>::Op, float, double>("dtype"));
  r->Register("Multinomial", [](OpKernelConstruction* c) -> KernelResult {
    DataType out;
    MG_RETURN_IF_ERROR(c->GetAttr("output_dtype", &out));
    if (out == DT_INT32) return TypedFactory<MultinomialFor<int32_t>::Op, float, double>()(c);
    return TypedFactory<MultinomialFor<int64_t>::Op, float, double>()(c);
  });
}

}  // namespace kernels_internal
}  // namespace minigraph
