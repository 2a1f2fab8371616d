// RandomUniform, RandomStandardNormal and TruncatedNormal. Each node owns a
// generator seeded from (seed, seed2), so a graph with fixed seeds produces
// the same sequence in every process; successive runs advance it, as in
// TensorFlow. Seeds (0, 0) draw a fresh seed.
#include <cmath>
#include <random>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/kernels/standard_kernels.h"

namespace minigraph {
namespace {

enum class Dist { kUniform, kNormal, kTruncated };

template <Dist kDist>
struct RandomFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Init(OpKernelConstruction* c) {
      int64_t seed, seed2;
      MG_RETURN_IF_ERROR(c->GetAttr("seed", &seed));
      MG_RETURN_IF_ERROR(c->GetAttr("seed2", &seed2));
      uint64_t s = (static_cast<uint64_t>(seed) << 32) ^ static_cast<uint64_t>(seed2);
      if (seed == 0 && seed2 == 0) s = std::random_device{}();
      absl::MutexLock l(&mu_);
      gen_.seed(s);
      return absl::OkStatus();
    }

    absl::Status Compute(OpKernelContext* ctx) const override {
      MG_ASSIGN_OR_RETURN(TensorShape shape, ShapeFromTensor(ctx->input(0), "shape"));
      Tensor* out;
      MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
      T* p = out->data<T>();
      absl::MutexLock l(&mu_);
      for (int64_t i = 0; i < shape.num_elements(); ++i) p[i] = static_cast<T>(Draw());
      return absl::OkStatus();
    }

   private:
    // Uniform in [0, 1) with 53 random bits.
    double Uniform() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return static_cast<double>(gen_() >> 11) * 0x1.0p-53;
    }
    // Box-Muller; written out so values do not depend on the standard
    // library's distribution implementation.
    double Normal() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      double u1 = Uniform();
      while (u1 <= 0.0) u1 = Uniform();
      const double u2 = Uniform();
      return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
    }
    double Draw() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      switch (kDist) {
        case Dist::kUniform:
          return Uniform();
        case Dist::kNormal:
          return Normal();
        case Dist::kTruncated: {
          double v = Normal();
          while (std::abs(v) >= 2.0) v = Normal();
          return v;
        }
      }
      return 0;
    }

    mutable absl::Mutex mu_;
    mutable std::mt19937_64 gen_ ABSL_GUARDED_BY(mu_);
  };
};

}  // namespace

void RegisterRandomKernels(KernelRegistry* r) {
  r->Register("RandomUniform", TypedFactory<RandomFor<Dist::kUniform>::Op, float, double>("dtype"));
  r->Register("RandomStandardNormal",
              TypedFactory<RandomFor<Dist::kNormal>::Op, float, double>("dtype"));
  r->Register("TruncatedNormal",
              TypedFactory<RandomFor<Dist::kTruncated>::Op, float, double>("dtype"));
}

}  // namespace minigraph
