// Cutting and joining SparseTensors, as TensorFlow's sparse_slice_op.cc,
// sparse_split_op.cc and sparse_concat_op.cc define them: SparseSlice (the
// entries inside a box, moved to its corner; the box clipped to the
// shape), SparseSplit (num_split parts along one dimension, the first
// dim % num_split of them one longer; entries keep their order) and
// SparseConcat (entries in row-major order whatever the inputs'), and
// SparseSliceGrad. Values of any dtype, moved by element size.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/kernels/sparse/sparse_input.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// Allocates output `at` (indices [n, rank]) and returns its data.
absl::StatusOr<int64_t*> AllocateIndices(OpKernelContext* ctx, int at, int64_t n, int rank) {
  Tensor* t;
  MG_RETURN_IF_ERROR(ctx->allocate_output(at, TensorShape({n, rank}), &t));
  return t->data<int64_t>();
}

absl::Status SetShape(OpKernelContext* ctx, int at, const std::vector<int64_t>& shape) {
  Tensor* t;
  MG_RETURN_IF_ERROR(
      ctx->allocate_output(at, TensorShape({static_cast<int64_t>(shape.size())}), &t));
  std::copy(shape.begin(), shape.end(), t->data<int64_t>());
  return absl::OkStatus();
}

// a + b, or the int64 bound it passes.
int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

class SparseSliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    // (Indices outside the shape are kept or dropped by the box alone, as
    // TensorFlow's.)
    MG_ASSIGN_OR_RETURN(SparseInput sp, ReadSparse(ctx, *this, 0, /*in_range=*/false));
    const Tensor& values = ctx->input(1);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> start, FlatInts(ctx->input(3), "start"));
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> size, FlatInts(ctx->input(4), "size"));
    struct Box {
      const std::vector<int64_t>& v;
      const char* what;
      int input;
    };
    for (const Box& b : {Box{start, "start", 3}, Box{size, "size", 4}}) {
      if (ctx->input(b.input).dims() != 1 || static_cast<int>(b.v.size()) != sp.rank()) {
        return absl::InvalidArgumentError(absl::StrCat("Expected ", b.what,
                                                       " to be a vector of length ", sp.rank(),
                                                       " but got length ", b.v.size()));
      }
    }
    std::vector<int64_t> end(sp.rank()), shape(sp.rank());
    for (int d = 0; d < sp.rank(); ++d) {
      if (size[d] < 0) {
        return absl::InvalidArgumentError(absl::StrCat("Expected a non-negative size, got ",
                                                       size[d]));
      }
      end[d] = SaturatingAdd(start[d], size[d]);
      shape[d] = std::max<int64_t>(std::min(end[d], sp.shape[d]) - start[d], 0);
    }
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < sp.nnz; ++i) {
      bool inside = true;
      for (int d = 0; d < sp.rank() && inside; ++d) {
        inside = sp.at(i)[d] >= start[d] && sp.at(i)[d] < end[d];
      }
      if (inside) kept.push_back(i);
    }
    const int64_t n = static_cast<int64_t>(kept.size());
    MG_ASSIGN_OR_RETURN(int64_t* indices, AllocateIndices(ctx, 0, n, sp.rank()));
    Tensor* out_values;
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({n}), &out_values));
    for (int64_t k = 0; k < n; ++k) {
      for (int d = 0; d < sp.rank(); ++d) {
        indices[k * sp.rank() + d] = sp.at(kept[k])[d] - start[d];
      }
      CopyElements(values, kept[k], out_values, k, 1);
    }
    return SetShape(ctx, 2, shape);
  }
};

class SparseSplitOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("num_split", &num_split_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(SparseInput sp, ReadSparse(ctx, *this, 1));
    const Tensor& values = ctx->input(2);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> axis, FlatInts(ctx->input(0), "split_dim"));
    if (axis.size() != 1 || ctx->input(0).dims() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "split_dim must be a scalar, got shape ", ctx->input(0).shape().DebugString()));
    }
    int64_t dim = axis[0];
    if (dim < -sp.rank() || dim >= sp.rank()) {
      return absl::InvalidArgumentError(absl::StrCat("Input axis should be in range [",
                                                     -sp.rank(), ", ", sp.rank(), "), got ",
                                                     dim));
    }
    if (dim < 0) dim += sp.rank();
    const int64_t length = sp.shape[dim];
    if (num_split_ < 1 || num_split_ > length) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Input num_split should be between 1 and the splitting dimension size (", length,
          "), got ", num_split_));
    }
    // Parts of `base` + 1 rows first, then of `base`.
    const int64_t base = length / num_split_, longer = length % num_split_;
    const int64_t boundary = longer * (base + 1);
    auto part = [&](int64_t x) {
      return x < boundary ? x / (base + 1) : longer + (x - boundary) / base;
    };
    auto part_start = [&](int64_t p) {
      return p < longer ? p * (base + 1) : boundary + (p - longer) * base;
    };
    std::vector<std::vector<int64_t>> members(num_split_);
    for (int64_t i = 0; i < sp.nnz; ++i) members[part(sp.at(i)[dim])].push_back(i);
    for (int64_t p = 0; p < num_split_; ++p) {
      const int64_t n = static_cast<int64_t>(members[p].size());
      MG_ASSIGN_OR_RETURN(int64_t* indices, AllocateIndices(ctx, p, n, sp.rank()));
      Tensor* out_values;
      MG_RETURN_IF_ERROR(ctx->allocate_output(num_split_ + p, TensorShape({n}), &out_values));
      for (int64_t k = 0; k < n; ++k) {
        const int64_t i = members[p][k];
        std::copy(sp.at(i), sp.at(i) + sp.rank(), indices + k * sp.rank());
        indices[k * sp.rank() + dim] -= part_start(p);
        CopyElements(values, i, out_values, k, 1);
      }
      std::vector<int64_t> shape = sp.shape;
      shape[dim] = base + (p < longer ? 1 : 0);
      MG_RETURN_IF_ERROR(SetShape(ctx, 2 * num_split_ + p, shape));
    }
    return absl::OkStatus();
  }

 private:
  int64_t num_split_ = 1;
};

class SparseConcatOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("N", &n_));
    return c->GetAttr("concat_dim", &concat_dim_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::vector<SparseInput> in;
    for (int i = 0; i < n_; ++i) {
      MG_ASSIGN_OR_RETURN(SparseInput sp,
                          ReadSparseAt(ctx, *this, i, n_ + i, 2 * n_ + i, /*in_range=*/false));
      in.push_back(std::move(sp));
    }
    const int rank = in[0].rank();
    if (concat_dim_ < -rank || concat_dim_ >= rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Concat dimension must be in range [", -rank, ", ", rank, "), got ", concat_dim_));
    }
    const int dim = static_cast<int>(concat_dim_ < 0 ? concat_dim_ + rank : concat_dim_);
    std::vector<int64_t> shape = in[0].shape;
    shape[dim] = 0;
    std::vector<int64_t> offset(n_);
    int64_t total = 0;
    for (int i = 0; i < n_; ++i) {
      if (in[i].rank() != rank) {
        return absl::InvalidArgumentError(
            absl::StrCat("Ranks of all input tensors must match: expected ", rank, " but got ",
                         in[i].rank(), " at position ", i));
      }
      for (int d = 0; d < rank; ++d) {
        if (d != dim && in[i].shape[d] != shape[d]) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Input shapes must match: expected ", shape[d], " for dimension ", d,
              " but got ", in[i].shape[d], " at position ", i));
        }
      }
      offset[i] = shape[dim];
      if (__builtin_add_overflow(shape[dim], in[i].shape[dim], &shape[dim])) {
        return absl::InvalidArgumentError(absl::StrCat(
            "The concatenated dimension ", dim, " does not fit in 64 bits"));
      }
      total += in[i].nnz;
    }
    // Every entry as (input, row), sorted by its index in the result.
    std::vector<int64_t> all(total * rank);
    std::vector<std::pair<int, int64_t>> source;
    source.reserve(total);
    for (int i = 0; i < n_; ++i) {
      for (int64_t r = 0; r < in[i].nnz; ++r) {
        int64_t* at = all.data() + source.size() * rank;
        std::copy(in[i].at(r), in[i].at(r) + rank, at);
        at[dim] += offset[i];
        source.emplace_back(i, r);
      }
    }
    std::vector<int64_t> order(total);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
      return CompareIndex(all.data() + x * rank, all.data() + y * rank, rank) < 0;
    });
    MG_ASSIGN_OR_RETURN(int64_t* indices, AllocateIndices(ctx, 0, total, rank));
    Tensor* values;
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({total}), &values));
    for (int64_t k = 0; k < total; ++k) {
      std::copy_n(all.data() + order[k] * rank, rank, indices + k * rank);
      const auto& [i, r] = source[order[k]];
      CopyElements(ctx->input(n_ + i), r, values, k, 1);
    }
    return SetShape(ctx, 2, shape);
  }

 private:
  int64_t n_ = 2;
  int64_t concat_dim_ = 0;
};

// SparseSliceGrad: the gradient of SparseSlice's values back to its
// input's entries, matched in order (the slice keeps it); entries not in
// the slice get 0. Every gradient must find its entry.
template <typename T>
class SparseSliceGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& grad = ctx->input(0);
    const Tensor& in_t = ctx->input(1);
    const Tensor& out_t = ctx->input(3);
    if (in_t.dims() != 2 || out_t.dims() != 2 || in_t.dim_size(1) != out_t.dim_size(1) ||
        grad.dims() != 1 || grad.dim_size(0) != out_t.dim_size(0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SparseSliceGrad: input_indices and output_indices must be matrices of as many "
          "columns, and backprop_val_grad a vector of one per output index; got ",
          in_t.shape().DebugString(), ", ", out_t.shape().DebugString(), " and ",
          grad.shape().DebugString()));
    }
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> in, FlatInts(in_t, "input_indices"));
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> out, FlatInts(out_t, "output_indices"));
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> start, FlatInts(ctx->input(2), "input_start"));
    const int64_t rank = in_t.dim_size(1), in_n = in_t.dim_size(0), out_n = out_t.dim_size(0);
    if (static_cast<int64_t>(start.size()) != rank) {
      return absl::InvalidArgumentError(absl::StrCat("SparseSliceGrad: input_start has ",
                                                     start.size(), " elements, not ", rank));
    }
    Tensor* dx;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({in_n}), &dx));
    T* d = dx->data<T>();
    std::fill_n(d, in_n, T(0));
    int64_t j = 0;
    for (int64_t i = 0; i < in_n && j < out_n; ++i) {
      bool same = true;
      for (int64_t c = 0; c < rank && same; ++c) {
        same = in[i * rank + c] == out[j * rank + c] + start[c];
      }
      if (same) d[i] = grad.data<T>()[j++];
    }
    if (j != out_n) {
      return absl::InternalError(  // TensorFlow's class
          absl::StrCat("Elements of backprop_val_grad aren't all propagated. Num elements:",
                       out_n, ", used: ", j));
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterSparseSliceKernels(KernelRegistry* r) {
  r->Register("SparseSlice", MakeFactory<SparseSliceOp>());
  r->Register("SparseSplit", MakeFactory<SparseSplitOp>());
  r->Register("SparseConcat", MakeFactory<SparseConcatOp>());
  r->Register("SparseSliceGrad", TypedFactory<SparseSliceGradOp, float, double, int32_t, int64_t,
                                              std::complex<float>, std::complex<double>>());
}

}  // namespace kernels_internal
}  // namespace minigraph
