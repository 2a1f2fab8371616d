// Indexing by tuples and by value: GatherNd, ScatterNd, TensorScatter*,
// Bucketize, ListDiff, Unique and DenseBincount (what feature columns,
// embedding lookups and ragged tensors build). The segment reductions are
// in segment_reduction_kernels.cc.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/scatter.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/kernels/internal/wrapping.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// output[i...] = params[indices[i..., :]]: each index tuple of length k
// picks a slice of params's trailing rank - k dims.
template <typename Index>
class GatherNdOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    // Out-of-range indices are an error ("" and "DEFAULT" on a CPU mean it).
    std::string policy;
    MG_RETURN_IF_ERROR(c->GetAttr("bad_indices_policy", &policy));
    if (!policy.empty() && policy != "DEFAULT" && policy != "ERROR") {
      return absl::UnimplementedError(
          absl::StrCat("GatherNd's bad_indices_policy \"", policy,
                       "\" is not supported (\"\", DEFAULT and ERROR are)"));
    }
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    if (indices.dims() < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "GatherNd indices must be at least 1-D, got shape ", indices.shape().DebugString()));
    }
    const auto pd = params.shape().dim_sizes();
    const auto id = indices.shape().dim_sizes();
    const int64_t k = id.back();
    if (k > params.dims()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "GatherNd: index innermost dimension length must be <= params rank; saw: ", k, " vs. ",
          params.dims()));
    }
    std::vector<int64_t> dims(id.begin(), id.end() - 1);
    const std::vector<int64_t> batch = dims;
    dims.insert(dims.end(), pd.begin() + k, pd.end());
    MG_ASSIGN_OR_RETURN(TensorShape out_shape, TensorShape::Build(dims));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    int64_t slice = 1;
    for (size_t d = k; d < pd.size(); ++d) slice *= pd[d];
    int64_t n = 1;
    for (int64_t b : batch) n *= b;
    const Index* idx = indices.data<Index>();
    for (int64_t i = 0; i < n; ++i) {
      int64_t offset = 0;
      for (int64_t d = 0; d < k; ++d) {
        const Index v = idx[i * k + d];
        if (v < 0 || v >= pd[d]) {
          std::vector<Index> tuple(idx + i * k, idx + (i + 1) * k);
          return absl::InvalidArgumentError(
              absl::StrCat("indices", ElementPosition(batch, i), " = [", absl::StrJoin(tuple, ", "),
                           "] does not index into param shape ", params.shape().DebugString()));
        }
        offset = offset * pd[d] + v;
      }
      CopyElements(params, offset * slice, out, i * slice, slice);
    }
    return absl::OkStatus();
  }
};

// ScatterNd: zeros of `shape` with updates[i..., ...] added at the slice
// indices[i..., :] names (the same slice named twice gets both), the
// inverse of GatherNd and its gradient.
template <typename T>
class ScatterNdOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return ReadBadIndices(c, &policy_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& shape_t = ctx->input(2);
    if (shape_t.dims() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ScatterNd: shape must be a vector, got shape ", shape_t.shape().DebugString()));
    }
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> dims, FlatInts(shape_t, "shape"));
    MG_ASSIGN_OR_RETURN(TensorShape out_shape, TensorShape::Build(dims));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), T(0));
    return ScatterNdInto<ScatterKind::kAdd, T>("ScatterNd", ctx->input(0), ctx->input(1),
                                               out_shape, policy_, o);
  }

 private:
  BadIndices policy_ = BadIndices::kError;
};

// TensorScatterUpdate/Add/Sub/Min/Max and ScatterNdNonAliasingAdd: a copy
// of `tensor` with the updates combined into the slices the index tuples
// name (the input's buffer reused when nothing else holds it).
template <ScatterKind K>
struct TensorScatterFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Init(OpKernelConstruction* c) { return ReadBadIndices(c, &policy_); }
    absl::Status Compute(OpKernelContext* ctx) const override {
      Tensor out;
      if (!ctx->forward_input(0, &out)) out = tensor::DeepCopy(ctx->input(0));
      MG_RETURN_IF_ERROR((ScatterNdInto<K, T>(type_string(), ctx->input(1), ctx->input(2),
                                              out.shape(), policy_, out.data<T>())));
      ctx->set_output(0, std::move(out));
      return absl::OkStatus();
    }

   private:
    BadIndices policy_ = BadIndices::kError;
  };
};

// Bucketize: for each element, the number of boundaries at or below it
// (its bucket among the sorted boundaries).
template <typename T>
class BucketizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("boundaries", &boundaries_));
    if (!std::is_sorted(boundaries_.begin(), boundaries_.end())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Bucketize node '", c->def().name(), "': Expected sorted boundaries, got [",
          absl::StrJoin(boundaries_, ", "), "]"));
    }
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &out));
    const T* in = x.data<T>();
    int32_t* o = out->data<int32_t>();
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      o[i] = static_cast<int32_t>(
          std::upper_bound(boundaries_.begin(), boundaries_.end(), in[i]) - boundaries_.begin());
    }
    return absl::OkStatus();
  }

 private:
  std::vector<float> boundaries_;
};

// ListDiff (tf.compat.v1.setdiff1d): the elements of the vector x that are
// not in the vector y, in x's order (repeats kept), and their positions in
// x.
template <typename T>
class ListDiffOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    if (x.dims() != 1 || y.dims() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ListDiff: x and y must be vectors, got shapes ", x.shape().DebugString(), " and ",
          y.shape().DebugString()));
    }
    const T* xs = x.data<T>();
    const absl::flat_hash_set<T> drop(y.data<T>(), y.data<T>() + y.NumElements());
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      if (!drop.contains(xs[i])) kept.push_back(i);
    }
    const int64_t n = static_cast<int64_t>(kept.size());
    Tensor* out;
    Tensor* idx;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({n}), &out));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({n}), &idx));
    for (int64_t i = 0; i < n; ++i) {
      out->data<T>()[i] = xs[kept[i]];
      if (idx->dtype() == DT_INT32) {
        idx->data<int32_t>()[i] = static_cast<int32_t>(kept[i]);
      } else {
        idx->data<int64_t>()[i] = kept[i];
      }
    }
    return absl::OkStatus();
  }
};

// y: the distinct elements of the vector x in order of first appearance;
// idx[i]: the position of x[i] in y; UniqueWithCounts adds count[j], how
// often y[j] occurs in x.
template <typename T>
class UniqueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    with_counts_ = c->def().op() == "UniqueWithCounts";
    return c->GetAttr("out_idx", &out_idx_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    if (x.dims() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("Unique expects a 1-D vector, got shape ", x.shape().DebugString()));
    }
    const int64_t n = x.NumElements();
    const T* xs = x.data<T>();
    Tensor* idx;
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, x.shape(), &idx));
    absl::flat_hash_map<T, int64_t> first;
    first.reserve(n);
    std::vector<int64_t> order;
    for (int64_t i = 0; i < n; ++i) {
      auto [it, fresh] = first.try_emplace(xs[i], static_cast<int64_t>(order.size()));
      if (fresh) order.push_back(i);
      if (out_idx_ == DT_INT32) {
        idx->data<int32_t>()[i] = static_cast<int32_t>(it->second);
      } else {
        idx->data<int64_t>()[i] = it->second;
      }
    }
    Tensor* y;
    MG_RETURN_IF_ERROR(
        ctx->allocate_output(0, TensorShape({static_cast<int64_t>(order.size())}), &y));
    for (size_t j = 0; j < order.size(); ++j) y->data<T>()[j] = xs[order[j]];
    if (with_counts_) {
      std::vector<int64_t> counts(order.size());
      for (int64_t i = 0; i < n; ++i) {
        ++counts[out_idx_ == DT_INT32 ? idx->data<int32_t>()[i] : idx->data<int64_t>()[i]];
      }
      Tensor* count;
      MG_RETURN_IF_ERROR(ctx->allocate_output(2, y->shape(), &count));
      for (size_t j = 0; j < counts.size(); ++j) {
        if (out_idx_ == DT_INT32) {
          count->data<int32_t>()[j] = static_cast<int32_t>(counts[j]);
        } else {
          count->data<int64_t>()[j] = counts[j];
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  bool with_counts_ = false;
  DataType out_idx_ = DT_INT32;
};

// DenseBincount: output[v] counts (or sums the weights of) the elements equal
// to v, for v in [0, size); larger values are left out, as in TensorFlow. A
// 2-D input counts each row apart. Weights are either empty (all 1) or
// shaped as the input; binary_output makes every count present 1.
template <typename T>
class DenseBincountOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("binary_output", &binary_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const Tensor& weights = ctx->input(2);
    if (input.dims() > 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("Shape must be at most rank 2 but is rank ", input.dims()));
    }
    if (ctx->input(1).dims() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Shape must be rank 0 but is rank ", ctx->input(1).dims()));
    }
    const bool weighted = weights.NumElements() > 0;
    if (weighted && weights.shape() != input.shape()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which case it "
          "acts as all weights equal to 1. Received ",
          weights.shape().DebugString()));
    }
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> size, FlatInts(ctx->input(1), "DenseBincount size"));
    if (size[0] < 0) {
      return absl::InvalidArgumentError(absl::StrCat("size (", size[0], ") must be non-negative"));
    }
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> values, FlatInts(input, "DenseBincount input"));
    for (int64_t v : values) {
      if (v < 0) return absl::InvalidArgumentError("Input arr must be non-negative!");
    }
    const int64_t rows = input.dims() == 2 ? input.dim_size(0) : 1;
    const int64_t cols = input.dims() == 2 ? input.dim_size(1) : input.NumElements();
    MG_ASSIGN_OR_RETURN(TensorShape out_shape, input.dims() == 2
                                                   ? TensorShape::Build({rows, size[0]})
                                                   : TensorShape::Build({size[0]}));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), T(0));
    const T* w = weighted ? weights.data<T>() : nullptr;
    for (int64_t i = 0; i < rows; ++i) {
      T* row = o + i * size[0];
      for (int64_t j = i * cols; j < (i + 1) * cols; ++j) {
        const int64_t v = values[j];
        if (v >= size[0]) continue;
        if (binary_) {
          row[v] = T(1);
        } else {
          row[v] += w != nullptr ? w[j] : T(1);
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  bool binary_ = false;
};

}  // namespace

void RegisterSegmentKernels(KernelRegistry* r) {
  r->Register("GatherNd", TypedFactory<GatherNdOp, int32_t, int64_t>("Tindices"));
  r->Register("ScatterNd", TypedFactory<ScatterNdOp, float, double, int32_t, int64_t>());
  using K = ScatterKind;
  r->Register("TensorScatterUpdate",
              TypedFactory<TensorScatterFor<K::kUpdate>::Op, float, double, int32_t, int64_t>());
  r->Register("TensorScatterAdd",
              TypedFactory<TensorScatterFor<K::kAdd>::Op, float, double, int32_t, int64_t>());
  r->Register("ScatterNdNonAliasingAdd",
              TypedFactory<TensorScatterFor<K::kAdd>::Op, float, double, int32_t, int64_t>());
  r->Register("TensorScatterSub",
              TypedFactory<TensorScatterFor<K::kSub>::Op, float, double, int32_t, int64_t>());
  r->Register("TensorScatterMin",
              TypedFactory<TensorScatterFor<K::kMin>::Op, float, double, int32_t, int64_t>());
  r->Register("TensorScatterMax",
              TypedFactory<TensorScatterFor<K::kMax>::Op, float, double, int32_t, int64_t>());
  r->Register("Bucketize", TypedFactory<BucketizeOp, float, double, int32_t, int64_t>());
  r->Register("ListDiff", TypedFactory<ListDiffOp, float, double, int32_t, int64_t, std::string>());
  auto unique = TypedFactory<UniqueOp, float, double, int32_t, int64_t, std::string>();
  r->Register("Unique", unique);
  r->Register("UniqueWithCounts", unique);
  r->Register("DenseBincount", TypedFactory<DenseBincountOp, float, double, int32_t, int64_t>());
}

}  // namespace kernels_internal
}  // namespace minigraph
