// What the convolution kernels (Conv2D, DepthwiseConv2dNative and their
// gradients) share: the window their node's attrs describe, and the shape
// inputs of their gradients.

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_WINDOW_KERNEL_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_WINDOW_KERNEL_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/op_kernel.h"
#include "runtime/graph/conv_util.h"

namespace minigraph {
namespace kernels_internal {

// A kernel over a 2-D window: strides, padding, dilations from its node.
class WindowKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_ASSIGN_OR_RETURN(window_, Window2D::FromNode(c->def(), /*pool=*/false));
    return absl::OkStatus();
  }

 protected:
  // "Conv2D 'name'", for messages.
  std::string Where() const { return absl::StrCat(type_string(), " '", name(), "'"); }
  Window2D window_;
};

// A 4-element shape input of a gradient (input_sizes, filter_sizes):
// InvalidArgument naming `where` and `what` otherwise.
inline absl::StatusOr<TensorShape> FourDimShapeInput(const Tensor& t, const std::string& where,
                                                     const char* what) {
  MG_ASSIGN_OR_RETURN(TensorShape s, ShapeFromTensor(t, absl::StrCat(where, ": ", what)));
  if (s.dims() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", what, " must have 4 elements, got ", s.dims()));
  }
  return s;
}

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_WINDOW_KERNEL_H_
