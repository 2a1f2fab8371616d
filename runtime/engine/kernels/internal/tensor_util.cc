#include "runtime/engine/kernels/internal/tensor_util.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/allocator.h"
#include "core/status_macros.h"

namespace minigraph {
namespace kernels_internal {

absl::StatusOr<std::vector<int64_t>> IntsFromTensor(const Tensor& t, absl::string_view what) {
  if (t.dims() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be a vector, got shape ", t.shape().DebugString()));
  }
  return FlatInts(t, what);
}

absl::StatusOr<std::vector<int64_t>> FlatInts(const Tensor& t, absl::string_view what) {
  std::vector<int64_t> out(t.NumElements());
  if (t.dtype() == DT_INT32) {
    std::copy_n(t.data<int32_t>(), out.size(), out.begin());
  } else if (t.dtype() == DT_INT64) {
    std::copy_n(t.data<int64_t>(), out.size(), out.begin());
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be int32 or int64, got ", DataTypeString(t.dtype())));
  }
  return out;
}

absl::StatusOr<TensorShape> ShapeFromTensor(const Tensor& t, absl::string_view what) {
  MG_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntsFromTensor(t, what));
  auto s = TensorShape::Build(dims);
  if (!s.ok()) return AddContext(s.status(), what);
  return s;
}

absl::Status CheckScratchSize(int64_t count, size_t element_bytes, absl::string_view what) {
  if (count < 0 || static_cast<uint64_t>(count) > MaxTensorBytes() / element_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat(what, " needs ", count, " entries of ", element_bytes,
                     " bytes, more than the limit of ", MaxTensorBytes(), " (max_tensor_bytes)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> CanonicalAxis(int64_t axis, int rank, absl::string_view op) {
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, " axis ", axis, " is out of range for rank ", rank));
  }
  return axis < 0 ? axis + rank : axis;
}

void CopyElements(const Tensor& src, int64_t src_off, Tensor* dst, int64_t dst_off, int64_t n) {
  if (n == 0) return;
  if (DataTypeCanUseMemcpy(src.dtype())) {
    const size_t e = DataTypeSize(src.dtype());
    std::memcpy(static_cast<char*>(dst->raw_data()) + dst_off * e,
                static_cast<const char*>(src.raw_data()) + src_off * e, n * e);
    return;
  }
  switch (src.dtype()) {
#define MG_CASE(T)                                                     \
  case DataTypeToEnum<T>::value:                                       \
    std::copy_n(src.data<T>() + src_off, n, dst->data<T>() + dst_off); \
    break;
    MG_CASE(std::string)
    MG_CASE(ResourceHandle)
    MG_CASE(Variant)
#undef MG_CASE
    default:
      break;
  }
}

std::string ElementPosition(absl::Span<const int64_t> dims, int64_t i) {
  std::vector<int64_t> pos(dims.size());
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    pos[d] = dims[d] > 0 ? i % dims[d] : 0;
    i = dims[d] > 0 ? i / dims[d] : 0;
  }
  return absl::StrCat("[", absl::StrJoin(pos, ","), "]");
}

}  // namespace kernels_internal
}  // namespace minigraph
