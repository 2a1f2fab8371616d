// The value of a DT_VARIANT that tf.experimental.Optional's ops make: a
// tuple of tensors, or none (optional_kernels.cc; ZerosLike in
// list_kernels.cc). Immutable once made, so safe for concurrent reads, as
// every VariantValue must be.

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_OPTIONAL_VALUE_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_OPTIONAL_VALUE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/tensor.h"
#include "core/variant.h"

namespace minigraph {
namespace kernels_internal {

class OptionalValue final : public VariantValue {
 public:
  explicit OptionalValue(std::optional<std::vector<Tensor>> value) : value(std::move(value)) {}
  std::string TypeName() const override { return "tensorflow::data::OptionalVariant"; }
  std::string DebugString() const override {
    return value ? absl::StrCat("Optional<", value->size(), " tensors>") : "Optional<none>";
  }
  const std::optional<std::vector<Tensor>> value;
};

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_OPTIONAL_VALUE_H_
