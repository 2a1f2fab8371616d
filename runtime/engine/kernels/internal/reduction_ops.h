// Sum, Mean, Max, Min and Prod over any set of axes: one kernel template,
// instantiated per reducer in reduction_*_kernels.cc.
//
// Adjacent axes that are all reduced or all kept are merged first, so every
// reduction becomes one of a few Eigen reductions of rank <= 4.
#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_REDUCTION_OPS_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_REDUCTION_OPS_H_

#include <algorithm>
#include <array>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/tensor_types.h"
#include "runtime/engine/kernels/internal/eigen_util.h"
#include "runtime/engine/kernel_registry.h"

namespace minigraph {
namespace kernels_internal {

template <typename T, typename Reducer>
class ReductionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("keep_dims", &keep_dims_); }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> axes,
                        IntsFromTensor(ctx->input(1), "reduction_indices"));
    std::vector<bool> reduced(x.dims(), false);
    for (int64_t a : axes) {
      if (a < -x.dims() || a >= x.dims()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Invalid reduction dimension ", a, " for input with ", x.dims(), " dimensions"));
      }
      reduced[a < 0 ? a + x.dims() : a] = true;
    }
    std::vector<int64_t> out_dims;
    // Merged groups: sizes and whether each is reduced.
    std::vector<int64_t> group;
    std::vector<bool> group_reduced;
    for (int d = 0; d < x.dims(); ++d) {
      if (!reduced[d]) {
        out_dims.push_back(x.dim_size(d));
      } else if (keep_dims_) {
        out_dims.push_back(1);
      }
      if (x.dim_size(d) == 1) continue;  // size 1: neither reduced nor kept matters
      if (!group.empty() && group_reduced.back() == reduced[d]) {
        group.back() *= x.dim_size(d);
      } else {
        group.push_back(x.dim_size(d));
        group_reduced.push_back(reduced[d]);
      }
    }
    MG_ASSIGN_OR_RETURN(TensorShape out_shape, TensorShape::Build(out_dims));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    auto flat_out = out->flat<T>();
    const bool any_reduced =
        std::find(group_reduced.begin(), group_reduced.end(), true) != group_reduced.end();
    if (x.NumElements() == 0 || !any_reduced) {
      if (x.NumElements() == out->NumElements()) {
        // Nothing to combine (only size-1 or no axes reduced).
        Evaluate(ctx, flat_out, x.flat<T>());
      } else {
        // Reducing over an empty axis: every output is the reducer's identity.
        Reducer reducer;
        auto accum = reducer.initialize();
        Evaluate(ctx, flat_out, flat_out.constant(reducer.finalize(accum)));
      }
      return absl::OkStatus();
    }
    const bool first_reduced = group_reduced[0];
    switch (group.size()) {
      case 1: return Reduce<1, 1>(ctx, x, group, {0}, out);
      case 2: return first_reduced ? Reduce<2, 1>(ctx, x, group, {0}, out)
                                   : Reduce<2, 1>(ctx, x, group, {1}, out);
      // Three groups take the four-group reduction with a trailing group of
      // size 1, so each reducer and dtype compiles one reduction fewer.
      case 3: group.push_back(1);
              [[fallthrough]];
      case 4: return first_reduced ? Reduce<4, 2>(ctx, x, group, {0, 2}, out)
                                   : Reduce<4, 2>(ctx, x, group, {1, 3}, out);
      default:
        return absl::UnimplementedError(absl::StrCat(
            "reducing ", x.shape().DebugString(), " over these axes alternates reduced and kept "
            "dimensions more than 4 times; not supported"));
    }
  }

 private:
  template <int N, int R>
  static absl::Status Reduce(OpKernelContext* ctx, const Tensor& x,
                             const std::vector<int64_t>& group, std::array<int, R> axes,
                             Tensor* out) {
    Eigen::array<int, R> reduce_dims;
    for (int i = 0; i < R; ++i) reduce_dims[i] = axes[i];
    auto in = x.shaped<T, N>(group);
    auto flat_out = out->flat<T>();
    constexpr int kOutRank = N - R;
    if constexpr (kOutRank == 0) {
      auto scalar = out->shaped<T, 1>({1});
      Evaluate(ctx, scalar, in.reduce(reduce_dims, Reducer()).reshape(Eigen::array<int, 1>{1}));
    } else {
      Eigen::array<Eigen::DenseIndex, 1> flat_dims{flat_out.size()};
      Evaluate(ctx, flat_out, in.reduce(reduce_dims, Reducer()).reshape(flat_dims));
    }
    return absl::OkStatus();
  }

  bool keep_dims_ = false;
};

template <template <typename> class R>
struct ReductionFor {
  template <typename T>
  using Op = ReductionOp<T, R<T>>;
};

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_REDUCTION_OPS_H_
