// DenseCountSparseOutput, SparseCountSparseOutput and
// RaggedCountSparseOutput (tf.sparse.bincount, Keras' CategoryEncoding and
// multi-hot preprocessing): per row of the input (a vector is one row),
// how often each value in [0, maxlength) occurs, or the sum of its weights,
// or 1 with binary_output, as a sparse tensor whose row's indices are in
// ascending order; its width is maxlength, else the largest value counted
// plus one (at least minlength). Values past maxlength are not counted; a
// negative value is an error. As TensorFlow's count_ops.cc, accumulated in
// the output type.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

int64_t IntAt(const Tensor& t, int64_t i) {
  return t.dtype() == DT_INT32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
}

template <typename W>
class CountSparseOutputOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    const std::string& op = c->def().op();
    kind_ = op == "DenseCountSparseOutput" ? kDense : op == "SparseCountSparseOutput" ? kSparse
                                                                                     : kRagged;
    MG_RETURN_IF_ERROR(c->GetAttr("minlength", &minlength_));
    MG_RETURN_IF_ERROR(c->GetAttr("maxlength", &maxlength_));
    return c->GetAttr("binary_output", &binary_);
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    // The values, their weights, and each value's row.
    const Tensor& values = ctx->input(kind_ == kDense ? 0 : 1);
    const Tensor& weights = ctx->input(kind_ == kDense ? 1 : kind_ == kSparse ? 3 : 2);
    const bool weighted = weights.NumElements() > 0;
    if (weighted && weights.shape() != values.shape()) {
      return Invalid(absl::StrCat("Weights and ", kind_ == kDense ? "data" : "values",
                                  " must have the same shape. Weight shape: ",
                                  weights.shape().DebugString(), "; ",
                                  kind_ == kDense ? "data" : "values",
                                  " shape: ", values.shape().DebugString()));
    }
    std::vector<int64_t> row_of(values.NumElements());
    int64_t rows = 1;
    bool is_1d = false;
    if (kind_ == kDense) {
      MG_ASSIGN_OR_RETURN(rows, DenseRows(values, &row_of));
      is_1d = values.dims() == 1;
    } else if (kind_ == kSparse) {
      MG_ASSIGN_OR_RETURN(rows, SparseRows(ctx, &row_of));
      is_1d = ctx->input(2).NumElements() == 1;
    } else {
      MG_ASSIGN_OR_RETURN(rows, RaggedRows(ctx, &row_of));
    }
    // A map per row: a sparse input's dense shape alone may name many.
    MG_RETURN_IF_ERROR(CheckScratchSize(rows, sizeof(absl::flat_hash_map<int64_t, W>),
                                        absl::StrCat(type_string(), " '", name(), "' over ",
                                                     rows, " rows")));
    std::vector<absl::flat_hash_map<int64_t, W>> counts(rows);
    int64_t max_value = 0;
    for (int64_t i = 0; i < values.NumElements(); ++i) {
      const int64_t v = IntAt(values, i);
      if (v < 0) {
        return Invalid(absl::StrCat("Input values must all be non-negative, got ", v, " at ", i));
      }
      if (maxlength_ > 0 && v >= maxlength_) continue;
      W& count = counts[row_of[i]][v];
      if (binary_) {
        count = W(1);
      } else if (weighted) {
        count += weights.data<W>()[i];
      } else {
        ++count;
      }
      max_value = std::max(max_value, v);
    }
    const int64_t width = maxlength_ > 0 ? maxlength_ : std::max(max_value + 1, minlength_);
    int64_t total = 0;
    for (const auto& row : counts) total += static_cast<int64_t>(row.size());
    Tensor *indices, *out_values, *shape;
    const int64_t rank = is_1d ? 1 : 2;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({total, rank}), &indices));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({total}), &out_values));
    MG_RETURN_IF_ERROR(ctx->allocate_output(2, TensorShape({rank}), &shape));
    int64_t* idx = indices->data<int64_t>();
    W* out = out_values->data<W>();
    int64_t k = 0;
    for (int64_t b = 0; b < rows; ++b) {
      std::vector<std::pair<int64_t, W>> row(counts[b].begin(), counts[b].end());
      std::sort(row.begin(), row.end(),
                [](const auto& x, const auto& y) { return x.first < y.first; });
      for (const auto& [value, count] : row) {
        if (!is_1d) *idx++ = b;
        *idx++ = value;
        out[k++] = count;
      }
    }
    if (is_1d) {
      shape->data<int64_t>()[0] = width;
    } else {
      shape->data<int64_t>()[0] = rows;
      shape->data<int64_t>()[1] = width;
    }
    return absl::OkStatus();
  }

 private:
  enum Kind { kDense, kSparse, kRagged };

  absl::Status Invalid(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(type_string(), " '", name(), "': ", what));
  }

  // A vector is one row; a matrix's rows are its rows.
  absl::StatusOr<int64_t> DenseRows(const Tensor& data, std::vector<int64_t>* row_of) const {
    if (data.dims() != 1 && data.dims() != 2) {
      return Invalid(absl::StrCat("Input must be a 1 or 2-dimensional tensor. Got: ",
                                  data.shape().DebugString()));
    }
    if (data.dims() == 1) return 1;
    if (data.dim_size(0) == 0) return Invalid("Invalid input: Shapes dimension cannot be 0.");
    const int64_t width = data.dim_size(1);
    for (int64_t i = 0; i < data.NumElements(); ++i) (*row_of)[i] = i / width;
    return data.dim_size(0);
  }

  // The indices' first column (all row 0 for a 1-D dense shape), each index
  // inside the dense shape.
  absl::StatusOr<int64_t> SparseRows(OpKernelContext* ctx, std::vector<int64_t>* row_of) const {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& shape = ctx->input(2);
    if (indices.dims() != 2 || values.dims() != 1 || shape.dims() != 1) {
      return Invalid(absl::StrCat("indices must be a matrix, values and shape vectors, got ",
                                  indices.shape().DebugString(), ", ",
                                  values.shape().DebugString(), " and ",
                                  shape.shape().DebugString()));
    }
    if (values.dim_size(0) != indices.dim_size(0) || shape.dim_size(0) != indices.dim_size(1) ||
        shape.NumElements() == 0) {
      return Invalid(absl::StrCat("indices ", indices.shape().DebugString(),
                                  " must have a row per value and a column per dimension of "
                                  "the dense shape (",
                                  values.shape().DebugString(), ", ",
                                  shape.shape().DebugString(), ")"));
    }
    const int64_t rank = shape.NumElements();
    const int64_t* idx = indices.data<int64_t>();
    const int64_t* dims = shape.data<int64_t>();
    for (int64_t i = 0; i < indices.dim_size(0); ++i) {
      for (int64_t j = 0; j < rank; ++j) {
        if (idx[i * rank + j] < 0 || idx[i * rank + j] >= dims[j]) {
          return Invalid(absl::StrCat("Invalid index value at ", i, ": dimension ", j,
                                      " has value ", idx[i * rank + j], " which is not in [0, ",
                                      dims[j], ")"));
        }
      }
      (*row_of)[i] = rank == 1 ? 0 : idx[i * rank];
    }
    const int64_t rows = rank == 1 ? 1 : dims[0];
    if (rows <= 0 || rows >= std::numeric_limits<int32_t>::max()) {
      return Invalid(absl::StrCat("Cannot allocate ", rows,
                                  " batches, is the dense shape too wide?"));
    }
    return rows;
  }

  // The splits' rows: from 0, never decreasing, to the values' count.
  absl::StatusOr<int64_t> RaggedRows(OpKernelContext* ctx, std::vector<int64_t>* row_of) const {
    const Tensor& splits = ctx->input(0);
    const int64_t n = ctx->input(1).NumElements();
    const int64_t rows = splits.NumElements() - 1;
    if (splits.dims() != 1 || rows <= 0) {
      return Invalid(absl::StrCat("Must provide at least 2 elements for the splits argument, got ",
                                  splits.shape().DebugString()));
    }
    const int64_t* s = splits.data<int64_t>();
    if (s[0] != 0) return Invalid(absl::StrCat("Splits must start with 0, not with ", s[0]));
    if (s[rows] != n) {
      return Invalid(absl::StrCat("Splits must end with the number of values, got ", s[rows],
                                  " instead of ", n));
    }
    for (int64_t b = 0; b < rows; ++b) {
      if (s[b + 1] < s[b]) {
        return Invalid(absl::StrCat("Splits must be non-decreasing, got ", s[b], " then ",
                                    s[b + 1], " at ", b));
      }
      for (int64_t i = s[b]; i < s[b + 1]; ++i) (*row_of)[i] = b;
    }
    return rows;
  }

  Kind kind_ = kDense;
  int64_t minlength_ = -1, maxlength_ = -1;
  bool binary_ = false;
};

}  // namespace

void RegisterCountKernels(KernelRegistry* r) {
  for (const char* op :
       {"DenseCountSparseOutput", "SparseCountSparseOutput", "RaggedCountSparseOutput"}) {
    r->Register(op, TypedFactory<CountSparseOutputOp, float, double, int8_t, uint8_t, int16_t,
                                 uint16_t, int32_t, uint32_t, int64_t, uint64_t>("output_type"));
  }
}

}  // namespace kernels_internal
}  // namespace minigraph
