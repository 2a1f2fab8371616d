#include "runtime/engine/variable.h"

#include "absl/strings/str_cat.h"

namespace minigraph {

absl::Status UninitializedError(const std::string& name) {
  return absl::FailedPreconditionError(
      absl::StrCat("Attempting to use uninitialized value ", name));
}

Tensor* Var::mutable_value() {
  if (!tensor_.RefCountIsOne()) tensor_ = tensor::DeepCopy(tensor_);
  return &tensor_;
}

absl::StatusOr<Tensor> Var::Read() const {
  absl::ReaderMutexLock l(&mu_);
  if (!initialized_) return UninitializedError(name_);
  return tensor_;
}

}  // namespace minigraph
