// ZerosLike and AddN of TensorLists (DT_VARIANT), which gradients through
// TensorList ops make: a list of the same length whose items are all unset
// (an unset item reads as zeros), and the item-wise sum of lists of one
// length (unset items count as zeros). Defined in list_kernels.cc, where
// TensorList is; array_kernels.cc and cwise_add_kernels.cc dispatch their
// DT_VARIANT nodes here.
#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_LIST_MATH_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_LIST_MATH_H_

#include <memory>

#include "absl/status/statusor.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {

absl::StatusOr<std::unique_ptr<OpKernel>> MakeZerosLikeListKernel(OpKernelConstruction* c);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeAddNListKernel(OpKernelConstruction* c);

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_LIST_MATH_H_
