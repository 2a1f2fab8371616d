#include "runtime/engine/op_kernel.h"

#include "unsupported/Eigen/CXX11/Tensor"

namespace minigraph {

void OpKernelContext::ParallelFor(int64_t n, double bytes_loaded, double bytes_stored,
                                  double cycles,
                                  const std::function<void(int64_t, int64_t)>& fn) const {
  if (n <= 0) return;
  if (step_->device == nullptr) {
    fn(0, n);
    return;
  }
  step_->device->parallelFor(n, Eigen::TensorOpCost(bytes_loaded, bytes_stored, cycles),
                             [&fn](Eigen::Index begin, Eigen::Index end) { fn(begin, end); });
}

absl::Status OpKernelContext::allocate_output(int i, const TensorShape& shape, Tensor** out) {
  MG_ASSIGN_OR_RETURN(outputs_[i].tensor,
                      Tensor::Create(BaseType(expected_output_dtype(i)), shape, step_->allocator));
  *out = &outputs_[i].tensor;
  return absl::OkStatus();
}

}  // namespace minigraph
