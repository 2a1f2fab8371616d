// A dense, typed, n-dimensional array: a cheap-to-copy value over a
// refcounted, 64-byte-aligned buffer.
//
//   Tensor t(DT_FLOAT, TensorShape({2, 3}));
//   float* p = t.data<float>();                // checks the dtype
//   t.flat<float>().setConstant(1.0f);        // Eigen view (core/tensor_types.h)
//   Tensor alias = t;                          // shares the buffer
//   Tensor copy = tensor::DeepCopy(t);         // owns new memory
//   MG_ASSIGN_OR_RETURN(auto m, t.TryMatrix<float>());  // checked, as Status
//
// Copies alias: writes through one are seen by the others. Concurrent reads
// are safe; concurrent writes to one buffer must be synchronized by the
// caller (variables hold a mutex for this).

#ifndef MINIGRAPH_CORE_TENSOR_H_
#define MINIGRAPH_CORE_TENSOR_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/allocator.h"
#include "core/logging.h"
#include "core/tensor_shape.h"
#include "core/types.h"

namespace minigraph {

// Eigen views of tensor data (TensorFlow's TTypes). Declared here and
// defined, with the view accessors of Tensor (flat, matrix, scalar, ...), in
// core/tensor_types.h, which only code that computes with Eigen includes, so
// the rest never parses Eigen.
template <typename T, int NDIMS = 1, typename IndexType = std::ptrdiff_t>
struct TTypes;

class TensorBuffer;

namespace tensor_internal {

// An owning reference to a TensorBuffer, whose count lives in the buffer (as
// TensorFlow's TensorBuffer is core::RefCounted). Unlike std::shared_ptr,
// whose use_count() is a relaxed load, IsUnique() acquires: a writer that
// finds itself the only holder (Var::mutable_value) is ordered after every
// other holder's last read of the buffer, which a release on each drop
// publishes.
class BufferRef {
 public:
  BufferRef() = default;
  // Adopts a new buffer's initial count of one.
  explicit BufferRef(TensorBuffer* adopted) : buf_(adopted) {}
  BufferRef(const BufferRef& other);
  BufferRef(BufferRef&& other) noexcept : buf_(std::exchange(other.buf_, nullptr)) {}
  BufferRef& operator=(BufferRef other) noexcept {
    std::swap(buf_, other.buf_);
    return *this;
  }
  ~BufferRef();

  TensorBuffer* get() const { return buf_; }
  TensorBuffer* operator->() const { return buf_; }
  bool operator==(const BufferRef& other) const { return buf_ == other.buf_; }
  bool operator!=(std::nullptr_t) const { return buf_ != nullptr; }
  bool operator==(std::nullptr_t) const { return buf_ == nullptr; }
  explicit operator bool() const { return buf_ != nullptr; }
  // True when this is the only reference. REQUIRES: non-null.
  bool IsUnique() const;

 private:
  TensorBuffer* buf_ = nullptr;
};

}  // namespace tensor_internal

// The memory behind one or more Tensors. Constructs and destroys the
// elements of non-memcpy types (strings, resource handles, variants).
class TensorBuffer {
 public:
  // Returns ResourceExhausted when the allocator is out of memory or, unless
  // `limited` is false, the buffer would pass MaxTensorBytes(); and
  // InvalidArgument for a dtype a Tensor cannot hold.
  static absl::StatusOr<tensor_internal::BufferRef> Create(Allocator* allocator, DataType dtype,
                                                           int64_t num_elements,
                                                           bool limited = true);
  ~TensorBuffer();
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;

  void* data() const { return data_; }
  size_t size() const { return bytes_; }
  const Allocator* allocator() const { return allocator_; }

 private:
  friend class tensor_internal::BufferRef;

  TensorBuffer(Allocator* a, DataType dtype, int64_t n, void* data, size_t bytes)
      : allocator_(a), dtype_(dtype), num_elements_(n), data_(data), bytes_(bytes) {}

  Allocator* const allocator_;  // Not owned; allocators live forever.
  const DataType dtype_;
  const int64_t num_elements_;
  void* const data_;
  const size_t bytes_;
  std::atomic<int64_t> refs_{1};
};

namespace tensor_internal {

inline BufferRef::BufferRef(const BufferRef& other) : buf_(other.buf_) {
  if (buf_ != nullptr) buf_->refs_.fetch_add(1, std::memory_order_relaxed);
}

inline BufferRef::~BufferRef() {
  if (buf_ != nullptr && buf_->refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete buf_;
}

inline bool BufferRef::IsUnique() const { return buf_->refs_.load(std::memory_order_acquire) == 1; }

}  // namespace tensor_internal

class Tensor {
 public:
  // An empty DT_INVALID tensor with no buffer; IsInitialized() is false.
  Tensor() = default;

  // Allocates from DefaultAllocator(). Numeric elements are uninitialized;
  // strings are empty. Aborts when out of memory, as std::vector would; use
  // Create() where that must be an error. For the tensors a program makes
  // of its own sizes (constants of a graph it builds, its own batches):
  // MaxTensorBytes(), the bound on what graphs and checkpoints may ask for,
  // does not apply, so that a low bound is an error of the step that meets
  // it (Create), never an abort.
  Tensor(DataType dtype, const TensorShape& shape);

  // Allocates from `allocator` (not owned; must outlive the tensor).
  // Returns ResourceExhausted or InvalidArgument.
  static absl::StatusOr<Tensor> Create(DataType dtype, const TensorShape& shape,
                                       Allocator* allocator = DefaultAllocator());

  // A scalar holding `value`.
  template <typename T>
  static Tensor Scalar(T value);
  // A 1-D tensor holding `values`.
  template <typename T>
  static Tensor Vector(std::initializer_list<T> values);

  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int dims() const { return shape_.dims(); }
  int64_t dim_size(int i) const { return shape_.dim_size(i); }
  int64_t NumElements() const { return shape_.num_elements(); }
  bool IsInitialized() const { return buf_ != nullptr; }
  // Bytes the elements occupy in memory (NumElements * DataTypeSize).
  size_t TotalBytes() const;

  // Raw element memory. For memcpy types this is what files store.
  void* raw_data() const { return buf_ ? buf_->data() : nullptr; }
  // OK unless the buffer's bytes may have changed behind the program's
  // back (Allocator::CheckIntact): DataLoss saying where they came from.
  absl::Status CheckIntact() const {
    return buf_ ? buf_->allocator()->CheckIntact() : absl::OkStatus();
  }
  // REQUIRES: DataTypeCanUseMemcpy(dtype()).
  absl::string_view tensor_data() const;

  // True when no other Tensor shares this buffer, so it may be updated in
  // place without other holders seeing the change.
  bool RefCountIsOne() const { return buf_ != nullptr && buf_.IsUnique(); }

  bool SharesBufferWith(const Tensor& other) const {
    return buf_ != nullptr && buf_ == other.buf_;
  }

  // A tensor sharing this buffer with another shape of the same element
  // count. Returns InvalidArgument otherwise.
  absl::StatusOr<Tensor> Reshaped(const TensorShape& shape) const;

  // InvalidArgument naming both types when T is not the dtype.
  template <typename T>
  absl::Status CheckType() const;

  // Eigen views; defined in core/tensor_types.h, which a caller includes.
  // Checked views: InvalidArgument naming both types or ranks on mismatch.
  template <typename T>
  absl::StatusOr<typename TTypes<T>::Flat> TryFlat() const;
  template <typename T, int NDIMS>
  absl::StatusOr<typename TTypes<T, NDIMS>::Tensor> TryTensor() const;
  template <typename T>
  absl::StatusOr<typename TTypes<T, 2>::Tensor> TryMatrix() const {
    return TryTensor<T, 2>();
  }

  // Views that abort on a dtype or rank mismatch (a programmer error, like an
  // out-of-range index).
  template <typename T>
  typename TTypes<T>::Flat flat() const;
  template <typename T>
  typename TTypes<T>::Vec vec() const {
    return tensor<T, 1>();
  }
  template <typename T>
  typename TTypes<T, 2>::Tensor matrix() const {
    return tensor<T, 2>();
  }
  template <typename T, int NDIMS>
  typename TTypes<T, NDIMS>::Tensor tensor() const;
  // REQUIRES: NumElements() == 1 (any rank).
  template <typename T>
  typename TTypes<T>::Scalar scalar() const;
  // The data viewed with another shape of the same element count.
  template <typename T, int NDIMS>
  typename TTypes<T, NDIMS>::Tensor shaped(
      absl::Span<const int64_t> new_sizes) const;

  // Typed element pointer. REQUIRES: dtype matches T.
  template <typename T>
  T* data() const {
    CheckTypeOrDie<T>();
    return static_cast<T*>(raw_data());
  }

  // "Tensor<type: float shape: [2,3] values: 1 1 1 ...>", values summarized
  // after `max_entries`.
  std::string DebugString(int max_entries = 6) const;
  // The values only, space-separated, summarized after `max_entries`.
  std::string SummarizeValue(int64_t max_entries) const;

 private:
  Tensor(DataType dtype, const TensorShape& shape, tensor_internal::BufferRef buf)
      : dtype_(dtype), shape_(shape), buf_(std::move(buf)) {}

  template <typename T>
  void CheckTypeOrDie() const;
  template <size_t NDIMS>
  std::array<std::ptrdiff_t, NDIMS> EigenDims(absl::Span<const int64_t> sizes) const;

  DataType dtype_ = DT_INVALID;
  TensorShape shape_;
  tensor_internal::BufferRef buf_;
};

namespace tensor {
// A tensor with the same dtype, shape and values in new memory.
Tensor DeepCopy(const Tensor& t);
// For a DT_BOOL tensor whose bytes came from outside (a file, a proto):
// makes every nonzero byte 1, since a bool byte other than 0 or 1 is
// undefined behaviour to read. Any other dtype is left alone.
void NormalizeBools(Tensor* t);
}  // namespace tensor

// Implementation details follow. Clients should ignore.

template <typename T>
absl::Status Tensor::CheckType() const {
  constexpr DataType want = DataTypeToEnum<T>::value;
  if (dtype_ != want) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensor has dtype ", DataTypeString(dtype_), ", accessed as ",
        DataTypeString(want)));
  }
  return absl::OkStatus();
}

template <typename T>
void Tensor::CheckTypeOrDie() const {
  absl::Status s = CheckType<T>();
  MG_CHECK(s.ok()) << s.message();
}

template <typename T>
Tensor Tensor::Scalar(T value) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape());
  *t.data<T>() = std::move(value);
  return t;
}

template <typename T>
Tensor Tensor::Vector(std::initializer_list<T> values) {
  Tensor t(DataTypeToEnum<T>::value,
           TensorShape({static_cast<int64_t>(values.size())}));
  T* p = t.data<T>();
  for (const T& v : values) *p++ = v;
  return t;
}

}  // namespace minigraph

#endif  // MINIGRAPH_CORE_TENSOR_H_
