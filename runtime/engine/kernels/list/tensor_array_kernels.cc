// TensorArray and stack kernels: TensorFlow 1's per-step containers
// (tf.TensorArray in graph mode, which dynamic_rnn accumulates into, and
// the stacks a TensorFlow 1 while loop's gradient keeps iterations' values
// in). Both live in the step's own resources (StepContext::step_resources),
// so they are freed when the step ends, and a handle means nothing in
// another step. Items share the buffers written to them; reading with
// clear_after_read drops the array's reference. A gradient array
// (TensorArrayGradV3) adds writes to one index together and reads an index
// nothing was written to as zeros of the forward item's shape. The
// semantics and messages are TensorFlow's (tensorflow/core/kernels/
// tensor_array.h, tensor_array_ops.cc, stack.cc). The V3 kernels also run
// the ops of TensorFlow before 1.0 (TensorArrayV2 and the rest, whose
// handles are string vectors) and the first Stack ops (a reference to such
// a vector), and TensorArrayGradWithShape.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/graph/partial_shape.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// TensorFlow's type names, as "Resource .../N10tensorflow11TensorArrayE does
// not exist" prints them.
constexpr char kArrayTypeName[] = "N10tensorflow11TensorArrayE";
constexpr char kStackTypeName[] = "N10tensorflow5StackE";

absl::Status ZeroFill(Tensor* t) {
  if (DataTypeCanUseMemcpy(t->dtype())) {
    if (t->TotalBytes() > 0) std::memset(t->raw_data(), 0, t->TotalBytes());
    return absl::OkStatus();
  }
  return absl::UnimplementedError(
      absl::StrCat("zeros of ", DataTypeString(t->dtype()), " for a TensorArray item"));
}

template <typename T>
void AddInto(const Tensor& a, const Tensor& b, Tensor* out) {
  const T* x = a.data<T>();
  const T* y = b.data<T>();
  T* z = out->data<T>();
  for (int64_t i = 0, n = out->NumElements(); i < n; ++i) z[i] = x[i] + y[i];
}

// a + b, element-wise, into a new tensor (neither input is modified: both
// may be shared).
absl::StatusOr<Tensor> Sum(const Tensor& a, const Tensor& b) {
  MG_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(a.dtype(), a.shape()));
  switch (a.dtype()) {
#define MG_SUM_CASE(T)           \
  case DataTypeToEnum<T>::value: \
    AddInto<T>(a, b, &out);      \
    return out;
    MG_SUM_CASE(float)
    MG_SUM_CASE(double)
    MG_SUM_CASE(int32_t)
    MG_SUM_CASE(int64_t)
    MG_SUM_CASE(complex64)
    MG_SUM_CASE(complex128)
#undef MG_SUM_CASE
    default:
      return absl::UnimplementedError(
          absl::StrCat("adding TensorArray items of ", DataTypeString(a.dtype())));
  }
}

class TensorArray final : public Resource {
 public:
  struct Options {
    DataType dtype = DT_INVALID;
    PartialShape element_shape;
    bool dynamic_size = false;
    bool clear_after_read = true;
    bool identical_element_shapes = false;
    // A gradient array: writes to one index add up, unwritten indices read
    // as zeros, and its size does not change.
    bool is_grad = false;
  };

  TensorArray(std::string name, const Options& options, int64_t size)
      : name_(std::move(name)),
        dtype_(options.dtype),
        clear_after_read_(options.clear_after_read),
        identical_element_shapes_(options.identical_element_shapes),
        is_grad_(options.is_grad),
        element_shape_(options.element_shape),
        dynamic_size_(options.dynamic_size),
        entries_(size) {}

  std::string TypeName() const override { return "tensorflow::TensorArray"; }
  const std::string& name() const { return name_; }
  DataType dtype() const { return dtype_; }

  PartialShape element_shape() const {
    absl::MutexLock l(&mu_);
    return element_shape_;
  }

  absl::StatusOr<int64_t> Size() const {
    absl::MutexLock l(&mu_);
    MG_RETURN_IF_ERROR(CheckOpen());
    return static_cast<int64_t>(entries_.size());
  }

  // The number of items Concat joins: for a gradient array, the forward
  // array's size after its last Split or Scatter, when it had one.
  absl::StatusOr<int64_t> ConcatSize() const {
    absl::MutexLock l(&mu_);
    MG_RETURN_IF_ERROR(CheckOpen());
    return is_grad_ && marked_size_ >= 0 ? marked_size_ : static_cast<int64_t>(entries_.size());
  }

  bool dynamic_size() const {
    absl::MutexLock l(&mu_);
    return dynamic_size_;
  }

  // Writes values[k] at indices[k], last to first (so a dynamic array grows
  // once), under one lock. `marked_size` >= 0 records a Split or Scatter.
  absl::Status WriteMany(const std::vector<int64_t>& indices, std::vector<Tensor> values,
                         int64_t marked_size = -1) {
    absl::MutexLock l(&mu_);
    for (size_t k = values.size(); k-- > 0;) {
      MG_RETURN_IF_ERROR(LockedWrite(indices[k], std::move(values[k])));
    }
    if (marked_size >= 0 && !is_grad_) marked_size_ = marked_size;
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<Tensor>> ReadMany(const std::vector<int64_t>& indices) {
    absl::MutexLock l(&mu_);
    std::vector<Tensor> out;
    out.reserve(indices.size());
    for (int64_t index : indices) {
      MG_ASSIGN_OR_RETURN(out.emplace_back(), LockedRead(index));
    }
    return out;
  }

  void Close() {
    absl::MutexLock l(&mu_);
    entries_.clear();
    closed_ = true;
  }

  // The gradient array for source `key`: as long as this one, each index
  // that holds an item here reading as zeros of its shape (after the
  // dimensions of `prepend`, when given) until written. From then on this
  // array's size is fixed. FailedPrecondition when this array was itself
  // aggregated into.
  absl::StatusOr<std::unique_ptr<TensorArray>> MakeGrad(std::string key,
                                                        const std::vector<int64_t>* prepend) {
    absl::MutexLock l(&mu_);
    MG_RETURN_IF_ERROR(CheckOpen());
    if (gradients_disallowed_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Unable to create a gradients TensorArray for ", name_,
          ".  Perhaps you used the multiple_writes_aggregate flag on a previous write?  Gradient "
          "calculation is impossible when multiple writes are performed to the same index."));
    }
    dynamic_size_ = false;
    Options o;
    o.dtype = dtype_;
    o.element_shape = element_shape_;
    if (prepend != nullptr) {
      if (!element_shape_.rank_known()) {
        o.element_shape = PartialShape();
      } else {
        std::vector<int64_t> dims = *prepend;
        dims.insert(dims.end(), element_shape_.dims().begin(), element_shape_.dims().end());
        o.element_shape = PartialShape(std::move(dims));
      }
    }
    o.clear_after_read = true;
    o.identical_element_shapes = identical_element_shapes_;
    o.is_grad = true;
    auto grad = std::make_unique<TensorArray>(std::move(key), o, entries_.size());
    absl::MutexLock gl(&grad->mu_);  // (Nothing else can see it yet.)
    grad->marked_size_ = marked_size_;
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (!entries_[i].written) continue;
      grad->entries_[i].shape = entries_[i].shape;
      if (prepend != nullptr) {
        std::vector<int64_t> dims = *prepend;
        dims.insert(dims.end(), entries_[i].shape.dim_sizes().begin(),
                    entries_[i].shape.dim_sizes().end());
        MG_ASSIGN_OR_RETURN(grad->entries_[i].shape, TensorShape::Build(dims));
      }
      grad->entries_[i].written = true;  // zeros of that shape
    }
    return grad;
  }

 private:
  struct Entry {
    Tensor tensor;  // Uninitialized for zeros of `shape` not yet made.
    TensorShape shape;
    bool written = false;
    bool read = false;
    bool cleared = false;
  };

  absl::Status CheckOpen() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (closed_) {
      return absl::InvalidArgumentError(
          absl::StrCat("TensorArray ", name_, " has already been closed."));
    }
    return absl::OkStatus();
  }

  absl::Status LockedWrite(int64_t index, Tensor value) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    MG_RETURN_IF_ERROR(CheckOpen());
    const int64_t size = static_cast<int64_t>(entries_.size());
    if (index < 0 || (!dynamic_size_ && index >= size)) {
      return absl::InvalidArgumentError(
          absl::StrCat("TensorArray ", name_, ": Tried to write to index ", index,
                       " but array is not resizeable and size is: ", size));
    }
    if (index >= size) {
      MG_RETURN_IF_ERROR(CheckScratchSize(index + 1, sizeof(Entry), "TensorArray index"));
      entries_.resize(index + 1);
    }
    Entry& e = entries_[index];
    const std::string prefix =
        absl::StrCat("TensorArray ", name_, ": Could not write to TensorArray index ", index);
    if (value.dtype() != dtype_) {
      return absl::InvalidArgumentError(
          absl::StrCat(prefix, " because the value dtype is ", DataTypeString(value.dtype()),
                       " but TensorArray dtype is ", DataTypeString(dtype_), "."));
    }
    if (!element_shape_.IsCompatibleWith(value.shape())) {
      return absl::InvalidArgumentError(
          absl::StrCat(prefix, " because the value shape is ", value.shape().DebugString(),
                       " which is incompatible with the TensorArray's inferred element shape: ",
                       element_shape_.DebugString(), " (consider setting infer_shape=False)."));
    }
    if (identical_element_shapes_ && !element_shape_.IsFullyDefined()) {
      element_shape_ = PartialShape::FromShape(value.shape());
    }
    if (e.read) {
      return absl::InvalidArgumentError(absl::StrCat(prefix, " because it has already been read."));
    }
    if (!e.written) {
      e.shape = value.shape();
      e.tensor = std::move(value);
      e.written = true;
      return absl::OkStatus();
    }
    if (!is_grad_) {
      return absl::InvalidArgumentError(
          absl::StrCat(prefix, " because it has already been written to."));
    }
    if (value.shape() != e.shape) {
      return absl::InvalidArgumentError(
          absl::StrCat("TensorArray ", name_, ": Could not aggregate to TensorArray index ", index,
                       " because the existing shape is ", e.shape.DebugString(),
                       " but the new input shape is ", value.shape().DebugString(), "."));
    }
    if (!e.tensor.IsInitialized() || e.tensor.NumElements() == 0) {
      e.tensor = std::move(value);  // What was there were zeros.
      return absl::OkStatus();
    }
    MG_ASSIGN_OR_RETURN(e.tensor, Sum(e.tensor, value));
    gradients_disallowed_ = true;
    return absl::OkStatus();
  }

  absl::StatusOr<Tensor> LockedRead(int64_t index) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    MG_RETURN_IF_ERROR(CheckOpen());
    const int64_t size = static_cast<int64_t>(entries_.size());
    if (index < 0 || (!is_grad_ && index >= size)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Tried to read from index ", index, " but array size is: ", size));
    }
    if (index >= size || !entries_[index].written) {
      // Nothing written: zeros, of the forward item's shape for a gradient
      // array, else of the element shape when it is fully known.
      TensorShape shape;
      if (is_grad_ && index < size && entries_[index].shape.dims() > 0) {
        shape = entries_[index].shape;
      } else if (!element_shape_.IsFullyDefined()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "TensorArray ", name_, ": Could not read from TensorArray index ", index,
            ".  Furthermore, the element shape is not fully defined: ",
            element_shape_.DebugString(),
            ".  It is possible you are working with a resizeable TensorArray and "
            "stop_gradients is not allowing the gradients to be written.  If you set the full "
            "element_shape property on the forward TensorArray, the proper all-zeros tensor "
            "will be returned instead of incurring this error."));
      } else {
        MG_ASSIGN_OR_RETURN(shape, TensorShape::Build(element_shape_.dims()));
      }
      if (index >= size) {
        MG_RETURN_IF_ERROR(CheckScratchSize(index + 1, sizeof(Entry), "TensorArray index"));
        entries_.resize(index + 1);
        for (int64_t i = size; i <= index; ++i) {
          entries_[i].shape = shape;
          entries_[i].written = true;
        }
      }
      entries_[index].shape = shape;
      entries_[index].written = true;
    }
    Entry& e = entries_[index];
    if (e.cleared) {
      return absl::InvalidArgumentError(
          absl::StrCat("TensorArray ", name_, ": Could not read index ", index,
                       " twice because it was cleared after a previous read (perhaps try setting "
                       "clear_after_read = false?)."));
    }
    if (!e.tensor.IsInitialized()) {
      MG_ASSIGN_OR_RETURN(e.tensor, Tensor::Create(dtype_, e.shape));
      MG_RETURN_IF_ERROR(ZeroFill(&e.tensor));
    }
    Tensor out = e.tensor;
    if (clear_after_read_) {
      e.tensor = Tensor();
      e.cleared = true;
    }
    e.read = true;
    return out;
  }

  const std::string name_;
  const DataType dtype_;
  const bool clear_after_read_;
  const bool identical_element_shapes_;
  const bool is_grad_;

  mutable absl::Mutex mu_;
  PartialShape element_shape_ ABSL_GUARDED_BY(mu_);
  bool dynamic_size_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool gradients_disallowed_ ABSL_GUARDED_BY(mu_) = false;
  // The size after the last Split or Scatter (-1: none); copied to the
  // gradient arrays, whose Concat joins that many.
  int64_t marked_size_ ABSL_GUARDED_BY(mu_) = -1;
  std::vector<Entry> entries_ ABSL_GUARDED_BY(mu_);
};

// A stack of tensors (StackV2): pushed in a while loop going forward, popped
// by its gradient's loop going back.
class Stack final : public Resource {
 public:
  Stack(std::string name, DataType dtype, int64_t max_size)
      : name_(std::move(name)), dtype_(dtype), max_size_(max_size) {}
  std::string TypeName() const override { return "tensorflow::Stack"; }
  const std::string& name() const { return name_; }

  absl::Status Push(const Tensor& t) {
    if (t.dtype() != dtype_) {
      return absl::InvalidArgumentError(absl::StrCat("Stack[", name_, "]: must have type ",
                                                     DataTypeString(dtype_), " but got ",
                                                     DataTypeString(t.dtype())));
    }
    absl::MutexLock l(&mu_);
    MG_RETURN_IF_ERROR(CheckOpen());
    if (max_size_ >= 0 && static_cast<int64_t>(items_.size()) >= max_size_) {
      return absl::InvalidArgumentError(
          absl::StrCat("Stack[", name_, "] overflowed its max_size (", max_size_, ")"));
    }
    items_.push_back(t);
    return absl::OkStatus();
  }

  absl::StatusOr<Tensor> Pop(DataType dtype) {
    if (dtype != dtype_) {
      return absl::InvalidArgumentError(absl::StrCat("Stack[", name_, "] holds ",
                                                     DataTypeString(dtype_), " but the op pops ",
                                                     DataTypeString(dtype)));
    }
    absl::MutexLock l(&mu_);
    MG_RETURN_IF_ERROR(CheckOpen());
    if (items_.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("Stack[", name_, "] is empty."));
    }
    Tensor t = std::move(items_.back());
    items_.pop_back();
    return t;
  }

  void Close() {
    absl::MutexLock l(&mu_);
    items_.clear();
    closed_ = true;
  }

 private:
  absl::Status CheckOpen() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (closed_) {
      return absl::InvalidArgumentError(
          absl::StrCat("Stack[", name_, "] has already been closed."));
    }
    return absl::OkStatus();
  }

  const std::string name_;
  const DataType dtype_;
  const int64_t max_size_;  // negative: no limit
  absl::Mutex mu_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<Tensor> items_ ABSL_GUARDED_BY(mu_);
};

std::string StepContainer(const OpKernelContext* ctx) {
  return absl::StrCat("__per_step_", ctx->step_id());
}

// A handle to the step resource `name`, of TensorFlow's type `type_name`,
// in the form the kernel's output 0 takes: a resource handle (the V3 ops,
// StackV2) or the string vector (container, name) of TensorFlow before 1.0
// (TensorArrayV2, TensorArrayGradV2).
Tensor MakeStepHandle(const OpKernelContext* ctx, const std::string& name, const char* type_name) {
  if (BaseType(ctx->expected_output_dtype(0)) == DT_STRING) {
    Tensor t(DT_STRING, TensorShape({2}));
    t.data<std::string>()[0] = StepContainer(ctx);
    t.data<std::string>()[1] = name;
    return t;
  }
  Tensor t = Tensor::Scalar<ResourceHandle>(ResourceHandle());
  ResourceHandle& h = *t.data<ResourceHandle>();
  h.set_device("/job:localhost/replica:0/task:0/device:CPU:0");
  h.set_container(StepContainer(ctx));
  h.set_name(name);
  h.set_maybe_type_name(type_name);
  return t;
}

Tensor MakeHandle(const OpKernelContext* ctx, const TensorArray& ta) {
  Tensor t = MakeStepHandle(ctx, ta.name(), kArrayTypeName);
  if (t.dtype() != DT_RESOURCE) return t;
  ResourceHandleProto::DtypeAndShape* ds = t.data<ResourceHandle>()->add_dtypes_and_shapes();
  ds->set_dtype(ta.dtype());
  ta.element_shape().AsProto(ds->mutable_shape());
  return t;
}

// (container, name) of the step resource input `i` names: a resource
// handle, a string vector (container, name), or a reference to one (Stack).
absl::StatusOr<std::pair<std::string, std::string>> HandleInput(const OpKernelContext* ctx,
                                                                int i) {
  Tensor t = ctx->input(i);
  if (Var* v = ctx->input_ref(i); v != nullptr) {
    absl::MutexLock l(v->mu());
    if (!v->is_initialized()) {
      return absl::FailedPreconditionError(
          absl::StrCat("the stack handle '", v->name(), "' has no value"));
    }
    t = v->value();
  }
  if (t.dtype() == DT_RESOURCE && t.NumElements() == 1) {
    const ResourceHandle& h = *t.data<ResourceHandle>();
    return std::make_pair(h.container(), h.name());
  }
  if (t.dtype() == DT_STRING && t.dims() == 1 && t.dim_size(0) == 2) {
    return std::make_pair(t.data<std::string>()[0], t.data<std::string>()[1]);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "a handle must be a scalar resource or a string vector (container, name), got ",
      DataTypeString(t.dtype()), " ", t.shape().DebugString()));
}

// The resource of type R (TensorArray or Stack, TensorFlow's type name
// `type_name`) that input `i`'s handle names, in this step.
template <typename R>
absl::StatusOr<std::shared_ptr<R>> StepResourceInput(const OpKernelContext* ctx, int i,
                                                     const char* type_name) {
  MG_ASSIGN_OR_RETURN(auto h, HandleInput(ctx, i));
  std::shared_ptr<R> r;
  if (ctx->step_resources() != nullptr) {
    r = std::dynamic_pointer_cast<R>(ctx->step_resources()->FindResource(h.first, h.second));
  }
  if (r == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("Resource ", h.first, "/", h.second, "/", type_name, " does not exist."));
  }
  return r;
}

absl::StatusOr<std::shared_ptr<TensorArray>> ArrayInput(const OpKernelContext* ctx, int i) {
  return StepResourceInput<TensorArray>(ctx, i, kArrayTypeName);
}

absl::StatusOr<std::shared_ptr<Stack>> StackInput(const OpKernelContext* ctx, int i) {
  return StepResourceInput<Stack>(ctx, i, kStackTypeName);
}

absl::StatusOr<int64_t> ScalarInt(const Tensor& t, absl::string_view what) {
  if (t.dims() != 0 || (t.dtype() != DT_INT32 && t.dtype() != DT_INT64)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be an integer scalar, but had shape: ", t.shape().DebugString()));
  }
  return t.dtype() == DT_INT64 ? *t.data<int64_t>() : *t.data<int32_t>();
}

absl::Status CheckDtype(const TensorArray& ta, DataType requested) {
  if (ta.dtype() != requested) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorArray dtype is ", DataTypeString(ta.dtype()),
                     " but Op requested dtype ", DataTypeString(requested), "."));
  }
  return absl::OkStatus();
}

// Rows [begin, begin + n) of `value` as one tensor of `shape`.
absl::StatusOr<Tensor> Rows(const Tensor& value, int64_t begin, const TensorShape& shape) {
  MG_ASSIGN_OR_RETURN(Tensor piece, Tensor::Create(value.dtype(), shape));
  const int64_t row =
      value.dims() == 0 ? 1 : value.NumElements() / std::max<int64_t>(value.dim_size(0), 1);
  CopyElements(value, begin * row, &piece, 0, piece.NumElements());
  return piece;
}

// `items`, all of one shape, stacked along a new dimension 0.
absl::StatusOr<Tensor> StackItems(DataType dtype, const std::vector<Tensor>& items,
                                  const PartialShape& element_shape) {
  if (items.empty()) {
    if (!element_shape.IsFullyDefined()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorArray has size zero, but element shape ", element_shape.DebugString(),
          " is not fully defined. Currently only static shapes are supported when packing "
          "zero-size TensorArrays."));
    }
    std::vector<int64_t> dims = {0};
    dims.insert(dims.end(), element_shape.dims().begin(), element_shape.dims().end());
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    return Tensor::Create(dtype, shape);
  }
  const TensorShape& first = items[0].shape();
  if (!element_shape.IsCompatibleWith(first)) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorArray was passed element_shape ", element_shape.DebugString(),
                     " which does not match the Tensor at index 0: ", first.DebugString()));
  }
  for (size_t i = 1; i < items.size(); ++i) {
    if (items[i].shape() != first) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorArray has inconsistent shapes.  Index 0 has shape: ", first.DebugString(),
          " but index ", i, " has shape: ", items[i].shape().DebugString()));
    }
  }
  std::vector<int64_t> dims = {static_cast<int64_t>(items.size())};
  dims.insert(dims.end(), first.dim_sizes().begin(), first.dim_sizes().end());
  MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
  MG_RETURN_IF_ERROR(
      CheckScratchSize(shape.num_elements(), DataTypeSize(dtype), "TensorArray gather"));
  MG_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(dtype, shape));
  const int64_t n = first.num_elements();
  for (size_t i = 0; i < items.size(); ++i) CopyElements(items[i], 0, &out, i * n, n);
  return out;
}

class TensorArrayOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("dtype", &options_.dtype));
    MG_RETURN_IF_ERROR(c->GetAttr("element_shape", &options_.element_shape));
    MG_RETURN_IF_ERROR(c->GetAttr("dynamic_size", &options_.dynamic_size));
    MG_RETURN_IF_ERROR(c->GetAttr("clear_after_read", &options_.clear_after_read));
    if (c->def().attr().count("identical_element_shapes")) {  // not TensorArrayV2's
      MG_RETURN_IF_ERROR(
          c->GetAttr("identical_element_shapes", &options_.identical_element_shapes));
    }
    MG_RETURN_IF_ERROR(c->GetAttr("tensor_array_name", &base_name_));
    if (base_name_.empty()) base_name_ = c->def().name();
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& size_t_ = ctx->input(0);
    if (size_t_.dims() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorArray size must be scalar, but had shape: ", size_t_.shape().DebugString()));
    }
    const int64_t size = *size_t_.data<int32_t>();
    if (size < 0) return absl::InvalidArgumentError("Size should be >= 0.");
    MG_RETURN_IF_ERROR(CheckScratchSize(size, sizeof(Tensor) * 2, "TensorArray size"));
    // Unique per process, as TensorFlow's counter makes it.
    static std::atomic<int64_t> counter{0};
    const std::string name = absl::StrCat(base_name_, "_", counter.fetch_add(1));
    MG_ASSIGN_OR_RETURN(
        std::shared_ptr<Resource> r,
        ctx->step_resources()->LookupOrCreateResource(StepContainer(ctx), name, [&] {
          return std::make_unique<TensorArray>(name, options_, size);
        }));
    ctx->set_output(0, MakeHandle(ctx, static_cast<const TensorArray&>(*r)));
    if (ctx->num_outputs() > 1) ctx->set_output(1, Tensor::Scalar<float>(0.0f));  // not V2's
    return absl::OkStatus();
  }

 private:
  TensorArray::Options options_;
  std::string base_name_;
};

// TensorArrayGradV3, TensorArrayGradV2 (no flow out), and
// TensorArrayGradWithShape: its items' shapes are shape_to_prepend's
// dimensions, then the forward items'.
class GradOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    with_shape_ = c->def().op() == "TensorArrayGradWithShape";
    return c->GetAttr("source", &source_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> ta, ArrayInput(ctx, 0));
    MG_ASSIGN_OR_RETURN(auto h, HandleInput(ctx, 0));
    std::vector<int64_t> prepend;
    if (with_shape_) {
      const Tensor& shape = ctx->input(2);
      if (shape.dims() != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("shape_to_prepend must be a vector, but had shape: ",
                         shape.shape().DebugString()));
      }
      for (int64_t i = 0; i < shape.NumElements(); ++i) {
        const int32_t d = shape.data<int32_t>()[i];
        if (d < 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              "shape_to_prepend holds a negative dimension: ", shape.DebugString()));
        }
        prepend.push_back(d);
      }
    }
    const std::string key = absl::StrCat(ta->name(), "@", source_);
    // Every gradient op of one source finds the same array: the first
    // makes it (the forward array's lock is taken inside the manager's).
    absl::Status made = absl::OkStatus();
    absl::StatusOr<std::shared_ptr<Resource>> r = ctx->step_resources()->LookupOrCreateResource(
        h.first, key, [&]() -> std::unique_ptr<Resource> {
          absl::StatusOr<std::unique_ptr<TensorArray>> g =
              ta->MakeGrad(key, with_shape_ ? &prepend : nullptr);
          if (!g.ok()) {
            made = g.status();
            return nullptr;
          }
          return std::move(*g);
        });
    MG_RETURN_IF_ERROR(made);
    MG_RETURN_IF_ERROR(r.status());
    auto grad = std::dynamic_pointer_cast<TensorArray>(*r);
    if (grad == nullptr) {
      return absl::InternalError(absl::StrCat("resource ", key, " is not a TensorArray"));
    }
    ctx->set_output(0, MakeHandle(ctx, *grad));
    if (ctx->num_outputs() > 1) ctx->set_output(1, ctx->input(1));
    return absl::OkStatus();
  }

 private:
  std::string source_;
  bool with_shape_ = false;
};

class WriteOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> ta, ArrayInput(ctx, 0));
    MG_ASSIGN_OR_RETURN(int64_t index, ScalarInt(ctx->input(1), "TensorArray index"));
    MG_RETURN_IF_ERROR(ta->WriteMany({index}, {ctx->input(2)}));
    ctx->set_output(0, ctx->input(3));
    return absl::OkStatus();
  }
};

class ReadOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("dtype", &dtype_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> ta, ArrayInput(ctx, 0));
    MG_RETURN_IF_ERROR(CheckDtype(*ta, dtype_));
    MG_ASSIGN_OR_RETURN(int64_t index, ScalarInt(ctx->input(1), "TensorArray index"));
    MG_ASSIGN_OR_RETURN(std::vector<Tensor> items, ta->ReadMany({index}));
    ctx->set_output(0, std::move(items[0]));
    return absl::OkStatus();
  }

 private:
  DataType dtype_ = DT_INVALID;
};

absl::StatusOr<std::vector<int64_t>> IndicesInput(const Tensor& t) {
  if (t.dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected indices to be a vector, but received shape: ", t.shape().DebugString()));
  }
  return IntsFromTensor(t, "indices");
}

class GatherOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype_));
    return c->GetAttr("element_shape", &element_shape_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> ta, ArrayInput(ctx, 0));
    MG_RETURN_IF_ERROR(CheckDtype(*ta, dtype_));
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> indices, IndicesInput(ctx->input(1)));
    MG_ASSIGN_OR_RETURN(std::vector<Tensor> items, ta->ReadMany(indices));
    PartialShape shape = element_shape_;
    if (items.empty()) {
      absl::StatusOr<PartialShape> merged = PartialShape::Merge(shape, ta->element_shape());
      if (merged.ok()) shape = *merged;
    }
    MG_ASSIGN_OR_RETURN(Tensor out, StackItems(dtype_, items, shape));
    ctx->set_output(0, std::move(out));
    return absl::OkStatus();
  }

 private:
  DataType dtype_ = DT_INVALID;
  PartialShape element_shape_;
};

class ScatterOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> ta, ArrayInput(ctx, 0));
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> indices, IndicesInput(ctx->input(1)));
    const Tensor& value = ctx->input(2);
    const int64_t n = static_cast<int64_t>(indices.size());
    if (value.dims() == 0 || value.dim_size(0) != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected len(indices) == values.shape[0], but saw: ", n, " vs. ",
          value.dims() == 0 ? std::string("a scalar") : absl::StrCat(value.dim_size(0))));
    }
    const TensorShape row(value.shape().dim_sizes().subspan(1));
    std::vector<Tensor> rows;
    int64_t max_index = -1;
    for (int64_t k = 0; k < n; ++k) {
      MG_ASSIGN_OR_RETURN(rows.emplace_back(), Rows(value, k, row));
      max_index = std::max(max_index, indices[k]);
    }
    MG_RETURN_IF_ERROR(ta->WriteMany(indices, std::move(rows), max_index + 1));
    ctx->set_output(0, ctx->input(3));
    return absl::OkStatus();
  }
};

class ConcatOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype_));
    return c->GetAttr("element_shape_except0", &except0_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> ta, ArrayInput(ctx, 0));
    MG_RETURN_IF_ERROR(CheckDtype(*ta, dtype_));
    MG_ASSIGN_OR_RETURN(int64_t size, ta->ConcatSize());
    std::vector<int64_t> indices(size);
    for (int64_t i = 0; i < size; ++i) indices[i] = i;
    MG_ASSIGN_OR_RETURN(std::vector<Tensor> items, ta->ReadMany(indices));
    Tensor lengths = Tensor::Create(DT_INT64, TensorShape({size})).value();
    std::vector<int64_t> dims = {0};
    if (items.empty()) {
      if (!except0_.IsFullyDefined()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "TensorArray has size zero, but element_shape_except0 ", except0_.DebugString(),
            " is not fully defined. Currently only static shapes are supported when "
            "concatenating zero-size TensorArrays."));
      }
      dims.insert(dims.end(), except0_.dims().begin(), except0_.dims().end());
    }
    for (size_t i = 0; i < items.size(); ++i) {
      const TensorShape& s = items[i].shape();
      if (s.dims() == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("Concat saw a scalar shape at index ", i,
                         " but requires at least vectors.  Did you mean to call stack instead?"));
      }
      const TensorShape rest(s.dim_sizes().subspan(1));
      if (i == 0) {
        dims.insert(dims.end(), rest.dim_sizes().begin(), rest.dim_sizes().end());
      } else if (rest != TensorShape(items[0].shape().dim_sizes().subspan(1))) {
        return absl::InvalidArgumentError(absl::StrCat(
            "TensorArray has inconsistent shapes.  Index 0 has (excepting dimension 0) shape: ",
            TensorShape(items[0].shape().dim_sizes().subspan(1)).DebugString(), " but index ", i,
            " has (excepting dimension 0) shape: ", rest.DebugString()));
      }
      lengths.data<int64_t>()[i] = s.dim_size(0);
      dims[0] += s.dim_size(0);
    }
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    MG_RETURN_IF_ERROR(
        CheckScratchSize(shape.num_elements(), DataTypeSize(dtype_), "TensorArray concat"));
    MG_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(dtype_, shape));
    int64_t offset = 0;
    for (const Tensor& item : items) {
      CopyElements(item, 0, &out, offset, item.NumElements());
      offset += item.NumElements();
    }
    ctx->set_output(0, std::move(out));
    ctx->set_output(1, std::move(lengths));
    return absl::OkStatus();
  }

 private:
  DataType dtype_ = DT_INVALID;
  PartialShape except0_;
};

class SplitOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> ta, ArrayInput(ctx, 0));
    const Tensor& value = ctx->input(1);
    const Tensor& lengths_t = ctx->input(2);
    if (lengths_t.dims() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected lengths to be a vector, received shape: ", lengths_t.shape().DebugString()));
    }
    if (value.dims() == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected value to be at least a vector, but received shape: ",
                       value.shape().DebugString()));
    }
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> lengths, IntsFromTensor(lengths_t, "lengths"));
    int64_t total = 0;
    for (int64_t len : lengths) {
      if (len < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("TensorArray split lengths must be non-negative, got ", len));
      }
      total += len;
    }
    if (total != value.dim_size(0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is: ", total,
          " and value's shape is: ", value.shape().DebugString()));
    }
    const int64_t n = static_cast<int64_t>(lengths.size());
    MG_ASSIGN_OR_RETURN(int64_t size, ta->Size());
    if (!ta->dynamic_size() && size != n) {
      return absl::InvalidArgumentError(
          absl::StrCat("TensorArray's size is not equal to the size of lengths (", size, " vs. ", n,
                       "), and the TensorArray is not marked as dynamically resizeable"));
    }
    std::vector<int64_t> indices(n);
    std::vector<Tensor> pieces;
    int64_t begin = 0;
    for (int64_t k = 0; k < n; ++k) {
      indices[k] = k;
      std::vector<int64_t> dims(value.shape().dim_sizes().begin(), value.shape().dim_sizes().end());
      dims[0] = lengths[k];
      MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
      MG_ASSIGN_OR_RETURN(pieces.emplace_back(), Rows(value, begin, shape));
      begin += lengths[k];
    }
    MG_RETURN_IF_ERROR(ta->WriteMany(indices, std::move(pieces), n));
    ctx->set_output(0, ctx->input(3));
    return absl::OkStatus();
  }
};

class SizeOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> ta, ArrayInput(ctx, 0));
    MG_ASSIGN_OR_RETURN(int64_t size, ta->Size());
    ctx->set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(size)));
    return absl::OkStatus();
  }
};

class CloseOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<TensorArray> ta, ArrayInput(ctx, 0));
    ta->Close();
    return absl::OkStatus();
  }
};

class StackOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("elem_type", &dtype_));
    MG_RETURN_IF_ERROR(c->GetAttr("stack_name", &base_name_));
    if (base_name_.empty()) base_name_ = c->def().name();
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    // Stack (TensorFlow 1's first) has no max_size: unbounded.
    int32_t max_size = -1;
    if (ctx->num_inputs() > 0) {
      const Tensor& t = ctx->input(0);
      if (t.dims() != 0) {
        return absl::InvalidArgumentError(absl::StrCat("max_size must be a scalar, but had shape: ",
                                                       t.shape().DebugString()));
      }
      max_size = *t.data<int32_t>();
    }
    static std::atomic<int64_t> counter{0};
    const std::string name = absl::StrCat(base_name_, "_", counter.fetch_add(1));
    MG_RETURN_IF_ERROR(
        ctx->step_resources()
            ->LookupOrCreateResource(
                StepContainer(ctx), name,
                [&] { return std::make_unique<Stack>(name, dtype_, max_size); })
            .status());
    Tensor handle = MakeStepHandle(ctx, name, kStackTypeName);
    if (!IsRefType(ctx->expected_output_dtype(0))) {
      ctx->set_output(0, std::move(handle));
      return absl::OkStatus();
    }
    // Stack: a reference to the handle, kept in a variable of the step's.
    MG_ASSIGN_OR_RETURN(Var * v, ctx->step_resources()->LookupOrCreateVar(StepContainer(ctx),
                                                                           name, DT_STRING));
    {
      absl::MutexLock l(v->mu());
      v->set_value(std::move(handle));
    }
    ctx->set_output_ref(0, v);
    return absl::OkStatus();
  }

 private:
  DataType dtype_ = DT_INVALID;
  std::string base_name_;
};

class StackPushOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<Stack> stack, StackInput(ctx, 0));
    MG_RETURN_IF_ERROR(stack->Push(ctx->input(1)));
    ctx->set_output(0, ctx->input(1));
    return absl::OkStatus();
  }
};

class StackPopOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("elem_type", &dtype_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<Stack> stack, StackInput(ctx, 0));
    MG_ASSIGN_OR_RETURN(Tensor t, stack->Pop(dtype_));
    ctx->set_output(0, std::move(t));
    return absl::OkStatus();
  }

 private:
  DataType dtype_ = DT_INVALID;
};

class StackCloseOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<Stack> stack, StackInput(ctx, 0));
    stack->Close();
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterTensorArrayKernels(KernelRegistry* r) {
  r->Register("TensorArrayV3", MakeFactory<TensorArrayOp>());
  r->Register("TensorArrayGradV3", MakeFactory<GradOp>());
  r->Register("TensorArrayWriteV3", MakeFactory<WriteOp>());
  r->Register("TensorArrayReadV3", MakeFactory<ReadOp>());
  r->Register("TensorArrayGatherV3", MakeFactory<GatherOp>());
  r->Register("TensorArrayScatterV3", MakeFactory<ScatterOp>());
  r->Register("TensorArrayConcatV3", MakeFactory<ConcatOp>());
  r->Register("TensorArraySplitV3", MakeFactory<SplitOp>());
  r->Register("TensorArraySizeV3", MakeFactory<SizeOp>());
  r->Register("TensorArrayCloseV3", MakeFactory<CloseOp>());
  r->Register("TensorArrayGradWithShape", MakeFactory<GradOp>());
  r->Register("TensorArrayV2", MakeFactory<TensorArrayOp>());
  r->Register("TensorArrayGradV2", MakeFactory<GradOp>());
  r->Register("TensorArrayWriteV2", MakeFactory<WriteOp>());
  r->Register("TensorArrayReadV2", MakeFactory<ReadOp>());
  r->Register("TensorArrayGatherV2", MakeFactory<GatherOp>());
  r->Register("TensorArrayScatterV2", MakeFactory<ScatterOp>());
  r->Register("TensorArrayConcatV2", MakeFactory<ConcatOp>());
  r->Register("TensorArraySplitV2", MakeFactory<SplitOp>());
  r->Register("TensorArraySizeV2", MakeFactory<SizeOp>());
  r->Register("TensorArrayCloseV2", MakeFactory<CloseOp>());
  r->Register("Stack", MakeFactory<StackOp>());
  r->Register("StackPush", MakeFactory<StackPushOp>());
  r->Register("StackPop", MakeFactory<StackPopOp>());
  r->Register("StackClose", MakeFactory<StackCloseOp>());
  r->Register("StackV2", MakeFactory<StackOp>());
  r->Register("StackPushV2", MakeFactory<StackPushOp>());
  r->Register("StackPopV2", MakeFactory<StackPopOp>());
  r->Register("StackCloseV2", MakeFactory<StackCloseOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
