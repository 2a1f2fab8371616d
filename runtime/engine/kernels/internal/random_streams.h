// Where kernels that draw get their Philox streams, as TensorFlow's
// kernels get theirs: a stateful op's generator from its (seed, seed2)
// attrs (GuardedPhiloxRandom), a stateless op's from its seed input
// (GenerateKey) or from its key, counter and algorithm inputs (the V2 and
// V3 ops); and what TensorFlow's samplers make of a stream (SimplePhilox).
// The random family's, and the other families' random ops (fractional
// pooling).

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_RANDOM_STREAMS_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_RANDOM_STREAMS_H_

#include <cstdint>
#include <random>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "runtime/engine/kernels/internal/philox_random.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {

// The state for `n` single samples of `gen`, and `gen` moved past them:
// TensorFlow's ReserveSamples32 on a generator a kernel owns alone.
inline PhiloxRandom TakeSamples32(PhiloxRandom* gen, uint64_t n) {
  const PhiloxRandom taken = *gen;
  gen->Skip((n + 3) / 4);
  return taken;
}

// A stateful random op's generator: made from the node's (seed, seed2)
// attrs as TensorFlow's GuardedPhiloxRandom makes it (key = seed, the
// counter's high half = seed2; seeds (0, 0) draw a fresh pair), and
// reserved from by each run. Thread-safe.
class NodeGenerator {
 public:
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

  // TensorFlow's ReserveRandomOutputs(n, 256): the state for this run,
  // and the generator moved on past it.
  PhiloxRandom Reserve(uint64_t n) const { return ReserveBlocks(n * 256); }
  // TensorFlow's ReserveSamples32(n): room for n single samples, four to a
  // block.
  PhiloxRandom ReserveSamples32(uint64_t n) const { return ReserveBlocks((n + 3) / 4); }
  // TensorFlow's ReserveSamples128(n): n whole blocks.
  PhiloxRandom ReserveSamples128(uint64_t n) const { return ReserveBlocks(n); }

 private:
  PhiloxRandom ReserveBlocks(uint64_t blocks) const {
    absl::MutexLock l(&mu_);
    const PhiloxRandom local = gen_;
    gen_.Skip(blocks);
    return local;
  }

  mutable absl::Mutex mu_;
  mutable PhiloxRandom gen_ ABSL_GUARDED_BY(mu_) = PhiloxRandom::FromSeedPair(0, 0);
};

// TensorFlow's only CPU algorithm, and its number (RNG_ALG_PHILOX); "auto
// select" (RNG_ALG_AUTO_SELECT) is Philox on a CPU too.
inline constexpr int32_t kAlgPhilox = 1;
inline constexpr int32_t kAlgAutoSelect = 3;

// The two halves of a seed tensor of shape [2] (int32 or int64).
inline absl::StatusOr<std::pair<uint64_t, uint64_t>> SeedOf(const Tensor& seed,
                                                            absl::string_view op) {
  if (seed.dims() != 1 || seed.NumElements() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": seed must have shape [2], not ", seed.shape().DebugString()));
  }
  if (seed.dtype() == DT_INT32) {
    const int32_t* s = seed.data<int32_t>();
    return std::make_pair(static_cast<uint64_t>(static_cast<int64_t>(s[0])),
                          static_cast<uint64_t>(static_cast<int64_t>(s[1])));
  }
  const int64_t* s = seed.data<int64_t>();
  return std::make_pair(static_cast<uint64_t>(s[0]), static_cast<uint64_t>(s[1]));
}

// The generator of a stateless op's seed input.
inline absl::StatusOr<PhiloxRandom> SeedGenerator(const Tensor& seed, absl::string_view op) {
  MG_ASSIGN_OR_RETURN(auto s, SeedOf(seed, op));
  return PhiloxRandom::FromSeed(s.first, s.second);
}

// The generator of a V2 or V3 stateless op's key [1], counter [2] and alg
// inputs.
inline absl::StatusOr<PhiloxRandom> KeyCounterGenerator(const Tensor& key, const Tensor& counter,
                                                        const Tensor& alg, absl::string_view op) {
  const int32_t id = alg.NumElements() == 1 ? *alg.data<int32_t>() : -1;
  if (id != kAlgPhilox && id != kAlgAutoSelect) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": unsupported algorithm id ", id, " (a CPU has Philox, 1, or 3 for auto)"));
  }
  if (key.NumElements() != 1 || counter.NumElements() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": key must have 1 element and counter 2 for Philox, got ",
                     key.shape().DebugString(), " and ", counter.shape().DebugString()));
  }
  const uint64_t* c = counter.data<uint64_t>();
  return PhiloxRandom::FromKeyCounter(*key.data<uint64_t>(), c[0], c[1]);
}

// OK when the draws' `shape` ends with the parameters' (`what`: "alpha's"),
// the rule of the stateless gamma, Poisson and binomial ops; else
// TensorFlow's InvalidArgument.
inline absl::Status CheckEndsWith(const TensorShape& shape, const TensorShape& params,
                                  absl::string_view what) {
  const int tail = params.dims();
  bool ends_with = tail <= shape.dims();
  for (int d = 0; ends_with && d < tail; ++d) {
    ends_with = shape.dim_size(shape.dims() - tail + d) == params.dim_size(d);
  }
  if (ends_with) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("Shape passed in must end with broadcasted shape: ", shape.DebugString(),
                   " does not end with ", what, " ", params.DebugString()));
}

// TensorFlow's SimplePhilox: single 32-bit samples of a Philox stream, and
// the integers and reals its samplers make of them (exact uniform integers
// by rejecting the values below 2^bits mod n).
class SimplePhilox {
 public:
  explicit SimplePhilox(PhiloxRandom* gen) : single_(gen) {}
  uint32_t Rand32() { return single_(); }
  uint64_t Rand64() {
    const uint64_t lo = single_();
    const uint64_t hi = single_();
    return lo | hi << 32;
  }
  float RandFloat() { return philox_internal::Uint32ToFloat(single_()); }
  double RandDouble() {
    const uint32_t x0 = single_();
    const uint32_t x1 = single_();
    return philox_internal::Uint64ToDouble(x0, x1);
  }
  uint32_t Uniform(uint32_t n) { return ExactUniform(n, [this] { return Rand32(); }); }
  uint64_t Uniform64(uint64_t n) { return ExactUniform(n, [this] { return Rand64(); }); }

 private:
  template <typename U, typename Draw>
  static U ExactUniform(U n, Draw draw) {
    if (n == 0) return draw() * 0;
    if ((n & (n - 1)) == 0) return draw() & (n - 1);
    const U rem = static_cast<U>(~U{0} % n) + 1;
    U r;
    do {
      r = draw();
    } while (r < rem);
    return r % n;
  }

  PhiloxSamples single_;
};

// Values of a distribution that makes kGroup at a time, handed out last
// first (TensorFlow's SampleBuffer).
template <typename Dist>
class LastFirst {
 public:
  double operator()(PhiloxRandom* gen) {
    if (left_ == 0) {
      values_ = dist_(gen);
      left_ = Dist::kGroup;
    }
    return values_[--left_];
  }

 private:
  Dist dist_;
  decltype(Dist()(nullptr)) values_{};
  int left_ = 0;
};

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_RANDOM_STREAMS_H_
