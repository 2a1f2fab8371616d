#include "runtime/engine/kernels/sparse/sparse_input.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/tensor_util.h"

namespace minigraph {
namespace kernels_internal {
namespace {

std::string IndexText(const SparseInput& sp, int64_t i) {
  return absl::StrCat("indices[", i, "] = [", absl::StrJoin(sp.at(i), sp.at(i) + sp.rank(), ", "),
                      "]");
}

absl::Status OutOfBounds(const SparseInput& sp, const OpKernel& k, int64_t i) {
  return absl::InvalidArgumentError(absl::StrCat(k.type_string(), ": ", IndexText(sp, i),
                                                 " is out of bounds: need 0 <= index < [",
                                                 absl::StrJoin(sp.shape, ","), "]"));
}

bool InBounds(const SparseInput& sp, int64_t i) {
  for (int d = 0; d < sp.rank(); ++d) {
    if (sp.at(i)[d] < 0 || sp.at(i)[d] >= sp.shape[d]) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<SparseInput> ReadSparse(const OpKernelContext* ctx, const OpKernel& k, int first,
                                       bool in_range) {
  return ReadSparseAt(ctx, k, first, first + 1, first + 2, in_range);
}

absl::StatusOr<SparseInput> ReadSparseAt(const OpKernelContext* ctx, const OpKernel& k,
                                         int indices_at, int values_at, int shape_at,
                                         bool in_range) {
  const Tensor& indices = ctx->input(indices_at);
  const Tensor& values = ctx->input(values_at);
  const Tensor& shape = ctx->input(shape_at);
  if (indices.dims() != 2 || values.dims() != 1 || shape.dims() != 1 ||
      indices.dim_size(0) != values.dim_size(0) || indices.dim_size(1) != shape.dim_size(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        k.type_string(), ": a SparseTensor needs indices [N, rank], values [N] and shape "
                         "[rank], got shapes ",
        indices.shape().DebugString(), ", ", values.shape().DebugString(), " and ",
        shape.shape().DebugString()));
  }
  SparseInput s;
  MG_ASSIGN_OR_RETURN(s.indices, FlatInts(indices, "indices"));
  s.nnz = indices.dim_size(0);
  MG_ASSIGN_OR_RETURN(s.shape, FlatInts(shape, "dense_shape"));
  if (!in_range) return s;
  for (int64_t i = 0; i < s.nnz; ++i) {
    if (!InBounds(s, i)) return OutOfBounds(s, k, i);
  }
  return s;
}

absl::Status CheckIndicesOrdered(const SparseInput& sp, const OpKernel& k) {
  for (int64_t i = 0; i < sp.nnz; ++i) {
    if (!InBounds(sp, i)) return OutOfBounds(sp, k, i);
    if (i == 0) continue;
    const int order = CompareIndex(sp.at(i - 1), sp.at(i), sp.rank());
    if (order >= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(k.type_string(), ": ", IndexText(sp, i), " is ",
                       order == 0 ? "repeated" : "out of order",
                       ". Many sparse ops require sorted indices: tf.sparse.reorder sorts them"));
    }
  }
  return absl::OkStatus();
}

int CompareIndex(const int64_t* a, const int64_t* b, int rank) {
  for (int d = 0; d < rank; ++d) {
    if (a[d] != b[d]) return a[d] < b[d] ? -1 : 1;
  }
  return 0;
}

}  // namespace kernels_internal
}  // namespace minigraph
