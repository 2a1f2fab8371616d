#include "runtime/graph/ops/tensorflow_op_defs.h"

#include <algorithm>
#include <cstddef>

#include "core/logging.h"

namespace minigraph {
namespace ops_internal {
// The serialized OpList of tensorflow_op_defs.pbtxt (a genrule's output).
extern const unsigned char kTensorFlowOpDefs[];
extern const size_t kTensorFlowOpDefsSize;
}  // namespace ops_internal

const OpList& TensorFlowOpDefs() {
  static const OpList* const ops = [] {
    auto* list = new OpList;
    // protoc wrote these bytes from the checked-in text at build time, so a
    // failure to parse them is a broken build, not a bad input.
    MG_CHECK(list->ParseFromArray(ops_internal::kTensorFlowOpDefs,
                                  static_cast<int>(ops_internal::kTensorFlowOpDefsSize)))
        << "the compiled-in TensorFlow op definitions do not parse";
    return list;
  }();
  return *ops;
}

const OpDef* FindTensorFlowOpDef(absl::string_view name) {
  const auto& ops = TensorFlowOpDefs().op();
  auto it = std::lower_bound(ops.begin(), ops.end(), name,
                             [](const OpDef& op, absl::string_view n) { return op.name() < n; });
  return it != ops.end() && it->name() == name ? &*it : nullptr;
}

}  // namespace minigraph
