#include "runtime/engine/op_kernel.h"

#include <algorithm>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minigraph {

namespace {

// One ParallelFor's blocks, claimed one at a time by the calling thread and
// by the pool threads it asked to help. Hand-written rather than Eigen's
// parallelFor, which hands every block to the pool and sleeps until the
// last is done: on a busy or small machine a pool thread may start tens of
// microseconds late, and a step of many small kernels (an LSTM's loop)
// spent more time waiting for them than computing. Here the caller claims
// blocks too, so a late helper finds nothing left and the caller waits
// only for blocks already running. Shared, so that a helper that starts
// after the call returned touches nothing of the caller's.
struct ParallelForState {
  ParallelForState(int64_t n, int64_t blocks, const std::function<void(int64_t, int64_t)>* fn)
      : n(n), blocks(blocks), unfinished(blocks), fn(fn) {}

  // Runs blocks until none is left unclaimed. `fn` is read only for a
  // claimed block, while the caller still waits for it.
  void Work() {
    for (int64_t b; (b = next.fetch_add(1, std::memory_order_relaxed)) < blocks;) {
      (*fn)(n * b / blocks, n * (b + 1) / blocks);
      if (unfinished.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        absl::MutexLock l(&mu);
        done = true;
      }
    }
  }

  const int64_t n, blocks;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> unfinished;
  const std::function<void(int64_t, int64_t)>* const fn;
  absl::Mutex mu;
  bool done ABSL_GUARDED_BY(mu) = false;
};

// Blocks per participating thread: those that start late or run slower
// take fewer.
constexpr int64_t kBlocksPerThread = 4;
// How long the caller polls for helpers' last blocks before it sleeps
// (a few microseconds: blocks are short).
constexpr int kWaitSpins = 2000;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

void OpKernelContext::ParallelFor(int64_t n, double bytes_loaded, double bytes_stored,
                                  double cycles,
                                  const std::function<void(int64_t, int64_t)>& fn) const {
  if (n <= 0) return;
  const Eigen::ThreadPoolDevice* device = step_->device;
  const int threads =
      device == nullptr || n == 1
          ? 1
          : Eigen::TensorCostModel<Eigen::ThreadPoolDevice>::numThreads(
                static_cast<double>(n), Eigen::TensorOpCost(bytes_loaded, bytes_stored, cycles),
                device->numThreads());
  if (threads <= 1) {
    fn(0, n);
    return;
  }
  const auto state = std::make_shared<ParallelForState>(
      n, std::min<int64_t>(n, kBlocksPerThread * threads), &fn);
  for (int i = 1; i < threads; ++i) device->getPool()->Schedule([state] { state->Work(); });
  state->Work();
  for (int i = 0; i < kWaitSpins && state->unfinished.load(std::memory_order_acquire) > 0; ++i) {
    CpuRelax();
  }
  if (state->unfinished.load(std::memory_order_acquire) > 0) {
    absl::MutexLock l(&state->mu, absl::Condition(&state->done));
  }
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
