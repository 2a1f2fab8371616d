// The values of a tf.train.Feature by the dtype a parsing op asks for:
// shared by the Example and SequenceExample parsers.
#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_EXAMPLE_FEATURES_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_EXAMPLE_FEATURES_H_

#include <algorithm>
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/proto/example.pb.h"
#include "core/tensor.h"
#include "runtime/engine/op_kernel.h"
#include "runtime/graph/partial_shape.h"

namespace minigraph {
namespace kernels_internal {

inline const char* KindName(DataType dt) {
  return dt == DT_FLOAT ? "float" : dt == DT_INT64 ? "int64" : "string";
}

// The number of values of `f` if they are of `dt`, else -1.
inline int64_t CountOf(const Feature& f, DataType dt) {
  switch (f.kind_case()) {
    case Feature::kFloatList:
      return dt == DT_FLOAT ? f.float_list().value_size() : -1;
    case Feature::kInt64List:
      return dt == DT_INT64 ? f.int64_list().value_size() : -1;
    case Feature::kBytesList:
      return dt == DT_STRING ? f.bytes_list().value_size() : -1;
    default:
      return 0;  // no kind: an empty list of any type
  }
}

inline const char* FeatureKindName(const Feature& f) {
  switch (f.kind_case()) {
    case Feature::kFloatList:
      return "float";
    case Feature::kInt64List:
      return "int64";
    default:
      return "string";
  }
}

// Copies the values of `f` (of `dt`, checked) into `out` at `at`.
inline void CopyValues(const Feature& f, DataType dt, Tensor* out, int64_t at) {
  if (dt == DT_FLOAT) {
    const auto& v = f.float_list().value();
    std::copy(v.begin(), v.end(), out->data<float>() + at);
  } else if (dt == DT_INT64) {
    const auto& v = f.int64_list().value();
    std::copy(v.begin(), v.end(), out->data<int64_t>() + at);
  } else {
    const auto& v = f.bytes_list().value();
    std::copy(v.begin(), v.end(), out->data<std::string>() + at);
  }
}

// The name of example i in messages ("<unknown>" without names).
using ExampleName = std::function<std::string(int64_t)>;

// The feature `key` of `features`, or null when absent or of no kind;
// InvalidArgument naming it when its values are not of `dt`.
absl::Status FindFeature(const Features& features, const std::string& key, DataType dt,
                         const std::string& name, const Feature** f);

// Writes one feature of every example (null: absent) to the op's outputs,
// as ParseExampleV2 does; `scalar` when the op parsed one example without a
// batch dimension.
//   sparse  outputs {indices [n, 2], values [n], dense shape [batch, longest]}
//   dense   [batch] + shape, missing values from `def` (an error when it is
//           empty); a first dimension of -1 is variable-length, padded with
//           the scalar `def`
//   ragged  outputs {values [n], row splits [batch + 1]}
absl::Status WriteSparse(OpKernelContext* ctx, std::array<int, 3> outputs, DataType dt,
                         const std::vector<const Feature*>& features, bool scalar);
absl::Status WriteDense(OpKernelContext* ctx, int output, DataType dt, const PartialShape& shape,
                        const Tensor& def, const std::vector<const Feature*>& features,
                        bool scalar, const std::string& key, int j, const ExampleName& name);
absl::Status WriteRagged(OpKernelContext* ctx, std::array<int, 2> outputs, DataType dt,
                         DataType split_dt, const std::vector<const Feature*>& features,
                         bool scalar);

// Fills n elements of `out` from `at` with `def`'s elements from `from` on
// (or its first alone, or zeros / empty strings when it is empty).
void FillFrom(const Tensor& def, bool first_only, DataType dt, Tensor* out, int64_t at,
              int64_t n, int64_t from);
// Row split i of `splits` (int32 or int64).
void SetSplit(Tensor* splits, int64_t i, int64_t v);

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_EXAMPLE_FEATURES_H_
