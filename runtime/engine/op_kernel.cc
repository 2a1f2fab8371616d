#include "runtime/engine/op_kernel.h"

namespace minigraph {

absl::Status OpKernelContext::allocate_output(int i, const TensorShape& shape, Tensor** out) {
  MG_ASSIGN_OR_RETURN(outputs_[i].tensor,
                      Tensor::Create(BaseType(expected_output_dtype(i)), shape, step_->allocator));
  *out = &outputs_[i].tensor;
  return absl::OkStatus();
}

}  // namespace minigraph
