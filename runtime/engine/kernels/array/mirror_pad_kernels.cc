// MirrorPad and its gradient MirrorPadGrad, as TensorFlow's
// mirror_pad_op.cc defines them: each dimension padded with its own
// elements mirrored at its edges, the edge element itself repeated
// (SYMMETRIC) or not (REFLECT); the gradient sums the padded tensor's
// gradient back onto the elements it copied. Inputs of rank 0 to 5.
#include <cstdint>
#include <string>
#include <vector>

#include "Eigen/Core"  // half, bfloat16
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

constexpr int kMaxRank = 5;

// For each position of a padded dimension, the position of the unpadded
// one it copies.
std::vector<int64_t> MirrorMap(int64_t size, int64_t before, int64_t after, bool reflect) {
  std::vector<int64_t> map(size + before + after);
  for (int64_t o = 0; o < static_cast<int64_t>(map.size()); ++o) {
    int64_t i = o - before;
    if (i < 0) i = reflect ? -i : -i - 1;
    if (i >= size) i = reflect ? 2 * (size - 1) - i : 2 * size - 1 - i;
    map[o] = i;
  }
  return map;
}

// The mode and paddings of a MirrorPad (`padded` false) or MirrorPadGrad
// of `input`, checked as TensorFlow checks them; for each dimension the map
// from the padded positions to the unpadded ones.
absl::StatusOr<std::vector<std::vector<int64_t>>> Maps(const Tensor& input, const Tensor& pads_t,
                                                       bool reflect, bool grad) {
  const int rank = input.dims();
  if (rank > kMaxRank) {
    return absl::UnimplementedError(absl::StrCat("inputs rank not in [0,", kMaxRank, "]: ", rank));
  }
  if (pads_t.dims() != 2 || pads_t.dim_size(1) != 2) {
    return absl::InvalidArgumentError(absl::StrCat("paddings must be a matrix with 2 columns: ",
                                                   pads_t.shape().DebugString()));
  }
  if (pads_t.dim_size(0) != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("The first dimension of paddings must be the rank of inputs",
                     pads_t.shape().DebugString(), ", ", input.shape().DebugString()));
  }
  MG_ASSIGN_OR_RETURN(std::vector<int64_t> pads, FlatInts(pads_t, "paddings"));
  std::vector<std::vector<int64_t>> maps(rank);
  for (int d = 0; d < rank; ++d) {
    const int64_t before = pads[2 * d], after = pads[2 * d + 1];
    if (before < 0 || after < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("paddings must be non-negative: ", before, " ", after));
    }
    if (grad && before + after >= input.dim_size(d)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Total paddings must be less than the input dimension size: ",
                       before + after, " was not less than ", input.dim_size(d)));
    }
    // The unpadded size: the input's, or (the gradient) the input's less
    // the paddings.
    const int64_t size = grad ? input.dim_size(d) - before - after : input.dim_size(d);
    if (size < 0 || (reflect ? before >= size || after >= size : before > size || after > size)) {
      return absl::InvalidArgumentError(
          absl::StrCat("paddings must be ", reflect ? "less than" : "no greater than",
                       " the dimension size: ", before, ", ", after,
                       reflect ? " not less than " : " greater than ", size));
    }
    maps[d] = MirrorMap(size, before, after, reflect);
  }
  return maps;
}

// Calls fn(padded index, unpadded index) for every element of the padded
// tensor (dimensions: the maps' sizes; the unpadded one's `dims`), rows
// split over the intra-op threads when `parallel`.
template <typename F>
void ForEachPadded(const OpKernelContext* ctx, const std::vector<std::vector<int64_t>>& maps,
                   const std::vector<int64_t>& dims, bool parallel, const F& fn) {
  const int rank = static_cast<int>(maps.size());
  if (rank == 0) {
    fn(0, 0);
    return;
  }
  std::vector<int64_t> strides(rank, 1);
  for (int d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * dims[d + 1];
  const std::vector<int64_t>& inner = maps[rank - 1];
  const int64_t row = static_cast<int64_t>(inner.size());
  int64_t rows = 1;
  for (int d = 0; d + 1 < rank; ++d) rows *= static_cast<int64_t>(maps[d].size());
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t at = 0, rest = r;
      for (int d = rank - 2; d >= 0; --d) {
        const int64_t n = static_cast<int64_t>(maps[d].size());
        at += maps[d][rest % n] * strides[d];
        rest /= n;
      }
      for (int64_t k = 0; k < row; ++k) fn(r * row + k, at + inner[k]);
    }
  };
  if (parallel) {
    ctx->ParallelFor(rows, row, row, row, run);
  } else {
    run(0, rows);
  }
}

class MirrorPadBase : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    std::string mode;
    MG_RETURN_IF_ERROR(c->GetAttr("mode", &mode));
    if (mode != "REFLECT" && mode != "SYMMETRIC") {
      return absl::InvalidArgumentError(
          absl::StrCat("mode must be REFLECT or SYMMETRIC, got ", mode));
    }
    reflect_ = mode == "REFLECT";
    return absl::OkStatus();
  }

 protected:
  bool reflect_ = true;
};

template <typename T>
class MirrorPadOp : public MirrorPadBase {
 public:
  using MirrorPadBase::MirrorPadBase;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    MG_ASSIGN_OR_RETURN(auto maps, Maps(in, ctx->input(1), reflect_, /*grad=*/false));
    std::vector<int64_t> out_dims;
    for (const auto& m : maps) out_dims.push_back(static_cast<int64_t>(m.size()));
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(out_dims));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    const T* x = in.data<T>();
    T* y = out->data<T>();
    const std::vector<int64_t> dims(in.shape().dim_sizes().begin(), in.shape().dim_sizes().end());
    ForEachPadded(ctx, maps, dims, true, [&](int64_t o, int64_t i) { y[o] = x[i]; });
    return absl::OkStatus();
  }
};

// Sums the padded gradient onto the unpadded positions; one thread (the
// sums to one position come from several rows).
template <typename T>
class MirrorPadGradOp : public MirrorPadBase {
 public:
  using MirrorPadBase::MirrorPadBase;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    MG_ASSIGN_OR_RETURN(auto maps, Maps(in, ctx->input(1), reflect_, /*grad=*/true));
    std::vector<int64_t> out_dims;
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> pads, FlatInts(ctx->input(1), "paddings"));
    for (int d = 0; d < in.dims(); ++d) {
      out_dims.push_back(in.dim_size(d) - pads[2 * d] - pads[2 * d + 1]);
    }
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(out_dims));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    T* y = out->data<T>();
    std::fill(y, y + out->NumElements(), T(0));
    if (in.NumElements() == 0) return absl::OkStatus();
    const T* g = in.data<T>();
    ForEachPadded(ctx, maps, out_dims, false, [&](int64_t o, int64_t i) { y[i] += g[o]; });
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterMirrorPadKernels(KernelRegistry* r) {
  r->Register("MirrorPad",
              TypedFactory<MirrorPadOp, float, double, int32_t, int64_t, bool, uint8_t, int8_t,
                           int16_t, uint16_t, uint32_t, uint64_t, half, bfloat16, complex64,
                           complex128, std::string>());
  r->Register("MirrorPadGrad",
              TypedFactory<MirrorPadGradOp, float, double, int32_t, int64_t, complex64,
                           complex128>());
}

}  // namespace kernels_internal
}  // namespace minigraph
