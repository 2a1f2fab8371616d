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

int OpKernelContext::intra_op_threads() const {
  return step_->device == nullptr ? 1 : step_->device->numThreads();
}

absl::StatusOr<Var*> OpKernelContext::input_var(int i) const {
  if (inputs_[i].ref != nullptr) return inputs_[i].ref;
  const Tensor& t = inputs_[i].tensor;
  if (t.dtype() != DT_RESOURCE || t.NumElements() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("input ", i, " must be a variable or a resource handle, got ",
                     DataTypeString(t.dtype()), " ", t.shape().DebugString()));
  }
  return LookupVar(resource_manager(), t.data<ResourceHandle>()[0]);
}

absl::Status OpKernelContext::uninitialized_error(int i, const Var& v) const {
  if (inputs_[i].ref != nullptr) return UninitializedError(v.name());
  return VarNotFoundError(inputs_[i].tensor.data<ResourceHandle>()[0]);
}

absl::StatusOr<Tensor> OpKernelContext::read_variable(int i, DataType dtype) const {
  MG_ASSIGN_OR_RETURN(Var * v, input_var(i));
  absl::ReaderMutexLock l(v->mu());
  if (!v->is_initialized()) return uninitialized_error(i, *v);
  if (v->dtype() != dtype) {
    return absl::InvalidArgumentError(
        absl::StrCat("Trying to read variable ", v->name(), " with wrong dtype. Expected ",
                     DataTypeString(dtype), " got ", DataTypeString(v->dtype())));
  }
  return v->value();
}

absl::Status OpKernelContext::allocate_output(int i, const TensorShape& shape, Tensor** out) {
  MG_ASSIGN_OR_RETURN(outputs_[i].tensor,
                      Tensor::Create(BaseType(expected_output_dtype(i)), shape, step_->allocator));
  *out = &outputs_[i].tensor;
  return absl::OkStatus();
}

absl::Status OpKernelContext::forward_input_or_allocate_output(std::initializer_list<int> inputs,
                                                              int output,
                                                              const TensorShape& shape,
                                                              Tensor** out) {
  const DataType dtype = BaseType(expected_output_dtype(output));
  for (int i : inputs) {
    const Tensor& in = inputs_[i].tensor;
    if (inputs_[i].ref != nullptr || in.dtype() != dtype ||
        in.NumElements() != shape.num_elements() || !in.RefCountIsOne()) {
      continue;
    }
    absl::StatusOr<Tensor> reshaped = in.Reshaped(shape);
    if (!reshaped.ok()) continue;
    outputs_[output].tensor = *std::move(reshaped);
    *out = &outputs_[output].tensor;
    return absl::OkStatus();
  }
  return allocate_output(output, shape, out);
}

}  // namespace minigraph
