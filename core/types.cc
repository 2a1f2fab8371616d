#include "core/types.h"

#include "Eigen/Core"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace minigraph {

std::string DataTypeName(DataType dt) {
  if (DataType_IsValid(dt)) return DataType_Name(dt);
  return absl::StrCat("DT_", static_cast<int>(dt));
}

std::string DataTypeString(DataType dt) {
  if (!DataType_IsValid(dt)) return absl::StrCat("unknown dtype ", static_cast<int>(dt));
  std::string s = absl::AsciiStrToLower(absl::string_view(DataType_Name(dt)).substr(3));
  return s;
}

bool DataTypeFromString(absl::string_view s, DataType* dt) {
  std::string name = absl::AsciiStrToUpper(s);
  if (!absl::StartsWith(name, "DT_")) name = absl::StrCat("DT_", name);
  return DataType_Parse(name, dt) && *dt != DT_INVALID;
}

bool IsSupportedTensorType(DataType dt) { return DataTypeSize(dt) != 0; }

bool DataTypeCanUseMemcpy(DataType dt) {
  switch (dt) {
#define MG_CASE(T) case DataTypeToEnum<T>::value:
    MG_CALL_POD_TYPES(MG_CASE)
#undef MG_CASE
    return true;
    default:
      return false;
  }
}

size_t DataTypeSize(DataType dt) {
  switch (dt) {
#define MG_CASE(T)                \
  case DataTypeToEnum<T>::value: \
    return sizeof(T);
    MG_CALL_ALL_TYPES(MG_CASE)
#undef MG_CASE
    default:
      return 0;
  }
}

}  // namespace minigraph
