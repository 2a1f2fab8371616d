// Arithmetic on SparseTensors (indices [N, rank] int64, values [N],
// dense_shape [rank]): SparseTensorDenseMatMul, SparseReduceSum and
// SparseReduceMax (dense and sparse results), SparseAdd and its gradient's
// op, SparseTensorDenseAdd, SparseDenseCwiseAdd/Mul/Div, SparseSoftmax,
// SparseReorder and SparseSparseMaximum/Minimum.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/kernels/sparse/sparse_input.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// out = A * B (A sparse, adjoint_a and adjoint_b transposing): each entry
// (r, c, v) of A adds v times row c of B to row r of out; repeated entries
// add up.
template <typename T>
class SparseTensorDenseMatMulOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("adjoint_a", &adjoint_a_));
    return c->GetAttr("adjoint_b", &adjoint_b_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& idx_t = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& b = ctx->input(3);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> a_shape, FlatInts(ctx->input(2), "a_shape"));
    if (a_shape.size() != 2 || b.dims() != 2 || idx_t.dims() != 2 || idx_t.dim_size(1) != 2 ||
        values.dims() != 1 || values.dim_size(0) != idx_t.dim_size(0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SparseTensorDenseMatMul: A must be a sparse matrix (indices [N, 2], values [N], "
          "shape [2]) and B a matrix, got shapes ",
          idx_t.shape().DebugString(), ", ", values.shape().DebugString(), ", [",
          a_shape.size(), "] and ", b.shape().DebugString()));
    }
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> idx, FlatInts(idx_t, "a_indices"));
    const int64_t m = a_shape[adjoint_a_ ? 1 : 0], k = a_shape[adjoint_a_ ? 0 : 1];
    const int64_t b_rows = b.dim_size(adjoint_b_ ? 1 : 0), n = b.dim_size(adjoint_b_ ? 0 : 1);
    if (k != b_rows) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SparseTensorDenseMatMul: Cannot multiply A and B because inner dimension does not "
          "match: ",
          k, " vs. ", b_rows, ". Did you forget a transpose? Dimensions of A: [",
          a_shape[0], ", ", a_shape[1], "). Dimensions of B: ", b.shape().DebugString()));
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({m, n}), &out));
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), T(0));
    const T* bv = b.data<T>();
    const T* av = values.data<T>();
    for (int64_t i = 0; i < idx_t.dim_size(0); ++i) {
      const int64_t row = idx[2 * i + (adjoint_a_ ? 1 : 0)];
      const int64_t col = idx[2 * i + (adjoint_a_ ? 0 : 1)];
      if (row < 0 || row >= m) {
        return absl::InvalidArgumentError(absl::StrCat("SparseTensorDenseMatMul: row index (", row,
                                                       ") from index[", i, "] out of bounds (>=",
                                                       m, ")"));
      }
      if (col < 0 || col >= k) {
        return absl::InvalidArgumentError(absl::StrCat("SparseTensorDenseMatMul: k (", col,
                                                       ") from index[", i, ",",
                                                       adjoint_a_ ? 0 : 1, "] out of bounds (>=",
                                                       k, ")"));
      }
      T* dst = o + row * n;
      if (adjoint_b_) {
        for (int64_t j = 0; j < n; ++j) dst[j] += av[i] * bv[j * k + col];
      } else {
        const T* src = bv + col * n;
        for (int64_t j = 0; j < n; ++j) dst[j] += av[i] * src[j];
      }
    }
    return absl::OkStatus();
  }

 private:
  bool adjoint_a_ = false;
  bool adjoint_b_ = false;
};

// SparseReduceSum and SparseReduceMax over reduction_axes (none: no
// reduction; negative and repeated allowed), of the entries present (an
// output no entry reaches is 0); dense (keep_dims keeps the reduced
// dimensions as 1) or, in the *Sparse forms, a SparseTensor of the outputs
// some entry reaches, in row-major order.
template <bool kMax, bool kSparseOut>
struct SparseReduceFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("keep_dims", &keep_dims_); }
    absl::Status Compute(OpKernelContext* ctx) const override {
      // Only the kept dimensions address the output (TensorFlow reads no
      // other).
      MG_ASSIGN_OR_RETURN(SparseInput sp, ReadSparse(ctx, *this, 0, /*in_range=*/false));
      MG_ASSIGN_OR_RETURN(std::vector<int64_t> axes, FlatInts(ctx->input(3), "reduction_axes"));
      std::vector<bool> reduced(sp.rank(), false);
      for (int64_t a : axes) {
        if (a < -sp.rank() || a >= sp.rank()) {
          return absl::InvalidArgumentError(absl::StrCat("Invalid reduction dimension ", a,
                                                         ", for input with ", sp.rank(),
                                                         " dimensions."));
        }
        reduced[a < 0 ? a + sp.rank() : a] = true;
      }
      // Each entry's output position among the kept dimensions.
      std::vector<int64_t> kept_dims;
      for (int d = 0; d < sp.rank(); ++d) {
        if (!reduced[d]) kept_dims.push_back(sp.shape[d]);
      }
      std::map<int64_t, T> sums;
      const T* v = ctx->input(1).data<T>();
      for (int64_t i = 0; i < sp.nnz; ++i) {
        int64_t pos = 0;
        for (int d = 0; d < sp.rank(); ++d) {
          if (reduced[d]) continue;
          if (sp.at(i)[d] < 0 || sp.at(i)[d] >= sp.shape[d]) {
            return absl::InvalidArgumentError(absl::StrCat(
                type_string(), ": indices[", i, ", ", d, "] = ", sp.at(i)[d],
                " is outside dimension ", d, " of the shape [", absl::StrJoin(sp.shape, ","), "]"));
          }
          pos = pos * sp.shape[d] + sp.at(i)[d];
        }
        auto [it, added] = sums.emplace(pos, v[i]);
        if (!added) it->second = kMax ? std::max(it->second, v[i]) : it->second + v[i];
      }
      std::vector<int64_t> out_dims;
      for (int d = 0; d < sp.rank(); ++d) {
        if (!reduced[d]) {
          out_dims.push_back(sp.shape[d]);
        } else if (keep_dims_) {
          out_dims.push_back(1);
        }
      }
      if constexpr (kSparseOut) {
        const int64_t n = static_cast<int64_t>(sums.size());
        const int64_t rank = static_cast<int64_t>(out_dims.size());
        Tensor *indices, *values, *shape;
        MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({n, rank}), &indices));
        MG_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({n}), &values));
        MG_RETURN_IF_ERROR(ctx->allocate_output(2, TensorShape({rank}), &shape));
        std::copy(out_dims.begin(), out_dims.end(), shape->data<int64_t>());
        int64_t k = 0;
        for (const auto& [pos, value] : sums) {
          int64_t rest = pos;
          for (int64_t d = rank - 1; d >= 0; --d) {
            const int64_t size = out_dims[d];
            indices->data<int64_t>()[k * rank + d] = size == 1 && keep_dims_ ? 0 : rest % size;
            if (!(size == 1 && keep_dims_)) rest /= size;
          }
          values->data<T>()[k++] = value;
        }
      } else {
        MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(out_dims));
        Tensor* out;
        MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
        std::fill_n(out->data<T>(), out->NumElements(), T(0));
        for (const auto& [pos, value] : sums) out->data<T>()[pos] = value;
      }
      return absl::OkStatus();
    }

   private:
    bool keep_dims_ = false;
  };
};

// SparseAdd: a + b merged in row-major order (as TensorFlow's, which
// assumes both ordered); an index in both gives one entry, their sum, kept
// only when its magnitude reaches thresh.
template <typename T>
class SparseAddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(SparseInput a, ReadSparse(ctx, *this, 0, false));
    MG_ASSIGN_OR_RETURN(SparseInput b, ReadSparse(ctx, *this, 3, false));
    if (a.shape != b.shape) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SparseAdd: operands' shapes do not match: [", absl::StrJoin(a.shape, ","), "] vs. [",
          absl::StrJoin(b.shape, ","), "]"));
    }
    const Tensor& thresh_t = ctx->input(6);
    if (thresh_t.dims() != 0) {
      return absl::InvalidArgumentError("SparseAdd: thresh must be a scalar");
    }
    const T* av = ctx->input(1).data<T>();
    const T* bv = ctx->input(4).data<T>();
    const auto thresh = *thresh_t.data<MagnitudeOf<T>>();
    std::vector<const int64_t*> rows;
    std::vector<T> sums;
    int64_t i = 0, j = 0;
    const int rank = a.rank();
    auto take = [&](const int64_t* index, T value) {
      rows.push_back(index);
      sums.push_back(value);
    };
    while (i < a.nnz && j < b.nnz) {
      const int c = CompareIndex(a.at(i), b.at(j), rank);
      if (c < 0) {
        take(a.at(i), av[i]);
        ++i;
      } else if (c > 0) {
        take(b.at(j), bv[j]);
        ++j;
      } else {
        const T s = av[i] + bv[j];
        if (thresh <= std::abs(s)) take(a.at(i), s);
        ++i;
        ++j;
      }
    }
    for (; i < a.nnz; ++i) take(a.at(i), av[i]);
    for (; j < b.nnz; ++j) take(b.at(j), bv[j]);
    const int64_t n = static_cast<int64_t>(rows.size());
    Tensor *indices, *values, *shape;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({n, rank}), &indices));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({n}), &values));
    MG_RETURN_IF_ERROR(ctx->allocate_output(2, TensorShape({rank}), &shape));
    for (int64_t k = 0; k < n; ++k) {
      std::copy(rows[k], rows[k] + rank, indices->data<int64_t>() + k * rank);
      values->data<T>()[k] = sums[k];
    }
    std::copy(a.shape.begin(), a.shape.end(), shape->data<int64_t>());
    return absl::OkStatus();
  }

 private:
  template <typename U>
  using MagnitudeOf = decltype(std::abs(U()));
};

// SparseAddGrad: the sum's value gradients back to a's and b's entries,
// found by TensorFlow's walk over the three (ordered) index lists at once:
// an entry equal to the sum's gets its gradient, one the threshold dropped
// 0.
template <typename T>
class SparseAddGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& grad = ctx->input(0);
    const Tensor& a = ctx->input(1);
    const Tensor& b = ctx->input(2);
    const Tensor& sum = ctx->input(3);
    if (grad.dims() != 1 || sum.dims() != 2 || sum.dim_size(0) != grad.dim_size(0) ||
        a.dims() != 2 || b.dims() != 2 || a.dim_size(1) != sum.dim_size(1) ||
        b.dim_size(1) != sum.dim_size(1)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SparseAddGrad: backprop_val_grad must be a vector of one value per row of "
          "sum_indices, and a_indices, b_indices and sum_indices matrices of as many columns, "
          "got shapes ",
          grad.shape().DebugString(), ", ", a.shape().DebugString(), ", ",
          b.shape().DebugString(), " and ", sum.shape().DebugString()));
    }
    const int rank = static_cast<int>(sum.dim_size(1));
    const int64_t na = a.dim_size(0), nb = b.dim_size(0), ns = sum.dim_size(0);
    Tensor *a_grad, *b_grad;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({na}), &a_grad));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({nb}), &b_grad));
    std::fill_n(a_grad->data<T>(), na, T(0));
    std::fill_n(b_grad->data<T>(), nb, T(0));
    const int64_t* s = sum.data<int64_t>();
    const T* g = grad.data<T>();
    // One entry of a (or b) against sum entry k: equal, it takes the
    // gradient; before it (dropped from the sum), it keeps 0; either way the
    // walk moves past it. Returns whether the entry is at or after entry k.
    auto step = [&](const Tensor& idx, Tensor* out, int64_t* i, int64_t k) {
      const int c = CompareIndex(idx.data<int64_t>() + *i * rank, s + k * rank, rank);
      if (c == 0) out->data<T>()[*i] = g[k];
      if (c <= 0) ++*i;
      return c >= 0;
    };
    // The sum's entry moves on once neither operand's is before it.
    int64_t i = 0, j = 0, k = 0;
    while (i < na && j < nb && k < ns) {
      const bool a_at = step(a, a_grad, &i, k);
      const bool b_at = step(b, b_grad, &j, k);
      if (a_at && b_at) ++k;
    }
    while (i < na && k < ns) {
      if (step(a, a_grad, &i, k)) ++k;
    }
    while (j < nb && k < ns) {
      if (step(b, b_grad, &j, k)) ++k;
    }
    return absl::OkStatus();
  }
};

// The dense operand's element for each sparse entry: the dense tensor
// broadcast to the sparse shape (its dimensions right-aligned, each equal
// or 1).
absl::StatusOr<std::vector<int64_t>> DenseOffsets(const OpKernel& k, const SparseInput& sp,
                                                  const Tensor& dense) {
  const int lead = sp.rank() - dense.dims();
  bool fits = lead >= 0;
  for (int d = 0; fits && d < dense.dims(); ++d) {
    fits = dense.dim_size(d) == 1 || dense.dim_size(d) == sp.shape[lead + d];
  }
  if (!fits) {
    return absl::InvalidArgumentError(absl::StrCat(
        k.type_string(), ": the dense operand's shape ", dense.shape().DebugString(),
        " does not broadcast to the SparseTensor's [", absl::StrJoin(sp.shape, ","), "]"));
  }
  std::vector<int64_t> offsets(sp.nnz);
  for (int64_t i = 0; i < sp.nnz; ++i) {
    int64_t off = 0;
    for (int d = 0; d < dense.dims(); ++d) {
      off = off * dense.dim_size(d) + (dense.dim_size(d) == 1 ? 0 : sp.at(i)[lead + d]);
    }
    offsets[i] = off;
  }
  return offsets;
}

// SparseDenseCwiseAdd/Mul/Div: each entry's value with the dense operand's
// element at its index (the result has the entries' indices).
template <char kOp>
struct SparseDenseCwiseFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Compute(OpKernelContext* ctx) const override {
      MG_ASSIGN_OR_RETURN(SparseInput sp, ReadSparse(ctx, *this, 0));
      const Tensor& dense = ctx->input(3);
      MG_ASSIGN_OR_RETURN(std::vector<int64_t> at, DenseOffsets(*this, sp, dense));
      Tensor* out;
      MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({sp.nnz}), &out));
      const T* v = ctx->input(1).data<T>();
      const T* d = dense.data<T>();
      for (int64_t i = 0; i < sp.nnz; ++i) {
        const T x = v[i], y = d[at[i]];
        out->data<T>()[i] = kOp == '+' ? x + y : kOp == '*' ? x * y : x / y;
      }
      return absl::OkStatus();
    }
  };
};

// SparseTensorDenseAdd: the dense b with a's entries added at their
// indices (repeats add up).
template <typename T>
class SparseTensorDenseAddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(SparseInput sp, ReadSparse(ctx, *this, 0));
    const Tensor& b = ctx->input(3);
    if (std::vector<int64_t>(b.shape().dim_sizes().begin(), b.shape().dim_sizes().end()) !=
        sp.shape) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SparseTensorDenseAdd: Dimension mismatch: the dense operand has shape ",
          b.shape().DebugString(), ", the SparseTensor [", absl::StrJoin(sp.shape, ","), "]"));
    }
    Tensor out = tensor::DeepCopy(b);
    const T* v = ctx->input(1).data<T>();
    for (int64_t i = 0; i < sp.nnz; ++i) {
      int64_t off = 0;
      for (int d = 0; d < sp.rank(); ++d) off = off * sp.shape[d] + sp.at(i)[d];
      out.data<T>()[off] += v[i];
    }
    ctx->set_output(0, std::move(out));
    return absl::OkStatus();
  }
};

// The entries' positions in row-major order of their indices (a stable
// sort: repeated indices keep their order).
std::vector<int64_t> RowMajorOrder(const SparseInput& sp) {
  std::vector<int64_t> order(sp.nnz);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
    return CompareIndex(sp.at(x), sp.at(y), sp.rank()) < 0;
  });
  return order;
}

// SparseSoftmax: a softmax over each innermost row of the entries present
// (the entries sharing all but the last coordinate). The input is meant to
// be in row-major order; as TensorFlow's, the outputs are in that order
// whatever the input's.
template <typename T>
class SparseSoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(SparseInput sp, ReadSparse(ctx, *this, 0));
    if (sp.rank() < 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SparseSoftmax: the SparseTensor must be at least 2-D, got rank ", sp.rank()));
    }
    const std::vector<int64_t> order = RowMajorOrder(sp);
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({sp.nnz}), &out));
    const T* v = ctx->input(1).data<T>();
    T* o = out->data<T>();
    for (int64_t begin = 0; begin < sp.nnz;) {
      int64_t end = begin + 1;
      while (end < sp.nnz &&
             CompareIndex(sp.at(order[begin]), sp.at(order[end]), sp.rank() - 1) == 0) {
        ++end;
      }
      T top = v[order[begin]];
      for (int64_t k = begin; k < end; ++k) top = std::max(top, v[order[k]]);
      T total = T(0);
      for (int64_t k = begin; k < end; ++k) total += (o[k] = std::exp(v[order[k]] - top));
      for (int64_t k = begin; k < end; ++k) o[k] /= total;
      begin = end;
    }
    return absl::OkStatus();
  }
};

// SparseReorder: the entries in row-major order of their indices
// (repeated indices keep their order).
class SparseReorderOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(SparseInput sp, ReadSparse(ctx, *this, 0, /*in_range=*/false));
    const std::vector<int64_t> order = RowMajorOrder(sp);
    Tensor *indices, *values;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, ctx->input(0).shape(), &indices));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, ctx->input(1).shape(), &values));
    for (int64_t k = 0; k < sp.nnz; ++k) {
      std::copy(sp.at(order[k]), sp.at(order[k]) + sp.rank(),
                indices->data<int64_t>() + k * sp.rank());
      CopyElements(ctx->input(1), order[k], values, k, 1);
    }
    return absl::OkStatus();
  }
};

// SparseSparseMaximum and SparseSparseMinimum: the union of two
// SparseTensors' indices, merged as both were in row-major order
// (TensorFlow's UnionSparseIndicesAndValues: a two-pointer merge, so
// unordered inputs give what its merge gives), an index missing from one
// side taking 0 there.
template <typename T, bool kMax>
class SparseSparseMaxMinOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(SparseInput a, ReadSparse(ctx, *this, 0, /*in_range=*/false));
    MG_ASSIGN_OR_RETURN(SparseInput b, ReadSparse(ctx, *this, 3, /*in_range=*/false));
    if (a.rank() != b.rank()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Operands do not have the same ranks; got shapes: [",
                       absl::StrJoin(a.shape, ","), "] and [", absl::StrJoin(b.shape, ","), "]"));
    }
    for (int d = 0; d < a.rank(); ++d) {
      if (a.shape[d] != b.shape[d]) {
        return absl::InvalidArgumentError(absl::StrCat("Operands' shapes do not match: got ",
                                                       a.shape[d], " and ", b.shape[d],
                                                       " for dimension ", d));
      }
    }
    const T* av = ctx->input(1).data<T>();
    const T* bv = ctx->input(4).data<T>();
    std::vector<const int64_t*> index;
    std::vector<T> values;
    auto take = [&](const int64_t* at, T x, T y) {
      index.push_back(at);
      values.push_back(kMax ? std::max(x, y) : std::min(x, y));
    };
    int64_t i = 0, j = 0;
    while (i < a.nnz && j < b.nnz) {
      const int order = CompareIndex(a.at(i), b.at(j), a.rank());
      if (order < 0) {
        take(a.at(i), av[i], T(0));
        ++i;
      } else if (order > 0) {
        take(b.at(j), T(0), bv[j]);
        ++j;
      } else {
        take(a.at(i), av[i], bv[j]);
        ++i;
        ++j;
      }
    }
    for (; i < a.nnz; ++i) take(a.at(i), av[i], T(0));
    for (; j < b.nnz; ++j) take(b.at(j), T(0), bv[j]);
    const int64_t n = static_cast<int64_t>(values.size());
    Tensor *indices, *out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({n, a.rank()}), &indices));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({n}), &out));
    for (int64_t k = 0; k < n; ++k) {
      std::copy_n(index[k], a.rank(), indices->data<int64_t>() + k * a.rank());
    }
    std::copy(values.begin(), values.end(), out->data<T>());
    return absl::OkStatus();
  }
};
template <typename T>
using SparseSparseMaximumOp = SparseSparseMaxMinOp<T, true>;
template <typename T>
using SparseSparseMinimumOp = SparseSparseMaxMinOp<T, false>;

}  // namespace

void RegisterSparseMathKernels(KernelRegistry* r) {
  r->Register("SparseTensorDenseMatMul",
              TypedFactory<SparseTensorDenseMatMulOp, float, double, int32_t, int64_t>());
  r->Register("SparseReduceSum", TypedFactory<SparseReduceFor<false, false>::Op, float, double,
                                              int32_t, int64_t>());
  r->Register("SparseReduceSumSparse", TypedFactory<SparseReduceFor<false, true>::Op, float,
                                                    double, int32_t, int64_t>());
  r->Register("SparseReduceMax", TypedFactory<SparseReduceFor<true, false>::Op, float, double,
                                              int32_t, int64_t>());
  r->Register("SparseReduceMaxSparse", TypedFactory<SparseReduceFor<true, true>::Op, float,
                                                    double, int32_t, int64_t>());
  r->Register("SparseAdd", TypedFactory<SparseAddOp, float, double, int32_t, int64_t>());
  r->Register("SparseAddGrad", TypedFactory<SparseAddGradOp, float, double, int32_t, int64_t>());
  r->Register("SparseTensorDenseAdd",
              TypedFactory<SparseTensorDenseAddOp, float, double, int32_t, int64_t>());
  r->Register("SparseDenseCwiseAdd",
              TypedFactory<SparseDenseCwiseFor<'+'>::Op, float, double, int32_t, int64_t>());
  r->Register("SparseDenseCwiseMul",
              TypedFactory<SparseDenseCwiseFor<'*'>::Op, float, double, int32_t, int64_t>());
  r->Register("SparseDenseCwiseDiv",
              TypedFactory<SparseDenseCwiseFor<'/'>::Op, float, double>());
  r->Register("SparseSoftmax", TypedFactory<SparseSoftmaxOp, float, double>());
  r->Register("SparseReorder", MakeFactory<SparseReorderOp>());
  r->Register("SparseSparseMaximum",
              TypedFactory<SparseSparseMaximumOp, float, double, int32_t, int64_t>());
  r->Register("SparseSparseMinimum",
              TypedFactory<SparseSparseMinimumOp, float, double, int32_t, int64_t>());
}

}  // namespace kernels_internal
}  // namespace minigraph
