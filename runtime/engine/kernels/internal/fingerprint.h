// TensorFlow's string fingerprints and hashes, which hashed feature crosses
// and hash buckets are defined by: a model trained with TensorFlow puts a string in
// the bucket its Fingerprint64 names, so these must be exactly the same.

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_FINGERPRINT_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_FINGERPRINT_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace minigraph {
namespace kernels_internal {

// TensorFlow's Fingerprint64: FarmHash's Fingerprint64 (its "na" Hash64),
// which is fixed for all time.
uint64_t Fingerprint64(absl::string_view s);

// TensorFlow's FingerprintCat64: combines two fingerprints, in order.
uint64_t FingerprintCat64(uint64_t fp1, uint64_t fp2);

// TensorFlow's Hash64 (tensorflow/core/lib/hash): MurmurHash64A with
// TensorFlow's seed, 0xDECAFCAFFE. StringToHashBucket's hash (its
// successors use Fingerprint64, which does not change between releases).
uint64_t TensorFlowHash64(absl::string_view s);

// TensorFlow's StrongKeyedHash: SipHash-2-4 of `s` under a 128-bit key
// (highwayhash's, the library TensorFlow uses).
uint64_t StrongKeyedHash(const uint64_t (&key)[2], absl::string_view s);

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_FINGERPRINT_H_
