// StatelessRandomBinomial (tf.random.stateless_binomial), TensorFlow's
// stream value for value, as random_binomial_op.cc draws it: counts and
// probs broadcast to the trailing dimensions of `shape`; each output from
// its own part of the stream; for count * min(p, 1 - p) below 10 the
// inversion of the CDF by sums of geometric draws (42 blocks apart), else
// Hormann's transformed rejection (BTRS, 256 blocks apart), drawn for the
// smaller of p and 1 - p; counts of 0 or less and p of 0 or less give 0, p
// of 1 or more the count, a NaN p NaN.
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/bcast.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/philox_random.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/kernels/internal/random_streams.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// The count of geometric(p) draws whose sum stays within `count`.
double Inversion(double count, double p, PhiloxRandom* gen) {
  LastFirst<PhiloxUniform<double>> uniforms;
  auto uniform = [&] { return uniforms(gen); };
  double sum = 0;
  int draws = 0;
  while (true) {
    sum += std::ceil(std::log(uniform()) / std::log1p(-p));
    if (sum > count) return draws;
    ++draws;
  }
}

// log(k!) minus its Stirling approximation: a table to 9, then the series.
double StirlingTail(double k) {
  static constexpr double kTail[] = {0.0810614667953272,  0.0413406959554092,
                                     0.0276779256849983,  0.02079067210376509,
                                     0.0166446911898211,  0.0138761288230707,
                                     0.0118967099458917,  0.0104112652619720,
                                     0.00925546218271273, 0.00833056343336287};
  if (k <= 9) return kTail[static_cast<int>(k)];
  const double sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / sq) / sq) / (k + 1);
}

// Hormann's BTRS, with TensorFlow's bound (which leaves out one log of
// the paper's).
double Btrs(double count, double p, PhiloxRandom* gen) {
  const double spq = std::sqrt(count * p * (1 - p));
  const double b = 1.15 + 2.53 * spq;
  const double a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = count * p + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = p / (1 - p);
  const double alpha = (2.83 + 5.1 / b) * spq;
  const double m = std::floor((count + 1) * p);
  LastFirst<PhiloxUniform<double>> uniforms;
  auto uniform = [&] { return uniforms(gen); };
  while (true) {
    double u = uniform();
    double v = uniform();
    u -= 0.5;
    const double us = 0.5 - std::abs(u);
    const double k = std::floor((2 * a / us + b) * u + c);
    if (us >= 0.07 && v <= v_r) return k;
    if (k < 0 || k > count) continue;
    v = std::log(v * alpha / (a / (us * us) + b));
    const double bound =
        (m + 0.5) * std::log((m + 1) / (r * (count - m + 1))) +
        (count + 1) * std::log((count - m + 1) / (count - k + 1)) +
        (k + 0.5) * std::log(r * (count - k + 1) / (k + 1)) + StirlingTail(m) +
        StirlingTail(count - m) - StirlingTail(k) - StirlingTail(count - k);
    if (v <= bound) return k;
  }
}

// One draw for (count, p), from output k's part of `gen`.
double DrawBinomial(double count, double p, const PhiloxRandom& gen, int64_t k) {
  if (count <= 0 || p <= 0) return 0;
  if (p >= 1) return count;
  if (std::isnan(p)) return NAN;
  const bool flip = p > 0.5;
  const double q = flip ? 1 - p : p;
  PhiloxRandom at = gen;
  double draw;
  if (count * q >= 10) {
    at.Skip(256 * static_cast<uint64_t>(k));
    draw = Btrs(count, q, &at);
  } else {
    at.Skip(42 * static_cast<uint64_t>(k));
    draw = Inversion(count, q, &at);
  }
  return flip ? count - draw : draw;
}

// The flat index into an operand of each element of the broadcast
// (BCast's merged dimensions).
std::vector<int64_t> OperandIndex(const BCast& b, bool x) {
  const BCast::Vec& shape = x ? b.x_reshape() : b.y_reshape();
  const BCast::Vec& out = b.result_shape();
  int64_t total = 1;
  for (int64_t d : out) total *= d;
  std::vector<int64_t> index(total);
  for (int64_t i = 0; i < total; ++i) {
    int64_t rest = i, at = 0, stride = 1;
    for (int d = static_cast<int>(out.size()) - 1; d >= 0; --d) {
      const int64_t coord = rest % out[d];
      rest /= out[d];
      if (shape[d] != 1) at += coord * stride;
      stride *= shape[d];
    }
    index[i] = at;
  }
  return index;
}

// Counts and probs of type T, outputs of type U.
template <typename T, typename U>
class StatelessBinomialOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& counts = ctx->input(2);
    const Tensor& probs = ctx->input(3);
    MG_ASSIGN_OR_RETURN(PhiloxRandom gen, SeedGenerator(ctx->input(1), name()));
    absl::StatusOr<BCast> b = BCast::Make(counts.shape(), probs.shape());
    if (!b.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "counts and probs must have compatible batch dimensions: ",
          counts.shape().DebugString(), " vs. ", probs.shape().DebugString()));
    }
    if (ctx->input(0).dims() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Input shape should be a vector, got shape: ", ctx->input(0).shape().DebugString()));
    }
    MG_ASSIGN_OR_RETURN(TensorShape shape, ShapeFromTensor(ctx->input(0), "shape"));
    const TensorShape& batch_shape = b->output_shape();
    MG_RETURN_IF_ERROR(CheckEndsWith(shape, batch_shape, "counts' and probs'"));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return absl::OkStatus();
    const int64_t batches = batch_shape.num_elements();
    const int64_t per_batch = shape.num_elements() / batches;
    const std::vector<int64_t> ci = OperandIndex(*b, true), pi = OperandIndex(*b, false);
    const T* c = counts.data<T>();
    const T* p = probs.data<T>();
    U* o = out->data<U>();
    ctx->ParallelFor(batches * per_batch, sizeof(T), sizeof(U), 300,
                     [&](int64_t begin, int64_t end) {
      for (int64_t k = begin; k < end; ++k) {
        const int64_t batch = k / per_batch, sample = k % per_batch;
        o[sample * batches + batch] = static_cast<U>(DrawBinomial(
            static_cast<double>(c[ci[batch]]), static_cast<double>(p[pi[batch]]), gen, k));
      }
    });
    return absl::OkStatus();
  }
};

KernelFactory BinomialFactory() {
  return [](OpKernelConstruction* c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DataType t, u;
    MG_RETURN_IF_ERROR(c->GetAttr("T", &t));
    MG_RETURN_IF_ERROR(c->GetAttr("dtype", &u));
    auto with_t = [&](auto param) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
      using T = decltype(param);
      switch (u) {
        case DT_FLOAT: return MakeFactory<StatelessBinomialOp<T, float>>()(c);
        case DT_DOUBLE: return MakeFactory<StatelessBinomialOp<T, double>>()(c);
        case DT_INT32: return MakeFactory<StatelessBinomialOp<T, int32_t>>()(c);
        case DT_INT64: return MakeFactory<StatelessBinomialOp<T, int64_t>>()(c);
        default: return NoKernelForType(c, u);
      }
    };
    if (t == DT_FLOAT) return with_t(float());
    if (t == DT_DOUBLE) return with_t(double());
    return NoKernelForType(c, t);
  };
}

}  // namespace

void RegisterBinomialKernels(KernelRegistry* r) {
  r->Register("StatelessRandomBinomial", BinomialFactory());
}

}  // namespace kernels_internal
}  // namespace minigraph
