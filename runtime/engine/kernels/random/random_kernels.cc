// RandomUniform, RandomStandardNormal and TruncatedNormal: TensorFlow's
// stateful random ops, value for value. Each node owns a Philox generator
// made from its (seed, seed2) attrs as TensorFlow's GuardedPhiloxRandom makes
// it (key = seed, the counter's high half = seed2); every run takes the
// generator's state and moves it on by 256 blocks per value, so successive
// runs continue TensorFlow's sequence. Seeds (0, 0) draw a fresh seed pair.
#include <random>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/philox_random.h"
#include "runtime/engine/kernels/internal/tensor_util.h"

namespace minigraph {
namespace kernels_internal {
namespace {

template <template <typename> class Dist>
struct RandomFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Init(OpKernelConstruction* c) {
      int64_t seed, seed2;
      MG_RETURN_IF_ERROR(c->GetAttr("seed", &seed));
      MG_RETURN_IF_ERROR(c->GetAttr("seed2", &seed2));
      uint64_t s = static_cast<uint64_t>(seed), s2 = static_cast<uint64_t>(seed2);
      if (seed == 0 && seed2 == 0) {
        std::random_device device;
        s = (uint64_t{device()} << 32) | device();
        s2 = (uint64_t{device()} << 32) | device();
      }
      absl::MutexLock l(&mu_);
      gen_ = PhiloxRandom::FromSeedPair(s, s2);
      return absl::OkStatus();
    }

    absl::Status Compute(OpKernelContext* ctx) const override {
      MG_ASSIGN_OR_RETURN(TensorShape shape, ShapeFromTensor(ctx->input(0), "shape"));
      Tensor* out;
      MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
      const int64_t n = shape.num_elements();
      PhiloxRandom local = Reserve(n);
      FillPhilox(local, Dist<T>(), out->data<T>(), n);
      return absl::OkStatus();
    }

   private:
    // TensorFlow's ReserveRandomOutputs(n, 256): the state for this run,
    // and the generator moved on past it.
    PhiloxRandom Reserve(int64_t n) const {
      absl::MutexLock l(&mu_);
      const PhiloxRandom local = gen_;
      gen_.Skip(static_cast<uint64_t>(n) * 256);
      return local;
    }

    mutable absl::Mutex mu_;
    mutable PhiloxRandom gen_ ABSL_GUARDED_BY(mu_) = PhiloxRandom::FromSeedPair(0, 0);
  };
};

}  // namespace

void RegisterRandomKernels(KernelRegistry* r) {
  r->Register("RandomUniform", TypedFactory<RandomFor<PhiloxUniform>::Op, float, double>("dtype"));
  r->Register("RandomStandardNormal",
              TypedFactory<RandomFor<PhiloxNormal>::Op, float, double>("dtype"));
  r->Register("TruncatedNormal",
              TypedFactory<RandomFor<PhiloxTruncatedNormal>::Op, float, double>("dtype"));
}

}  // namespace kernels_internal
}  // namespace minigraph
