// Kernels that reorder elements along dimensions: Roll (a cyclic shift)
// and ReverseSequence (each batch row's first seq_lengths elements
// reversed). Any dtype: they copy elements (CopyElements), in contiguous
// runs where the layout has them.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// A scalar or vector input's values.
absl::StatusOr<std::vector<int64_t>> ScalarOrVector(const OpKernelContext* ctx, int i,
                                                    const std::string& what) {
  if (ctx->input(i).dims() > 1) {
    const std::string shape = ctx->input(i).shape().DebugString();
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be a scalar or a 1-D vector, got shape ", shape));
  }
  return FlatInts(ctx->input(i), what);
}

// output[..., (i + shift) mod n, ...] = input[..., i, ...] along each
// axis; shifts of one axis add up.
class RollOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> shift, ScalarOrVector(ctx, 1, "Roll shift"));
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> axis, ScalarOrVector(ctx, 2, "Roll axis"));
    if (x.dims() < 1) {
      return absl::InvalidArgumentError("Roll: input must be 1-D or higher, got a scalar");
    }
    if (shift.size() != axis.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Roll: shift and axis must have the same size, got ", shift.size(), " and ",
          axis.size()));
    }
    const auto dims = x.shape().dim_sizes();
    const int rank = x.dims();
    std::vector<int64_t> by(rank, 0);
    for (size_t i = 0; i < axis.size(); ++i) {
      MG_ASSIGN_OR_RETURN(int64_t a, CanonicalAxis(axis[i], rank, "Roll"));
      if (dims[a] > 0) by[a] = ((by[a] + shift[i]) % dims[a] + dims[a]) % dims[a];
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &out));
    // Blocks: the elements after the last shifted axis move together.
    int last = -1;
    for (int d = 0; d < rank; ++d) {
      if (by[d] != 0) last = d;
    }
    int64_t inner = 1;
    for (int d = last + 1; d < rank; ++d) inner *= dims[d];
    const int64_t blocks = inner > 0 ? x.NumElements() / inner : 0;
    for (int64_t b = 0; b < blocks; ++b) {
      int64_t rest = b, target = 0, stride = 1;
      for (int d = last; d >= 0; --d) {
        const int64_t i = rest % dims[d];
        rest /= dims[d];
        target += ((i + by[d]) % dims[d]) * stride;
        stride *= dims[d];
      }
      CopyElements(x, b * inner, out, target * inner, inner);
    }
    return absl::OkStatus();
  }
};

// For each b along batch_dim, the first seq_lengths[b] elements along
// seq_dim reversed; the rest copied.
class ReverseSequenceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("seq_dim", &seq_dim_));
    return c->GetAttr("batch_dim", &batch_dim_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const Tensor& lengths_t = ctx->input(1);
    const int rank = x.dims();
    if (seq_dim_ < 0 || seq_dim_ >= rank || batch_dim_ < 0 || batch_dim_ >= rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ReverseSequence: seq_dim (", seq_dim_, ") and batch_dim (", batch_dim_,
          ") must be dimensions of the input, of rank ", rank));
    }
    if (seq_dim_ == batch_dim_) {
      return absl::InvalidArgumentError(
          absl::StrCat("ReverseSequence: seq_dim == batch_dim == ", seq_dim_));
    }
    const auto dims = x.shape().dim_sizes();
    if (lengths_t.dims() != 1 || lengths_t.dim_size(0) != dims[batch_dim_]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ReverseSequence: seq_lengths must be a vector of length input.dims(batch_dim) = ",
          dims[batch_dim_], ", got shape ", lengths_t.shape().DebugString()));
    }
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> lengths, FlatInts(lengths_t, "seq_lengths"));
    for (size_t b = 0; b < lengths.size(); ++b) {
      if (lengths[b] < 0 || lengths[b] > dims[seq_dim_]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "ReverseSequence: seq_lengths[", b, "] = ", lengths[b], " is not in [0, ",
            dims[seq_dim_], "] (input.dims(seq_dim))"));
      }
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &out));
    // Runs of the elements after the later of the two dimensions.
    const int hi = std::max(seq_dim_, batch_dim_);
    int64_t inner = 1;
    for (int d = hi + 1; d < rank; ++d) inner *= dims[d];
    const int64_t blocks = inner > 0 ? x.NumElements() / inner : 0;
    for (int64_t blk = 0; blk < blocks; ++blk) {
      int64_t rest = blk, seq = 0, batch = 0;
      for (int d = hi; d >= 0; --d) {
        const int64_t i = rest % dims[d];
        rest /= dims[d];
        if (d == seq_dim_) seq = i;
        if (d == batch_dim_) batch = i;
      }
      int64_t seq_stride = 1;
      for (int d = seq_dim_ + 1; d <= hi; ++d) seq_stride *= dims[d];
      const int64_t len = lengths[batch];
      const int64_t to = seq < len ? blk + (len - 1 - 2 * seq) * seq_stride : blk;
      CopyElements(x, blk * inner, out, to * inner, inner);
    }
    return absl::OkStatus();
  }

 private:
  int64_t seq_dim_ = 0;
  int64_t batch_dim_ = 0;
};

}  // namespace

void RegisterReorderKernels(KernelRegistry* r) {
  r->Register("Roll", MakeFactory<RollOp>());
  r->Register("ReverseSequence", MakeFactory<ReverseSequenceOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
