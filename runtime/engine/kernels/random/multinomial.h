// Multinomial sampling (tf.random.categorical), shared by Multinomial and
// StatelessMultinomial: TensorFlow's CPU MultinomialFunctor, draw for draw.
// Each batch row's unnormalized CDF is built in double from exp(logit -
// max) over its finite logits; each sample is the class whose CDF first
// exceeds a uniform double (two uint32 of the Philox stream) times the
// total. TensorFlow splits the rows across its threads and restarts the
// stream at each split (row * (num_samples + 3) / 4 blocks in); minigraph
// takes the rows in one run, as TensorFlow does whenever the op's
// estimated cost stays under one shard's (10,000 cycles: small batches).

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_RANDOM_MULTINOMIAL_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_RANDOM_MULTINOMIAL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/philox_random.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {

// The number of samples per row asked for, once logits ([batch, classes],
// classes > 0) and num_samples (a scalar >= 0) are checked; InvalidArgument
// naming k's op otherwise.
inline absl::StatusOr<int32_t> MultinomialSampleCount(const OpKernel& k, const Tensor& logits,
                                                      const Tensor& num_samples) {
  if (logits.dims() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        k.type_string(), ": logits should be a matrix, got shape ", logits.shape().DebugString()));
  }
  if (num_samples.dims() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(k.type_string(),
                                                   ": num_samples should be a scalar, got shape ",
                                                   num_samples.shape().DebugString()));
  }
  const int32_t n = *num_samples.data<int32_t>();
  if (n < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(k.type_string(), ": num_samples should be non-negative, got ", n));
  }
  if (logits.dim_size(1) <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        k.type_string(), ": num_classes should be positive, got ", logits.dim_size(1)));
  }
  return n;
}

// The Philox outputs a draw of `batch` rows of `samples` reserves from a
// stateful generator (TensorFlow's ReserveRandomOutputs count, before its
// multiplier of 256).
inline uint64_t MultinomialOutputs(int64_t batch, int64_t samples) {
  return static_cast<uint64_t>(batch) * static_cast<uint64_t>((samples + 3) / 4 * 4 * 2);
}

// out[b, j] for each of `batch` rows of `classes` logits and `samples`
// draws, from `gen`'s stream.
template <typename T, typename Out>
void SampleMultinomial(const T* logits, int64_t batch, int64_t classes, int64_t samples,
                       PhiloxRandom gen, Out* out) {
  PhiloxSamples bits(&gen);
  std::vector<double> cdf(classes);
  for (int64_t b = 0; b < batch; ++b) {
    const T* row = logits + b * classes;
    T top = std::numeric_limits<T>::lowest();
    for (int64_t j = 0; j < classes; ++j) {
      if (std::isfinite(row[j])) top = std::max(top, row[j]);
    }
    double total = 0;
    for (int64_t j = 0; j < classes; ++j) {
      if (std::isfinite(row[j])) total += std::exp(static_cast<double>(row[j]) - top);
      cdf[j] = total;
    }
    for (int64_t j = 0; j < samples; ++j) {
      const uint32_t x0 = bits(), x1 = bits();
      const double u = philox_internal::Uint64ToDouble(x0, x1) * total;
      out[b * samples + j] =
          static_cast<Out>(std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
    }
  }
}

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_RANDOM_MULTINOMIAL_H_
