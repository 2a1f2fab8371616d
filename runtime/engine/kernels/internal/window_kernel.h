// What the convolution kernels (Conv2D, Conv3D, DepthwiseConv2dNative and
// their gradients) share: the window their node's attrs describe, and the
// shape inputs of their gradients.

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_WINDOW_KERNEL_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_WINDOW_KERNEL_H_

#include <string>
#include <type_traits>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/op_kernel.h"
#include "runtime/graph/conv_util.h"

namespace minigraph {
namespace kernels_internal {

// A kernel over a 2-D (Window2D) or 3-D (Window3D) window: strides,
// padding, dilations from its node.
template <typename W>
class WindowKernelOf : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    if constexpr (std::is_same_v<W, Window2D>) {
      MG_ASSIGN_OR_RETURN(window_, Window2D::FromNode(c->def(), /*pool=*/false));
    } else {
      MG_ASSIGN_OR_RETURN(window_, W::FromNode(c->def()));
    }
    return absl::OkStatus();
  }

 protected:
  // "Conv2D 'name'", for messages.
  std::string Where() const { return absl::StrCat(type_string(), " '", name(), "'"); }
  W window_;
};
using WindowKernel = WindowKernelOf<Window2D>;

// A shape input of a gradient (input_sizes, filter_sizes) with `rank`
// elements: InvalidArgument naming `where` and `what` otherwise.
inline absl::StatusOr<TensorShape> RankedShapeInput(const Tensor& t, const std::string& where,
                                                    const char* what, int rank) {
  MG_ASSIGN_OR_RETURN(TensorShape s, ShapeFromTensor(t, absl::StrCat(where, ": ", what)));
  if (s.dims() != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", what, " must have ", rank, " elements, got ", s.dims()));
  }
  return s;
}

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_WINDOW_KERNEL_H_
