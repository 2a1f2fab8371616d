#include "core/tensor.h"

#include <cstring>
#include <new>
#include <sstream>

#include "Eigen/Core"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace minigraph {
namespace {

template <typename T>
void ConstructElements(void* p, int64_t n) {
  if constexpr (!std::is_trivially_default_constructible_v<T>) {
    T* e = static_cast<T*>(p);
    for (int64_t i = 0; i < n; ++i) new (e + i) T();
  }
}

template <typename T>
void DestroyElements(void* p, int64_t n) {
  if constexpr (!std::is_trivially_destructible_v<T>) {
    T* e = static_cast<T*>(p);
    for (int64_t i = 0; i < n; ++i) e[i].~T();
  }
}

template <typename T>
void CopyElements(const void* src, void* dst, int64_t n) {
  const T* s = static_cast<const T*>(src);
  T* d = static_cast<T*>(dst);
  for (int64_t i = 0; i < n; ++i) d[i] = s[i];
}

template <typename T>
std::string ElementString(const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "1" : "0";
  } else if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>) {
    return absl::StrCat(static_cast<int>(v));
  } else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    return absl::StrCat(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
    return absl::StrCat("(", v.real(), ",", v.imag(), ")");
  } else if constexpr (std::is_same_v<T, std::string>) {
    return absl::StrCat("\"", absl::CHexEscape(v.size() > 64 ? v.substr(0, 64) + "..." : v), "\"");
  } else if constexpr (std::is_same_v<T, ResourceHandle>) {
    return absl::StrCat("<resource ", v.container(), "/", v.name(), ">");
  } else if constexpr (std::is_same_v<T, Variant>) {
    return absl::StrCat("<variant ", v.TypeName(), ">");
  } else {
    return absl::StrCat(v);
  }
}

}  // namespace

absl::StatusOr<tensor_internal::BufferRef> TensorBuffer::Create(Allocator* allocator,
                                                                DataType dtype,
                                                                int64_t num_elements,
                                                                bool limited) {
  const size_t elem = DataTypeSize(dtype);
  if (elem == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("a tensor cannot hold elements of type ", DataTypeName(dtype)));
  }
  size_t bytes;
  if (__builtin_mul_overflow(static_cast<size_t>(num_elements), elem, &bytes)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "tensor of ", num_elements, " ", DataTypeString(dtype), " elements is too large"));
  }
  if (limited && bytes > MaxTensorBytes()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "a tensor of ", num_elements, " ", DataTypeString(dtype), " elements needs ", bytes,
        " bytes, more than the limit of ", MaxTensorBytes(), " (max_tensor_bytes)"));
  }
  void* data = allocator->Allocate(bytes);
  if (data == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat("out of memory allocating ", bytes,
                                                     " bytes from allocator ", allocator->Name()));
  }
  switch (dtype) {
#define MG_CASE(T)                            \
  case DataTypeToEnum<T>::value:              \
    ConstructElements<T>(data, num_elements); \
    break;
    MG_CALL_ALL_TYPES(MG_CASE)
#undef MG_CASE
    default:
      break;
  }
  return tensor_internal::BufferRef(new TensorBuffer(allocator, dtype, num_elements, data, bytes));
}

TensorBuffer::~TensorBuffer() {
  switch (dtype_) {
#define MG_CASE(T)                            \
  case DataTypeToEnum<T>::value:              \
    DestroyElements<T>(data_, num_elements_); \
    break;
    MG_CALL_ALL_TYPES(MG_CASE)
#undef MG_CASE
    default:
      break;
  }
  allocator_->Deallocate(data_, bytes_);
}

Tensor::Tensor(DataType dtype, const TensorShape& shape) {
  auto buf = TensorBuffer::Create(DefaultAllocator(), dtype, shape.num_elements(),
                                  /*limited=*/false);
  MG_CHECK(buf.ok()) << buf.status().message();
  *this = Tensor(dtype, shape, *std::move(buf));
}

absl::StatusOr<Tensor> Tensor::Create(DataType dtype, const TensorShape& shape,
                                      Allocator* allocator) {
  auto buf = TensorBuffer::Create(allocator, dtype, shape.num_elements());
  if (!buf.ok()) return buf.status();
  return Tensor(dtype, shape, *std::move(buf));
}

size_t Tensor::TotalBytes() const {
  return static_cast<size_t>(NumElements()) * DataTypeSize(dtype_);
}

absl::string_view Tensor::tensor_data() const {
  MG_CHECK(DataTypeCanUseMemcpy(dtype_))
      << "tensor_data() on a " << DataTypeString(dtype_) << " tensor";
  return absl::string_view(static_cast<const char*>(raw_data()), TotalBytes());
}

absl::StatusOr<Tensor> Tensor::Reshaped(const TensorShape& shape) const {
  if (shape.num_elements() != NumElements()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot reshape a tensor of shape ", shape_.DebugString(), " (", NumElements(),
        " elements) to ", shape.DebugString(), " (", shape.num_elements(), " elements)"));
  }
  return Tensor(dtype_, shape, buf_);
}

std::string Tensor::SummarizeValue(int64_t max_entries) const {
  if (buf_ == nullptr) return "<uninitialized>";
  const int64_t n = NumElements();
  const int64_t shown = std::min(n, max_entries);
  std::string out;
  switch (dtype_) {
#define MG_CASE(T)                                  \
  case DataTypeToEnum<T>::value: {                  \
    const T* p = static_cast<const T*>(raw_data()); \
    for (int64_t i = 0; i < shown; ++i) {           \
      if (i > 0) out += ' ';                        \
      out += ElementString<T>(p[i]);                \
    }                                               \
    break;                                          \
  }
    MG_CALL_ALL_TYPES(MG_CASE)
#undef MG_CASE
    default:
      return "<unsupported dtype>";
  }
  if (shown < n) out += "...";
  return out;
}

std::string Tensor::DebugString(int max_entries) const {
  return absl::StrCat("Tensor<type: ", DataTypeString(dtype_), " shape: ", shape_.DebugString(),
                      " values: ", SummarizeValue(max_entries), ">");
}

namespace tensor {

Tensor DeepCopy(const Tensor& t) {
  if (!t.IsInitialized()) return Tensor();
  Tensor out(t.dtype(), t.shape());
  if (DataTypeCanUseMemcpy(t.dtype())) {
    if (t.TotalBytes() > 0) std::memcpy(out.raw_data(), t.raw_data(), t.TotalBytes());
    return out;
  }
  switch (t.dtype()) {
    case DT_STRING:
      CopyElements<std::string>(t.raw_data(), out.raw_data(), t.NumElements());
      break;
    case DT_RESOURCE:
      CopyElements<ResourceHandle>(t.raw_data(), out.raw_data(), t.NumElements());
      break;
    case DT_VARIANT:
      CopyElements<Variant>(t.raw_data(), out.raw_data(), t.NumElements());
      break;
    default:
      break;
  }
  return out;
}

void NormalizeBools(Tensor* t) {
  if (t->dtype() != DT_BOOL) return;
  auto* p = static_cast<uint8_t*>(t->raw_data());
  for (int64_t i = 0; i < t->NumElements(); ++i) p[i] = p[i] != 0;
}

}  // namespace tensor
}  // namespace minigraph
