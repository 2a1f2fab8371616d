// A variable: a tensor that lives across steps, with the mutex that guards
// it. Held by a ResourceMgr; VariableV2 nodes output references to it.
//
//   absl::MutexLock l(var->mu());
//   if (!var->is_initialized()) ...;
//   var->set_value(t);

#ifndef MINIGRAPH_RUNTIME_ENGINE_VARIABLE_H_
#define MINIGRAPH_RUNTIME_ENGINE_VARIABLE_H_

#include <functional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/tensor.h"
#include "runtime/graph/partial_shape.h"

namespace minigraph {

// Safe for concurrent use through mu().
class Var {
 public:
  // `name` is the variable op's name, for error messages.
  // `declared_shape` is the VariableV2 node's shape attr (unknown rank when
  // the variable's shape may change).
  // `on_first_value` (may be empty) runs once, under the lock, when the
  // variable first gets a value: its ResourceMgr counts that as a change of
  // state (ResourceMgr::version).
  Var(DataType dtype, std::string name, PartialShape declared_shape = PartialShape(),
      std::function<void()> on_first_value = nullptr)
      : dtype_(dtype),
        name_(std::move(name)),
        declared_shape_(std::move(declared_shape)),
        on_first_value_(std::move(on_first_value)) {}
  Var(const Var&) = delete;
  Var& operator=(const Var&) = delete;

  DataType dtype() const { return dtype_; }
  const std::string& name() const { return name_; }
  const PartialShape& declared_shape() const { return declared_shape_; }
  absl::Mutex* mu() const ABSL_LOCK_RETURNED(mu_) { return &mu_; }

  bool is_initialized() const ABSL_SHARED_LOCKS_REQUIRED(mu_) { return initialized_; }
  // The current value; may alias tensors handed out earlier.
  const Tensor& value() const ABSL_SHARED_LOCKS_REQUIRED(mu_) { return tensor_; }
  // A tensor whose buffer no other holder shares, for updating in place: the
  // current buffer if unshared, else a copy (so earlier reads keep their
  // values). REQUIRES: initialized.
  Tensor* mutable_value() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void set_value(Tensor t) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    tensor_ = std::move(t);
    if (!initialized_ && on_first_value_) on_first_value_();
    initialized_ = true;
  }

  // Back to no value (a deleted resource variable).
  void Reset() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    tensor_ = Tensor();
    initialized_ = false;
  }

  // Returns the value, or FailedPrecondition with TensorFlow's text
  // "Attempting to use uninitialized value NAME". Takes the lock.
  absl::StatusOr<Tensor> Read() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const DataType dtype_;
  const std::string name_;
  const PartialShape declared_shape_;
  const std::function<void()> on_first_value_;
  mutable absl::Mutex mu_;
  Tensor tensor_ ABSL_GUARDED_BY(mu_);
  bool initialized_ ABSL_GUARDED_BY(mu_) = false;
};

absl::Status UninitializedError(const std::string& name);

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_VARIABLE_H_
