// The sparse segment reductions (embedding lookups' combiners): rows of
// `data` picked by `indices` and summed, averaged or divided by the square
// root of their count by sorted `segment_ids` (SparseSegmentSum, Mean,
// SqrtN, and their WithNumSegments forms), and their gradients' ops
// (SparseSegment*Grad, dense; *GradV2, the rows touched and their
// indices).
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"

namespace minigraph {
namespace kernels_internal {
namespace {

enum class SegmentKind { kSum, kMean, kSqrtN };

// The factor a segment of `count` rows scales its sum by.
template <SegmentKind K, typename T>
T SegmentScale(int64_t count) {
  if (K == SegmentKind::kSum || count == 0) return T(1);
  return K == SegmentKind::kMean ? T(1) / static_cast<T>(count)
                                 : T(1) / std::sqrt(static_cast<T>(count));
}

// Reads `indices` and `segment_ids` (inputs 1 and 2), of equal length.
absl::Status ReadIndicesAndIds(const OpKernelContext* ctx, const std::string& op,
                               std::vector<int64_t>* indices, std::vector<int64_t>* ids) {
  MG_ASSIGN_OR_RETURN(*indices, IntsFromTensor(ctx->input(1), absl::StrCat(op, " indices")));
  MG_ASSIGN_OR_RETURN(*ids, IntsFromTensor(ctx->input(2), absl::StrCat(op, " segment_ids")));
  if (ctx->input(1).dims() != 1 || ctx->input(2).dims() != 1 || indices->size() != ids->size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": indices and segment_ids should be vectors of the same size, got shapes ",
        ctx->input(1).shape().DebugString(), " and ", ctx->input(2).shape().DebugString()));
  }
  return absl::OkStatus();
}

// output[s] = the reduction of data[indices[i]] over the i with
// segment_ids[i] == s; segment_ids sorted, the output has num_segments
// rows (or max(segment_ids) + 1); empty segments are zeros.
template <SegmentKind K, bool kNumSegments>
struct SparseSegmentReductionFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Compute(OpKernelContext* ctx) const override {
      const Tensor& data = ctx->input(0);
      std::vector<int64_t> indices, ids;
      MG_RETURN_IF_ERROR(ReadIndicesAndIds(ctx, type_string(), &indices, &ids));
      if (data.dims() < 1) {
        return absl::InvalidArgumentError(absl::StrCat(type_string(),
                                                       ": data must be at least 1-D"));
      }
      int64_t rows = ids.empty() ? 0 : ids.back() + 1;
      if constexpr (kNumSegments) {
        MG_ASSIGN_OR_RETURN(std::vector<int64_t> n,
                            IntsFromTensor(ctx->input(3), "num_segments"));
        if (n.size() != 1 || n[0] < 0) {
          return absl::InvalidArgumentError(
              absl::StrCat(type_string(), ": num_segments must be a non-negative scalar"));
        }
        if (!ids.empty() && ids.back() >= n[0]) {
          return absl::InvalidArgumentError(absl::StrCat(
              type_string(), ": segment ids must be < num_segments (", n[0], "), got ",
              ids.back()));
        }
        rows = n[0];
      }
      const int64_t limit = data.dim_size(0);
      for (size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || (i > 0 && ids[i] < ids[i - 1])) {
          return absl::InvalidArgumentError(
              absl::StrCat(type_string(), ": segment ids are not increasing: segment_ids[", i,
                           "] = ", ids[i]));
        }
        if (indices[i] < 0 || indices[i] >= limit) {
          return absl::InvalidArgumentError(absl::StrCat(type_string(), ": indices[", i,
                                                         "] = ", indices[i],
                                                         " is out of range [0, ", limit, ")"));
        }
      }
      std::vector<int64_t> dims = {rows};
      dims.insert(dims.end(), data.shape().dim_sizes().begin() + 1,
                  data.shape().dim_sizes().end());
      MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
      Tensor* out;
      MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
      T* o = out->data<T>();
      std::fill(o, o + out->NumElements(), T(0));
      const int64_t inner = limit > 0 ? data.NumElements() / limit : 0;
      const T* in = data.data<T>();
      for (size_t begin = 0; begin < ids.size();) {
        size_t end = begin;
        while (end < ids.size() && ids[end] == ids[begin]) ++end;
        T* dst = o + ids[begin] * inner;
        for (size_t i = begin; i < end; ++i) {
          const T* src = in + indices[i] * inner;
          for (int64_t j = 0; j < inner; ++j) dst[j] += src[j];
        }
        if (K != SegmentKind::kSum) {
          const T count = static_cast<T>(end - begin);
          const T by = K == SegmentKind::kMean ? count : std::sqrt(count);
          for (int64_t j = 0; j < inner; ++j) dst[j] /= by;
        }
        begin = end;
      }
      return absl::OkStatus();
    }
  };
};

// The gradient of a sparse segment reduction: row indices[i] of a tensor
// of output_dim0 rows gets grad[segment_ids[i]], scaled as the forward
// scaled that segment, summed over the i that pick it. The V2 form returns
// only the rows touched and their sorted indices.
template <SegmentKind K, bool kV2>
struct SparseSegmentGradFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Compute(OpKernelContext* ctx) const override {
      const Tensor& grad = ctx->input(0);
      std::vector<int64_t> indices, ids;
      MG_RETURN_IF_ERROR(ReadIndicesAndIds(ctx, type_string(), &indices, &ids));
      MG_ASSIGN_OR_RETURN(std::vector<int64_t> dim0, IntsFromTensor(ctx->input(3), "output_dim0"));
      if (dim0.size() != 1 || dim0[0] < 0 || grad.dims() < 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            type_string(), ": output_dim0 must be a non-negative scalar and grad at least 1-D"));
      }
      const int64_t segments = grad.dim_size(0);
      std::vector<int64_t> count(segments, 0);
      for (size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] >= segments) {
          return absl::InvalidArgumentError(absl::StrCat(
              type_string(), ": Invalid number of segments: segment_ids[", i, "] = ", ids[i],
              " where grad has ", segments));
        }
        if (indices[i] < 0 || indices[i] >= dim0[0]) {
          return absl::InvalidArgumentError(absl::StrCat(type_string(), ": Index ", indices[i],
                                                         " out of range [0, ", dim0[0], ")"));
        }
        ++count[ids[i]];
      }
      // Each touched row's position in the output.
      std::map<int64_t, int64_t> rows;
      for (int64_t index : indices) rows.emplace(index, 0);
      int64_t next = 0;
      for (auto& [index, row] : rows) row = kV2 ? next++ : index;
      std::vector<int64_t> dims = {kV2 ? static_cast<int64_t>(rows.size()) : dim0[0]};
      dims.insert(dims.end(), grad.shape().dim_sizes().begin() + 1,
                  grad.shape().dim_sizes().end());
      MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
      Tensor* out;
      MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
      T* o = out->data<T>();
      std::fill(o, o + out->NumElements(), T(0));
      const int64_t inner = segments > 0 ? grad.NumElements() / segments : 0;
      const T* g = grad.data<T>();
      for (size_t i = 0; i < ids.size(); ++i) {
        const T scale = SegmentScale<K, T>(count[ids[i]]);
        T* dst = o + rows[indices[i]] * inner;
        const T* src = g + ids[i] * inner;
        for (int64_t j = 0; j < inner; ++j) dst[j] += src[j] * scale;
      }
      if constexpr (kV2) {
        Tensor* unique;
        MG_RETURN_IF_ERROR(ctx->allocate_output(
            1, TensorShape({static_cast<int64_t>(rows.size())}), &unique));
        int64_t k = 0;
        for (const auto& entry : rows) {
          if (unique->dtype() == DT_INT32) {
            unique->data<int32_t>()[k++] = static_cast<int32_t>(entry.first);
          } else {
            unique->data<int64_t>()[k++] = entry.first;
          }
        }
      }
      return absl::OkStatus();
    }
  };
};

template <SegmentKind K>
using Reduce = SparseSegmentReductionFor<K, false>;
template <SegmentKind K>
using ReduceTo = SparseSegmentReductionFor<K, true>;
template <SegmentKind K>
using Grad = SparseSegmentGradFor<K, false>;
template <SegmentKind K>
using GradV2 = SparseSegmentGradFor<K, true>;

}  // namespace

void RegisterSparseSegmentKernels(KernelRegistry* r) {
  using K = SegmentKind;
  r->Register("SparseSegmentSum",
              TypedFactory<Reduce<K::kSum>::Op, float, double, int32_t, int64_t>());
  r->Register("SparseSegmentSumWithNumSegments",
              TypedFactory<ReduceTo<K::kSum>::Op, float, double, int32_t, int64_t>());
  r->Register("SparseSegmentMean", TypedFactory<Reduce<K::kMean>::Op, float, double>());
  r->Register("SparseSegmentMeanWithNumSegments",
              TypedFactory<ReduceTo<K::kMean>::Op, float, double>());
  r->Register("SparseSegmentSqrtN", TypedFactory<Reduce<K::kSqrtN>::Op, float, double>());
  r->Register("SparseSegmentSqrtNWithNumSegments",
              TypedFactory<ReduceTo<K::kSqrtN>::Op, float, double>());
  r->Register("SparseSegmentSumGrad", TypedFactory<Grad<K::kSum>::Op, float, double>());
  r->Register("SparseSegmentMeanGrad", TypedFactory<Grad<K::kMean>::Op, float, double>());
  r->Register("SparseSegmentSqrtNGrad", TypedFactory<Grad<K::kSqrtN>::Op, float, double>());
  r->Register("SparseSegmentSumGradV2", TypedFactory<GradV2<K::kSum>::Op, float, double>());
  r->Register("SparseSegmentMeanGradV2", TypedFactory<GradV2<K::kMean>::Op, float, double>());
  r->Register("SparseSegmentSqrtNGradV2", TypedFactory<GradV2<K::kSqrtN>::Op, float, double>());
}

}  // namespace kernels_internal
}  // namespace minigraph
