#include "core/tensor_proto.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "core/allocator.h"
#include "core/coding.h"
#include "core/status_macros.h"

namespace minigraph {
namespace {

// Which TensorProto field holds a type's values, and how one element maps
// onto one (or, for complex numbers, two) field values.
template <typename T>
struct ProtoField;

template <typename V, typename E>
void AppendTo(google::protobuf::RepeatedField<V>* field, const E& e) {
  field->Add(static_cast<V>(e));
}
template <typename M>
void AppendTo(google::protobuf::RepeatedPtrField<M>* field, const M& e) {
  *field->Add() = e;
}

#define MG_PROTO_FIELD(T, FIELD, TO_FIELD, FROM_FIELD)                                        \
  template <>                                                                                 \
  struct ProtoField<T> {                                                                      \
    static constexpr int kValuesPerElement = 1;                                               \
    static int Size(const TensorProto& p) { return p.FIELD##_size(); }                        \
    static T Get(const TensorProto& p, int i) {                                               \
      const auto v = p.FIELD(i);                                                              \
      return FROM_FIELD;                                                                      \
    }                                                                                         \
    static void Add(const T& e, TensorProto* p) { AppendTo(p->mutable_##FIELD(), TO_FIELD); } \
  }

MG_PROTO_FIELD(float, float_val, e, v);
MG_PROTO_FIELD(double, double_val, e, v);
MG_PROTO_FIELD(int32_t, int_val, e, v);
MG_PROTO_FIELD(int16_t, int_val, e, static_cast<int16_t>(v));
MG_PROTO_FIELD(uint16_t, int_val, e, static_cast<uint16_t>(v));
MG_PROTO_FIELD(int8_t, int_val, e, static_cast<int8_t>(v));
MG_PROTO_FIELD(uint8_t, int_val, e, static_cast<uint8_t>(v));
MG_PROTO_FIELD(int64_t, int64_val, e, v);
MG_PROTO_FIELD(uint32_t, uint32_val, e, v);
MG_PROTO_FIELD(uint64_t, uint64_val, e, v);
MG_PROTO_FIELD(bool, bool_val, e, v);
MG_PROTO_FIELD(half, half_val, Eigen::numext::bit_cast<uint16_t>(e),
               Eigen::numext::bit_cast<half>(static_cast<uint16_t>(v)));
MG_PROTO_FIELD(bfloat16, half_val, Eigen::numext::bit_cast<uint16_t>(e),
               Eigen::numext::bit_cast<bfloat16>(static_cast<uint16_t>(v)));
MG_PROTO_FIELD(std::string, string_val, e, std::string(v));
MG_PROTO_FIELD(ResourceHandle, resource_handle_val, e, ResourceHandle(v));
MG_PROTO_FIELD(Variant, variant_val, e.Encode(), Variant(v));
#undef MG_PROTO_FIELD

#define MG_PROTO_COMPLEX_FIELD(T, FIELD)                                                        \
  template <>                                                                                   \
  struct ProtoField<T> {                                                                        \
    static constexpr int kValuesPerElement = 2;                                                 \
    static int Size(const TensorProto& p) { return p.FIELD##_size() / 2; }                      \
    static T Get(const TensorProto& p, int i) { return T(p.FIELD(2 * i), p.FIELD(2 * i + 1)); } \
    static void Add(const T& e, TensorProto* p) {                                               \
      p->add_##FIELD(e.real());                                                                 \
      p->add_##FIELD(e.imag());                                                                 \
    }                                                                                           \
  }
MG_PROTO_COMPLEX_FIELD(complex64, scomplex_val);
MG_PROTO_COMPLEX_FIELD(complex128, dcomplex_val);
#undef MG_PROTO_COMPLEX_FIELD

// The heap bytes an element read from the typed field `i` owns beyond
// sizeof(T): a string's bytes; for resource handles and variants, what the
// proto occupies in memory (SpaceUsedLong), as the element copies it.
int64_t ElementHeapBytes(const TensorProto& p, DataType dtype, int i) {
  switch (dtype) {
    case DT_STRING:
      return static_cast<int64_t>(p.string_val(i).size());
    case DT_RESOURCE:
      return static_cast<int64_t>(p.resource_handle_val(i).SpaceUsedLong());
    case DT_VARIANT:
      return static_cast<int64_t>(p.variant_val(i).SpaceUsedLong());
    default:
      return 0;
  }
}

// The typed field fills a tensor by repeating its last value: for elements
// that own heap memory, a few bytes of proto can ask for gigabytes (found by
// tensor_proto_fuzzer). ResourceExhausted when the filled tensor would hold
// more than MaxTensorBytes().
absl::Status CheckFilledBytes(const TensorProto& p, DataType dtype, int64_t n) {
  const int in_n = dtype == DT_STRING     ? p.string_val_size()
                   : dtype == DT_RESOURCE ? p.resource_handle_val_size()
                   : dtype == DT_VARIANT  ? p.variant_val_size()
                                          : 0;
  if (in_n <= 0 || n == 0) return absl::OkStatus();
  const int64_t given = std::min<int64_t>(n, in_n);
  uint64_t bytes = 0;
  for (int i = 0; i < given; ++i) bytes += ElementHeapBytes(p, dtype, i);
  uint64_t fill;
  if (__builtin_mul_overflow(static_cast<uint64_t>(n - given),
                             static_cast<uint64_t>(ElementHeapBytes(p, dtype, given - 1)), &fill) ||
      __builtin_add_overflow(bytes, fill, &bytes) || bytes > MaxTensorBytes()) {
    return absl::ResourceExhaustedError(
        absl::StrCat("TensorProto of ", n, " ", DataTypeString(dtype), " elements (", in_n,
                     " given, the last repeated) would hold more than the limit of ",
                     MaxTensorBytes(), " bytes (max_tensor_bytes)"));
  }
  return absl::OkStatus();
}

template <typename T>
void FillFromField(const TensorProto& proto, Tensor* t) {
  T* data = t->data<T>();
  const int64_t n = t->NumElements();
  const int64_t in_n = ProtoField<T>::Size(proto);
  if (in_n <= 0) {
    std::fill_n(data, n, T());
    return;
  }
  const int64_t copy = std::min(n, in_n);
  for (int64_t i = 0; i < copy; ++i) data[i] = ProtoField<T>::Get(proto, static_cast<int>(i));
  if (copy < n) {
    const T last = data[copy - 1];
    std::fill(data + copy, data + n, last);
  }
}

template <typename T>
void AddToField(const Tensor& t, TensorProto* proto) {
  const T* data = t.data<T>();
  for (int64_t i = 0; i < t.NumElements(); ++i) ProtoField<T>::Add(data[i], proto);
}

void SetHeader(const Tensor& t, TensorProto* proto) {
  proto->Clear();
  proto->set_dtype(t.dtype());
  t.shape().AsProto(proto->mutable_tensor_shape());
}

// Strings in tensor_content, as TensorFlow's C++ writes them (its
// EncodeStringList: each length as a varint32, then the bytes of every
// string one after another). Each string takes at least its length's byte,
// so the count is checked against the content before anything is allocated.
absl::StatusOr<Tensor> StringsFromContent(absl::string_view content, const TensorShape& shape) {
  const int64_t n = shape.num_elements();
  if (n > static_cast<int64_t>(content.size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TensorProto of ", n, " strings has ", content.size(),
        " bytes of tensor_content, fewer than one per string's length"));
  }
  std::vector<uint32_t> sizes(n);
  uint64_t total = 0;
  for (uint32_t& size : sizes) {
    if (!GetVarint32(&content, &size)) {
      return absl::InvalidArgumentError(
          "TensorProto of strings: tensor_content ends inside the strings' lengths");
    }
    total += size;
  }
  if (total != content.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TensorProto of strings: the lengths in tensor_content add up to ", total,
        " bytes, but ", content.size(), " follow them"));
  }
  MG_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(DT_STRING, shape));
  std::string* out = t.data<std::string>();
  for (int64_t i = 0; i < n; ++i) {
    out[i].assign(content.data(), sizes[i]);
    content.remove_prefix(sizes[i]);
  }
  return t;
}

}  // namespace

absl::StatusOr<Tensor> TensorFromProto(const TensorProto& proto, Allocator* allocator) {
  const DataType dtype = proto.dtype();
  if (!IsSupportedTensorType(dtype)) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorProto has unsupported dtype ", DataTypeName(dtype)));
  }
  auto shape = TensorShape::FromProto(proto.tensor_shape());
  if (!shape.ok()) {
    return AddContext(shape.status(), "TensorProto has an invalid shape");
  }
  if (proto.tensor_content().empty()) {
    MG_RETURN_IF_ERROR(CheckFilledBytes(proto, dtype, shape->num_elements()));
  }
  const std::string& content = proto.tensor_content();
  if (dtype == DT_STRING && !content.empty()) return StringsFromContent(content, *shape);
  MG_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(dtype, *shape, allocator));
  if (!content.empty()) {
    if (!DataTypeCanUseMemcpy(dtype)) {
      return absl::InvalidArgumentError(
          absl::StrCat("TensorProto of dtype ", DataTypeName(dtype),
                       " uses tensor_content, which minigraph reads only for fixed-size types"));
    }
    if (content.size() != t.TotalBytes()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorProto tensor_content has ", content.size(), " bytes, but ", DataTypeName(dtype),
          " shape ", shape->DebugString(), " needs ", t.TotalBytes()));
    }
    std::memcpy(t.raw_data(), content.data(), content.size());
    tensor::NormalizeBools(&t);
    return t;
  }
  switch (dtype) {
#define MG_CASE(T)               \
  case DataTypeToEnum<T>::value: \
    FillFromField<T>(proto, &t); \
    break;
    MG_CALL_ALL_TYPES(MG_CASE)
#undef MG_CASE
    default:
      break;  // Unreachable: IsSupportedTensorType checked above.
  }
  return t;
}

void TensorToProto(const Tensor& t, TensorProto* proto) {
  if (!DataTypeCanUseMemcpy(t.dtype())) {
    TensorToProtoField(t, proto);
    return;
  }
  SetHeader(t, proto);
  if (t.TotalBytes() > 0) {
    proto->set_tensor_content(std::string(t.tensor_data()));
  }
}

void TensorToProtoContent(const Tensor& t, TensorProto* proto) {
  if (t.dtype() != DT_STRING) {
    TensorToProto(t, proto);
    return;
  }
  SetHeader(t, proto);
  const std::string* strings = t.data<std::string>();
  const int64_t n = t.NumElements();
  std::string content;
  for (int64_t i = 0; i < n; ++i) PutVarint32(&content, static_cast<uint32_t>(strings[i].size()));
  for (int64_t i = 0; i < n; ++i) content += strings[i];
  if (!content.empty()) proto->set_tensor_content(std::move(content));
}

void TensorToProtoField(const Tensor& t, TensorProto* proto) {
  SetHeader(t, proto);
  switch (t.dtype()) {
#define MG_CASE(T)               \
  case DataTypeToEnum<T>::value: \
    AddToField<T>(t, proto);     \
    break;
    MG_CALL_ALL_TYPES(MG_CASE)
#undef MG_CASE
    default:
      break;
  }
}

}  // namespace minigraph
