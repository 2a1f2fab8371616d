// What the tf.data kernels share (dataset_kernels.cc, the sources and the
// transformations): a dataset is an immutable `Dataset` in a DT_VARIANT
// scalar, made by its op from its inputs; a `DatasetIterator` walks one.
// Elements are made when IteratorGetNext asks for them, inside that step
// (its Env, variables, deadline and cancellation), except below a prefetch,
// a parallel map or a parallel interleave: there threads of the iterator's
// own make them ahead of the reader (`BackgroundWork`), as TensorFlow's do.

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_DATASET_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_DATASET_H_

#include <atomic>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>  // NOLINT(build/c++11): an iterator's own threads
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "core/tensor.h"
#include "core/variant.h"
#include "runtime/engine/op_kernel.h"
#include "runtime/engine/resource_mgr.h"
#include "runtime/graph/partial_shape.h"

namespace minigraph {
namespace kernels_internal {
namespace data {

// One element: a tensor per component.
using Element = std::vector<Tensor>;

// Walks a dataset once. Not thread-safe: the iterator resource serializes.
class DatasetIterator {
 public:
  virtual ~DatasetIterator() = default;
  // The next element into `out`, or `*end` = true after the last (and on
  // every later call).
  virtual absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end) = 0;
};

class Dataset : public VariantValue, public std::enable_shared_from_this<Dataset> {
 public:
  Dataset(std::string node, std::vector<DataType> dtypes, std::vector<PartialShape> shapes)
      : node_(std::move(node)), dtypes_(std::move(dtypes)), shapes_(std::move(shapes)) {}

  // TensorFlow's name for the wrapper its dataset variants hold.
  std::string TypeName() const override { return "tensorflow::DatasetVariantWrapper"; }
  std::string DebugString() const override;

  // The node that made the dataset, for messages.
  const std::string& node() const { return node_; }
  const std::vector<DataType>& dtypes() const { return dtypes_; }
  const std::vector<PartialShape>& shapes() const { return shapes_; }

  // A new iterator at the first element. It keeps the dataset alive.
  virtual std::unique_ptr<DatasetIterator> MakeIterator() const = 0;

 protected:
  template <typename T>
  std::shared_ptr<const T> self() const {
    return std::static_pointer_cast<const T>(shared_from_this());
  }

 private:
  const std::string node_;
  const std::vector<DataType> dtypes_;
  const std::vector<PartialShape> shapes_;
};

// "[int64, string]" and "[[2], ?]", for messages.
std::string TypesString(const std::vector<DataType>& types);
std::string ShapesString(const std::vector<PartialShape>& shapes);

// Between elements of a loop that pulls many (a batch, a shuffle buffer,
// skipped or filtered-out elements): a cancelled or timed-out step stops,
// as While does.
absl::Status CheckStep(const OpKernelContext* ctx, const std::string& dataset);

// The bytes an element holds (strings: their sizes; each tensor: its
// object and buffer header too), for the limits on what a batch, a shuffle
// buffer or a cache gathers.
size_t ElementBytes(const Element& e);

// ResourceExhausted when `bytes` gathered by `dataset` pass max_tensor_bytes.
absl::Status CheckGathered(size_t bytes, const std::string& dataset, absl::string_view what);

// The element's dtypes and shapes against what `what` declares.
absl::Status CheckElement(const Element& e, const std::vector<DataType>& dtypes,
                          const std::vector<PartialShape>& shapes, absl::string_view what);

// Reads the node's `types_attr` (output_types, or Toutput_types) and
// output_shapes attrs; for an op without them (TextLineDataset), `dtypes`
// and `shapes` stay as given.
absl::Status ElementSpec(OpKernelConstruction* c, const char* types_attr,
                         std::vector<DataType>* dtypes, std::vector<PartialShape>* shapes);

// Where an iterator's background threads make elements, outside any step:
// the session's variables, files, allocator and intra-op threads, as in the
// step whose GetNext started them, with a cancellation and per-call
// resources of their own and no deadline. The destructor cancels and joins
// the threads, so their owner destroys it before what they use.
class BackgroundWork {
 public:
  explicit BackgroundWork(const OpKernelContext& starter);
  ~BackgroundWork();
  BackgroundWork(const BackgroundWork&) = delete;
  BackgroundWork& operator=(const BackgroundWork&) = delete;

  // Runs `fn` on a thread of its own, with a context of its own (no kernel,
  // inputs or outputs: what a DatasetIterator uses).
  void Start(std::function<void(OpKernelContext*)> fn);
  // CheckStep fails in the threads from now on; they should return.
  void Cancel() { cancelled_.store(true); }
  bool cancelled() const { return cancelled_.load(); }

 private:
  StepContext step_;
  std::atomic<bool> cancelled_{false};
  ResourceMgr step_resources_;
  std::vector<const void*> pipelines_;  // the starter's (InsidePipelineOf)
  std::vector<std::thread> threads_;
};

// Whether the calling thread is inside a GetNext of `iterator` (an
// iterator resource), or is a background thread started by one: reading it
// again there would wait for itself. `ScopedPipeline` marks the inside.
bool InsidePipelineOf(const void* iterator);
class ScopedPipeline {
 public:
  explicit ScopedPipeline(const void* iterator);
  ~ScopedPipeline();
  ScopedPipeline(const ScopedPipeline&) = delete;
  ScopedPipeline& operator=(const ScopedPipeline&) = delete;
};

// Waits until `cond` holds, with `mu` held (it is held on return too); a
// cancelled or timed-out step (CheckStep) ends the wait with its error.
// The step's flag is not a condition `mu` sees change: asks every 20 ms.
absl::Status AwaitInStep(const OpKernelContext* ctx, const std::string& dataset, absl::Mutex* mu,
                         const absl::Condition& cond) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);

// tf.data.AUTOTUNE, for buffer sizes and num_parallel_calls.
inline constexpr int64_t kAutotune = -1;

// The threads a parallel map or interleave uses for `calls`
// (num_parallel_calls, AUTOTUNE: the machine's cores).
int64_t ParallelThreads(int64_t calls);

// InvalidArgument naming `where` unless `calls` (num_parallel_calls) is
// positive or AUTOTUNE, with TensorFlow's message.
absl::Status CheckParallelCalls(int64_t calls, const std::string& where);

// Pulls the elements of `input` on a thread of its own ahead of the reader:
// up to `buffer_size` of them, or with kAutotune a buffer that starts at one
// and doubles (up to 64) each time the reader finds it empty, as
// TensorFlow's legacy autotuning does. Every result the input gives is kept
// in order (elements, errors, the end), so a reader sees what reading the
// input itself would show. The thread starts on the first GetNext, or at
// once from `start`'s step when given. `budget`, when given, is shared with
// other prefetchers: at most that many of them make an element at once.
class CallBudget;
std::unique_ptr<DatasetIterator> MakePrefetchIterator(std::unique_ptr<DatasetIterator> input,
                                                      int64_t buffer_size, std::string node,
                                                      const OpKernelContext* start = nullptr,
                                                      std::shared_ptr<CallBudget> budget = nullptr);

// A count of calls that may run at once, shared by prefetchers.
class CallBudget {
 public:
  explicit CallBudget(int64_t calls) : free_(calls) {}
  // Takes a call; false (without one) once `ctx` is cancelled.
  bool Acquire(const OpKernelContext* ctx);
  void Release();

 private:
  absl::Mutex mu_;
  int64_t free_ ABSL_GUARDED_BY(mu_);
};

// The dataset `t` holds, or null when it is not a variant scalar holding one.
std::shared_ptr<const Dataset> DatasetIn(const Tensor& t);

// The base of every *Dataset kernel: reads the element spec (output_types
// and output_shapes, when the op has them), and outputs the dataset
// MakeDataset returns as a variant scalar.
class DatasetOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c);
  absl::Status Compute(OpKernelContext* ctx) const final;

 protected:
  virtual absl::StatusOr<std::shared_ptr<const Dataset>> MakeDataset(
      OpKernelContext* ctx) const = 0;

  // "ShuffleDataset 'shuffle'", for messages.
  std::string Where() const;

  // The dataset input `i` holds, checked against this node's element spec
  // when `same_spec` (transformations that pass elements through).
  absl::StatusOr<std::shared_ptr<const Dataset>> InputDataset(const OpKernelContext* ctx, int i,
                                                              bool same_spec) const;

  // A scalar int64 (or int32) input.
  absl::StatusOr<int64_t> ScalarInput(const OpKernelContext* ctx, int i,
                                      absl::string_view what) const;

  std::vector<DataType> dtypes_;
  std::vector<PartialShape> shapes_;
};

}  // namespace data
}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_DATASET_H_
