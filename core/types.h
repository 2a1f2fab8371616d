// Element types of tensors, with TensorFlow's DT_* numbers.
//
//   DataType dt = DataTypeToEnum<float>::value;     // DT_FLOAT
//   size_t n = DataTypeSize(dt);                      // 4
//   std::string s = DataTypeName(dt);                 // "DT_FLOAT"
//
// `DataType` is the proto enum (core/proto/types.proto), as in TensorFlow, so
// values read from files need no conversion.
//
// Thread safety: functions of their arguments only.

#ifndef MINIGRAPH_CORE_TYPES_H_
#define MINIGRAPH_CORE_TYPES_H_

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "core/proto/resource_handle.pb.h"
#include "core/proto/tensor.pb.h"
#include "core/proto/types.pb.h"
#include "core/variant.h"

// Eigen's 16-bit floats, declared only: code that computes with them
// (kernels, conversions) includes "Eigen/Core" itself, and nothing else pays
// for parsing Eigen.
namespace Eigen {
struct half;
struct bfloat16;
}  // namespace Eigen

namespace minigraph {

using half = Eigen::half;
using bfloat16 = Eigen::bfloat16;
using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

// Whether T is complex64 or complex128.
template <typename T>
inline constexpr bool kIsComplex = false;
template <typename R>
inline constexpr bool kIsComplex<std::complex<R>> = true;
// Elements of DT_RESOURCE tensors are held in their proto form; elements of
// DT_VARIANT tensors are Variants (core/variant.h).
using ResourceHandle = ResourceHandleProto;

// Returns "DT_FLOAT" for DT_FLOAT, "DT_FLOAT_REF" for DT_FLOAT_REF, and
// "DT_<number>" for a value outside the enum.
std::string DataTypeName(DataType dt);

// Returns the short name TensorFlow prints: "float", "int32", "string",
// "float_ref", ...
std::string DataTypeString(DataType dt);

// Parses either form ("DT_FLOAT" or "float"). Returns false when unknown.
bool DataTypeFromString(absl::string_view s, DataType* dt);

// True for DT_*_REF values.
inline bool IsRefType(DataType dt) { return dt > 100; }
inline DataType BaseType(DataType dt) {
  return IsRefType(dt) ? static_cast<DataType>(dt - 100) : dt;
}
inline DataType MakeRefType(DataType dt) {
  return IsRefType(dt) ? dt : static_cast<DataType>(dt + 100);
}

// True when minigraph's Tensor can hold elements of `dt`.
bool IsSupportedTensorType(DataType dt);

// True for types whose elements are plain bytes (copied with memcpy, stored
// raw in checkpoints and in TensorProto.tensor_content).
bool DataTypeCanUseMemcpy(DataType dt);

// Bytes per element held in memory: sizeof the C++ element type, also for
// DT_STRING (std::string), DT_RESOURCE and DT_VARIANT. 0 for unsupported.
size_t DataTypeSize(DataType dt);

// Maps C++ element types to DataType values and back.
template <typename T>
struct DataTypeToEnum;  // Specialized below for every supported type.
template <DataType VALUE>
struct EnumToDataType;

// Implementation details follow. Clients should ignore.

#define MG_MATCH_TYPE_AND_ENUM(TYPE, ENUM)           \
  template <>                                        \
  struct DataTypeToEnum<TYPE> {                      \
    static constexpr DataType value = ENUM;          \
  };                                                 \
  template <>                                        \
  struct EnumToDataType<ENUM> {                      \
    using Type = TYPE;                               \
  }

MG_MATCH_TYPE_AND_ENUM(float, DT_FLOAT);
MG_MATCH_TYPE_AND_ENUM(double, DT_DOUBLE);
MG_MATCH_TYPE_AND_ENUM(int32_t, DT_INT32);
MG_MATCH_TYPE_AND_ENUM(uint32_t, DT_UINT32);
MG_MATCH_TYPE_AND_ENUM(uint16_t, DT_UINT16);
MG_MATCH_TYPE_AND_ENUM(uint8_t, DT_UINT8);
MG_MATCH_TYPE_AND_ENUM(int16_t, DT_INT16);
MG_MATCH_TYPE_AND_ENUM(int8_t, DT_INT8);
MG_MATCH_TYPE_AND_ENUM(std::string, DT_STRING);
MG_MATCH_TYPE_AND_ENUM(complex64, DT_COMPLEX64);
MG_MATCH_TYPE_AND_ENUM(complex128, DT_COMPLEX128);
MG_MATCH_TYPE_AND_ENUM(int64_t, DT_INT64);
MG_MATCH_TYPE_AND_ENUM(uint64_t, DT_UINT64);
MG_MATCH_TYPE_AND_ENUM(bool, DT_BOOL);
MG_MATCH_TYPE_AND_ENUM(half, DT_HALF);
MG_MATCH_TYPE_AND_ENUM(bfloat16, DT_BFLOAT16);
MG_MATCH_TYPE_AND_ENUM(ResourceHandle, DT_RESOURCE);
MG_MATCH_TYPE_AND_ENUM(Variant, DT_VARIANT);

#undef MG_MATCH_TYPE_AND_ENUM

// Calls `MACRO(T)` for every type a Tensor can hold.
#define MG_CALL_POD_TYPES(MACRO) \
  MACRO(float)                   \
  MACRO(double)                  \
  MACRO(int32_t)                 \
  MACRO(uint32_t)                \
  MACRO(uint16_t)                \
  MACRO(uint8_t)                 \
  MACRO(int16_t)                 \
  MACRO(int8_t)                  \
  MACRO(::minigraph::complex64)  \
  MACRO(::minigraph::complex128) \
  MACRO(int64_t)                 \
  MACRO(uint64_t)                \
  MACRO(bool)                    \
  MACRO(::minigraph::half)       \
  MACRO(::minigraph::bfloat16)
#define MG_CALL_ALL_TYPES(MACRO)     \
  MG_CALL_POD_TYPES(MACRO)           \
  MACRO(std::string)                 \
  MACRO(::minigraph::ResourceHandle) \
  MACRO(::minigraph::Variant)

}  // namespace minigraph

#endif  // MINIGRAPH_CORE_TYPES_H_
