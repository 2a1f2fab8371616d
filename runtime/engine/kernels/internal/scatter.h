// Scatters: updates combined into a tensor's buffer, at rows (Scatter*,
// ResourceScatter*: indices into dimension 0) or at the slices that index
// tuples name (ScatterNd*, TensorScatter*: the last dimension of `indices`
// holds k coordinates into the first k dimensions). Each checks every
// index and the updates' shape before it writes anything, so a bad input
// leaves the buffer as it was; then the updates go in in order, so a
// repeated index gets each of its updates (the last one wins for kUpdate).
//
//   MG_RETURN_IF_ERROR(ScatterNdInto<ScatterKind::kAdd>("TensorScatterAdd", indices,
//                                                       updates, out->shape(),
//                                                       BadIndices::kError, out->data<T>()));
#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_SCATTER_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_SCATTER_H_

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/kernels/internal/wrapping.h"

namespace minigraph {
namespace kernels_internal {

enum class ScatterKind { kUpdate, kAdd, kSub, kMul, kDiv, kMin, kMax };

// What an index out of range does: TensorFlow's bad_indices_policy ("",
// "DEFAULT" and "ERROR" refuse the whole op; "IGNORE" skips that update).
enum class BadIndices { kError, kIgnore };

// Reads a node's bad_indices_policy attr (absent: kError).
template <typename Construction>
absl::Status ReadBadIndices(const Construction* c, BadIndices* policy) {
  *policy = BadIndices::kError;
  if (!c->def().attr().contains("bad_indices_policy")) return absl::OkStatus();
  std::string s;
  MG_RETURN_IF_ERROR(c->GetAttr("bad_indices_policy", &s));
  if (s == "IGNORE") {
    *policy = BadIndices::kIgnore;
  } else if (!s.empty() && s != "DEFAULT" && s != "ERROR") {
    return absl::InvalidArgumentError(absl::StrCat(c->def().op(), " node '", c->def().name(),
                                                   "': unknown bad_indices_policy \"", s, "\""));
  }
  return absl::OkStatus();
}

// dst combined with u (integers wrap, as TensorFlow's do).
template <ScatterKind K, typename T>
inline T ScatterCombine(T dst, T u) {
  switch (K) {
    case ScatterKind::kUpdate: return u;
    case ScatterKind::kAdd: return WrapAdd(dst, u);
    case ScatterKind::kSub: return WrapSub(dst, u);
    case ScatterKind::kMul: return WrapMul(dst, u);
    case ScatterKind::kDiv: return dst / u;
    case ScatterKind::kMin: return std::min(dst, u);
    case ScatterKind::kMax: return std::max(dst, u);
  }
  return u;
}

// Integer division by zero traps; TensorFlow's would crash the process.
template <ScatterKind K, typename T>
absl::Status CheckDivisors(absl::string_view op, const Tensor& updates) {
  if constexpr (K == ScatterKind::kDiv && std::is_integral_v<T>) {
    const T* u = updates.data<T>();
    if (std::find(u, u + updates.NumElements(), T(0)) != u + updates.NumElements()) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": an update divides by zero"));
    }
  }
  return absl::OkStatus();
}

// Applies `offsets[i]` (in slices of `slice` elements, -1 to skip) of the
// updates to out; a scalar `updates` is every update.
template <ScatterKind K, typename T>
void ScatterSlices(const std::vector<int64_t>& offsets, int64_t slice, const Tensor& updates,
                   T* out) {
  const T* u = updates.data<T>();
  const bool scalar = updates.dims() == 0;
  for (size_t i = 0; i < offsets.size(); ++i) {
    if (offsets[i] < 0) continue;
    T* dst = out + offsets[i] * slice;
    const T* src = u + i * slice;
    for (int64_t j = 0; j < slice; ++j) {
      dst[j] = ScatterCombine<K, T>(dst[j], scalar ? u[0] : src[j]);
    }
  }
}

// Scatter* on rows: updates (indices.shape + shape[1:], or a scalar)
// combined into rows indices[...] of `out`, a tensor of `shape`.
template <ScatterKind K, typename T>
absl::Status ScatterRowsInto(absl::string_view op, const Tensor& indices, const Tensor& updates,
                             const TensorShape& shape, T* out) {
  if (shape.dims() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": the variable must be at least 1-D, got shape ", shape.DebugString()));
  }
  std::vector<int64_t> want(indices.shape().dim_sizes().begin(),
                            indices.shape().dim_sizes().end());
  want.insert(want.end(), shape.dim_sizes().begin() + 1, shape.dim_sizes().end());
  if (updates.dims() != 0 && updates.shape() != TensorShape(want)) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], "
            "got updates.shape ",
        updates.shape().DebugString(), ", indices.shape ", indices.shape().DebugString(),
        ", params.shape ", shape.DebugString()));
  }
  MG_ASSIGN_OR_RETURN(std::vector<int64_t> rows, FlatInts(indices, absl::StrCat(op, " indices")));
  const int64_t limit = shape.dim_size(0);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] < 0 || rows[i] >= limit) {
      const std::string at =
          ElementPosition(indices.shape().dim_sizes(), static_cast<int64_t>(i));
      return absl::InvalidArgumentError(absl::StrCat(op, ": indices", at, " = ", rows[i],
                                                     " is not in [0, ", limit, ")"));
    }
  }
  MG_RETURN_IF_ERROR((CheckDivisors<K, T>(op, updates)));
  ScatterSlices<K, T>(rows, limit > 0 ? shape.num_elements() / limit : 0, updates, out);
  return absl::OkStatus();
}

// ScatterNd* and TensorScatter*: updates (indices.shape[:-1] +
// shape[k:], k = indices.shape[-1]) combined into the slices of `out`, a
// tensor of `shape`, that the index tuples name.
template <ScatterKind K, typename T>
absl::Status ScatterNdInto(absl::string_view op, const Tensor& indices, const Tensor& updates,
                           const TensorShape& shape, BadIndices policy, T* out) {
  if (indices.dims() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": indices must be at least 1-D, got shape ", indices.shape().DebugString()));
  }
  const auto id = indices.shape().dim_sizes();
  const auto dims = shape.dim_sizes();
  const int64_t k = id.back();
  if (k > shape.dims()) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": the indices' innermost dimension (", k,
                                                   ") must be <= the rank of shape ",
                                                   shape.DebugString()));
  }
  const std::vector<int64_t> batch(id.begin(), id.end() - 1);
  std::vector<int64_t> want = batch;
  want.insert(want.end(), dims.begin() + k, dims.end());
  if (updates.shape() != TensorShape(want)) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": updates have shape ", updates.shape().DebugString(), " where indices ",
        indices.shape().DebugString(), " and shape ", shape.DebugString(), " need ",
        TensorShape(want).DebugString()));
  }
  if (updates.NumElements() > 0 && shape.num_elements() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": indices and updates given for an empty shape ", shape.DebugString()));
  }
  MG_ASSIGN_OR_RETURN(std::vector<int64_t> idx, FlatInts(indices, absl::StrCat(op, " indices")));
  const int64_t n =
      k > 0 ? static_cast<int64_t>(idx.size()) / k : TensorShape(batch).num_elements();
  std::vector<int64_t> offsets(n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t offset = 0;
    for (int64_t d = 0; d < k; ++d) {
      const int64_t v = idx[i * k + d];
      if (v < 0 || v >= dims[d]) {
        if (policy == BadIndices::kIgnore) {
          offset = -1;
          break;
        }
        std::vector<int64_t> tuple(idx.begin() + i * k, idx.begin() + (i + 1) * k);
        return absl::InvalidArgumentError(absl::StrCat(
            op, ": indices", ElementPosition(batch, i), " = [", absl::StrJoin(tuple, ", "),
            "] does not index into shape ", shape.DebugString()));
      }
      offset = offset * dims[d] + v;
    }
    offsets[i] = offset;
  }
  MG_RETURN_IF_ERROR((CheckDivisors<K, T>(op, updates)));
  int64_t slice = 1;
  for (size_t d = k; d < dims.size(); ++d) slice *= dims[d];
  ScatterSlices<K, T>(offsets, slice, updates, out);
  return absl::OkStatus();
}

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_SCATTER_H_
