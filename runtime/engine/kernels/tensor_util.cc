#include "runtime/engine/kernels/internal/tensor_util.h"

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace minigraph {

absl::StatusOr<std::vector<int64_t>> IntsFromTensor(const Tensor& t, absl::string_view what) {
  if (t.dims() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be a vector, got shape ", t.shape().DebugString()));
  }
  std::vector<int64_t> out;
  if (t.dtype() == DT_INT32) {
    for (int64_t i = 0; i < t.NumElements(); ++i) out.push_back(t.data<int32_t>()[i]);
  } else if (t.dtype() == DT_INT64) {
    for (int64_t i = 0; i < t.NumElements(); ++i) out.push_back(t.data<int64_t>()[i]);
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

absl::StatusOr<int64_t> CanonicalAxis(int64_t axis, int rank, absl::string_view op) {
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, " axis ", axis, " is out of range for rank ", rank));
  }
  return axis < 0 ? axis + rank : axis;
}

}  // namespace minigraph
