// Kernels over SparseTensors given as (indices [N, rank] int64, values [N],
// dense_shape [rank]): SparseToDense, SparseReshape, SparseFillEmptyRows and
// SparseCross, the pieces feature columns build (the segment reductions of
// embedding lookups are in sparse_segment_kernels.cc).
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/engine/kernels/internal/fingerprint.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"

namespace minigraph {
namespace kernels_internal {
namespace {

Tensor Int64Vector(const std::vector<int64_t>& v) {
  Tensor t(DT_INT64, TensorShape({static_cast<int64_t>(v.size())}));
  std::copy(v.begin(), v.end(), t.data<int64_t>());
  return t;
}

// dense = default_value everywhere but at sparse_indices, which get
// sparse_values (one value for all of them when it is a scalar).
template <typename T>
class SparseToDenseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("validate_indices", &validate_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& indices_t = ctx->input(0);
    const Tensor& values = ctx->input(2);
    const Tensor& default_value = ctx->input(3);
    if (indices_t.dims() > 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SparseToDense: sparse_indices should be a scalar, vector, or matrix, got shape ",
          indices_t.shape().DebugString()));
    }
    MG_ASSIGN_OR_RETURN(TensorShape shape, ShapeFromTensor(ctx->input(1), "output_shape"));
    const int64_t n = indices_t.dims() == 0 ? 1 : indices_t.dim_size(0);
    const int64_t rank = indices_t.dims() == 2 ? indices_t.dim_size(1) : 1;
    if (rank != shape.dims()) {
      return absl::InvalidArgumentError(
          absl::StrCat("SparseToDense: sparse_indices of shape ", indices_t.shape().DebugString(),
                       " do not index into output_shape ", shape.DebugString()));
    }
    if (values.NumElements() != 1 && values.NumElements() != n) {
      return absl::InvalidArgumentError(absl::StrCat("SparseToDense: sparse_values has ",
                                                     values.NumElements(),
                                                     " elements; expected 1 or ", n));
    }
    if (default_value.NumElements() != 1) {
      return absl::InvalidArgumentError("SparseToDense: default_value should be a scalar");
    }
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> idx, FlatInts(indices_t, "sparse_indices"));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), default_value.data<T>()[0]);
    const auto dims = shape.dim_sizes();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t* at = idx.data() + i * rank;
      int64_t flat = 0;
      bool in_bounds = true;
      for (int64_t d = 0; d < rank; ++d) {
        in_bounds = in_bounds && at[d] >= 0 && at[d] < dims[d];
        flat = flat * dims[d] + at[d];
      }
      if (!in_bounds) {
        return absl::InvalidArgumentError(
            absl::StrCat("indices[", i, "] = [", absl::StrJoin(at, at + rank, ","),
                         "] is out of bounds: need 0 <= index < ", shape.DebugString()));
      }
      if (validate_ && i > 0) {
        const int64_t* prev = at - rank;
        const bool less = std::lexicographical_compare(prev, at, at, at + rank);
        if (!less) {
          return absl::InvalidArgumentError(
              absl::StrCat("indices[", i, "] = [", absl::StrJoin(at, at + rank, ","), "] is ",
                           std::equal(prev, at, at) ? "repeated" : "out of order",
                           ". Many sparse ops require sorted indices."));
        }
      }
      o[flat] = values.data<T>()[values.NumElements() == 1 ? 0 : i];
    }
    return absl::OkStatus();
  }

 private:
  bool validate_ = true;
};

// The same dense positions under a new dense shape (one dim may be -1).
class SparseReshapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& indices = ctx->input(0);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> in_shape,
                        IntsFromTensor(ctx->input(1), "input_shape"));
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> out_shape, IntsFromTensor(ctx->input(2), "new_shape"));
    const int64_t rank = static_cast<int64_t>(in_shape.size());
    if (indices.dims() != 2 || indices.dim_size(1) != rank) {
      return absl::InvalidArgumentError(absl::StrCat("SparseReshape: input_indices of shape ",
                                                     indices.shape().DebugString(),
                                                     " do not match input_shape of rank ", rank));
    }
    int64_t dense = 1, known = 1, unknown = -1;
    for (size_t d = 0; d < in_shape.size(); ++d) {
      if (in_shape[d] < 0 || __builtin_mul_overflow(dense, in_shape[d], &dense)) {
        return absl::InvalidArgumentError(
            absl::StrCat("SparseReshape: input_shape [", absl::StrJoin(in_shape, ","),
                         "] is not a shape (a negative size, or more than 2^63 values)"));
      }
    }
    for (size_t d = 0; d < out_shape.size(); ++d) {
      if (out_shape[d] == -1) {
        if (unknown >= 0) {
          return absl::InvalidArgumentError("SparseReshape: only one output dimension may be -1");
        }
        unknown = static_cast<int64_t>(d);
      } else if (out_shape[d] < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("SparseReshape: size ", d, " must be non-negative, not ", out_shape[d]));
      } else if (__builtin_mul_overflow(known, out_shape[d], &known)) {
        return absl::InvalidArgumentError(absl::StrCat("SparseReshape: new_shape [",
                                                       absl::StrJoin(out_shape, ","),
                                                       "] has more than 2^63 values"));
      }
    }
    if (unknown >= 0) {
      if (known == 0 || dense % known != 0) {
        return absl::InvalidArgumentError(absl::StrCat("SparseReshape: input has ", dense,
                                                       " dense values, which do not fill shape [",
                                                       absl::StrJoin(out_shape, ","), "]"));
      }
      out_shape[unknown] = dense / known;
      known = dense;
    }
    if (known != dense) {
      return absl::InvalidArgumentError(
          absl::StrCat("Input to reshape is a SparseTensor with ", dense,
                       " dense values, but the requested shape has ", known));
    }
    const int64_t n = indices.dim_size(0);
    const int64_t out_rank = static_cast<int64_t>(out_shape.size());
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({n, out_rank}), &out));
    const int64_t* in = indices.data<int64_t>();
    int64_t* o = out->data<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      int64_t flat = 0;
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t x = in[i * rank + d];
        if (x < 0 || x >= in_shape[d]) {
          return absl::InvalidArgumentError(absl::StrCat(
              "SparseReshape: input_indices[", i, "] = [",
              absl::StrJoin(absl::MakeConstSpan(in + i * rank, rank), ","),
              "] lies outside input_shape [", absl::StrJoin(in_shape, ","), "]"));
        }
        flat = flat * in_shape[d] + x;
      }
      for (int64_t d = out_rank - 1; d >= 0; --d) {
        o[i * out_rank + d] = out_shape[d] > 0 ? flat % out_shape[d] : 0;
        flat = out_shape[d] > 0 ? flat / out_shape[d] : 0;
      }
    }
    ctx->set_output(1, Int64Vector(out_shape));
    return absl::OkStatus();
  }
};

// Rows of a 2-D SparseTensor with no entry get one, (row, 0) =
// default_value; entries stay in row order, each row's in input order.
template <typename T>
class SparseFillEmptyRowsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> shape, IntsFromTensor(ctx->input(2), "dense_shape"));
    const Tensor& default_value = ctx->input(3);
    if (indices.dims() != 2 || shape.empty() ||
        indices.dim_size(1) != static_cast<int64_t>(shape.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("SparseFillEmptyRows: indices of shape ", indices.shape().DebugString(),
                       " do not match dense_shape of rank ", shape.size()));
    }
    const int64_t n = indices.dim_size(0), rank = indices.dim_size(1), rows = shape[0];
    if (values.dims() != 1 || values.NumElements() != n || default_value.NumElements() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("SparseFillEmptyRows: values must be a vector of ", n,
                       " elements and default_value a scalar"));
    }
    if (rows < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("SparseFillEmptyRows: dense_shape[0] must be non-negative, not ", rows));
    }
    // Outputs and scratch through the allocator, so a huge dense_shape is
    // ResourceExhausted (max_tensor_bytes), not a failed std::vector.
    Tensor* empty;
    MG_RETURN_IF_ERROR(ctx->allocate_output(2, TensorShape({rows}), &empty));
    MG_ASSIGN_OR_RETURN(Tensor count_t, ctx->allocate_temp(DT_INT64, TensorShape({rows})));
    MG_ASSIGN_OR_RETURN(Tensor start_t, ctx->allocate_temp(DT_INT64, TensorShape({rows + 1})));
    int64_t* count = count_t.data<int64_t>();
    int64_t* start = start_t.data<int64_t>();
    std::fill(count, count + rows, 0);
    const int64_t* in = indices.data<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t r = in[i * rank];
      if (r < 0 || r >= rows) {
        return absl::InvalidArgumentError(
            absl::StrCat("indices(", i, ", 0) is invalid: ", r,
                         r < 0 ? " < 0" : " >= ", r < 0 ? "" : absl::StrCat(rows)));
      }
      ++count[r];
    }
    start[0] = 0;
    for (int64_t r = 0; r < rows; ++r) {
      empty->data<bool>()[r] = count[r] == 0;
      start[r + 1] = start[r] + std::max<int64_t>(count[r], 1);
    }
    const int64_t m = start[rows];
    Tensor *out_idx, *out_val, *reverse;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({m, rank}), &out_idx));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({m}), &out_val));
    MG_RETURN_IF_ERROR(ctx->allocate_output(3, TensorShape({n}), &reverse));
    int64_t* oi = out_idx->data<int64_t>();
    T* ov = out_val->data<T>();
    for (int64_t r = 0; r < rows; ++r) {
      if (count[r] > 0) continue;
      std::fill(oi + start[r] * rank, oi + (start[r] + 1) * rank, 0);
      oi[start[r] * rank] = r;
      ov[start[r]] = default_value.data<T>()[0];
    }
    int64_t* next = start;  // each row's next free slot; start[] is not needed again
    for (int64_t i = 0; i < n; ++i) {
      const int64_t at = next[in[i * rank]]++;
      std::copy_n(in + i * rank, rank, oi + at * rank);
      ov[at] = values.data<T>()[i];
      reverse->data<int64_t>()[i] = at;
    }
    return absl::OkStatus();
  }
};

// One column of SparseCross: its features for each row (ranges of its
// values) or a dense matrix.
struct CrossColumn {
  const Tensor* values;
  bool dense;
  std::vector<int64_t> start, count;  // per row, sparse only
  int64_t Count(int64_t b) const { return dense ? values->dim_size(1) : count[b]; }
  int64_t Index(int64_t b, int64_t n) const {
    return dense ? b * values->dim_size(1) + n : start[b] + n;
  }
};

// SparseCross, SparseCrossV2 and SparseCrossHashed: for each row of the
// batch, every combination of one feature from each column (the sparse
// inputs' then the dense inputs', the last varying fastest), as
// TensorFlow's feature crosses.
//   SparseCross    joined with "_X_", or, with hashed_output,
//                  FingerprintCat64 over the features' Fingerprint64 (an
//                  int64 feature is its own fingerprint) from hash_key, mod
//                  num_buckets (or mod 2^63 - 1 when it is 0);
//   SparseCrossV2  joined with its `sep` input;
//   SparseCrossHashed  FingerprintCat64 from the first column's feature
//                  hash, mod its num_buckets input: with strong_hash a
//                  feature's SipHash under `salt`, else its Fingerprint64
//                  (a dense int64 feature is itself). As TensorFlow's, an
//                  int64 feature hashes its low four bytes only (it hashes
//                  sizeof(DataType) bytes); TensorFlow's dense int64 strong
//                  hash reads the value as an address and crashes, where
//                  minigraph hashes as for a sparse one.
class SparseCrossOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("N", &n_));
    if (c->def().op() == "SparseCrossV2") {
      kind_ = Kind::kV2;
      return absl::OkStatus();
    }
    if (c->def().op() == "SparseCrossHashed") {
      kind_ = Kind::kHashed;
      hashed_ = true;
      return absl::OkStatus();
    }
    MG_RETURN_IF_ERROR(c->GetAttr("hashed_output", &hashed_));
    MG_RETURN_IF_ERROR(c->GetAttr("num_buckets", &buckets_));
    int64_t key;
    MG_RETURN_IF_ERROR(c->GetAttr("hash_key", &key));
    hash_key_ = static_cast<uint64_t>(key);
    DataType out_type;
    MG_RETURN_IF_ERROR(c->GetAttr("out_type", &out_type));
    if ((out_type == DT_INT64) != hashed_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SparseCross: out_type must be int64 with hashed_output and string without, got ",
          DataTypeString(out_type)));
    }
    return c->GetAttr("internal_type", &internal_type_);
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const int extra = kind_ == Kind::kV1 ? 0 : kind_ == Kind::kV2 ? 1 : 3;
    const int dense_n = ctx->num_inputs() - 3 * static_cast<int>(n_) - extra;
    MG_ASSIGN_OR_RETURN(const Options options, OptionsOf(ctx));
    MG_ASSIGN_OR_RETURN(const int64_t batch, BatchSize(ctx, dense_n));
    // Per column, a start and a count for each row; one count of crosses.
    MG_RETURN_IF_ERROR(
        CheckScratchSize(batch, (2 * n_ + 1) * sizeof(int64_t),
                         absl::StrCat("SparseCross over a batch of ", batch, " rows")));
    MG_RETURN_IF_ERROR(CheckTypes(ctx, dense_n));
    MG_ASSIGN_OR_RETURN(const std::vector<CrossColumn> columns, Columns(ctx, batch, dense_n));
    // Output sizes: the product of the counts in each row.
    std::vector<int64_t> crosses(batch, columns.empty() ? 0 : 1);
    int64_t total = 0, widest = 0;
    for (int64_t b = 0; b < batch; ++b) {
      for (const CrossColumn& c : columns) {
        const int64_t n = c.Count(b);
        if (n != 0 && crosses[b] > std::numeric_limits<int64_t>::max() / n) {
          return absl::InvalidArgumentError(
              absl::StrCat("SparseCross: row ", b, " has more crosses than fit in int64"));
        }
        crosses[b] *= n;
      }
      if (total > std::numeric_limits<int64_t>::max() - crosses[b]) {
        return absl::InvalidArgumentError("SparseCross: more crosses than fit in int64");
      }
      total += crosses[b];
      widest = std::max(widest, crosses[b]);
    }
    Tensor *indices_out, *values_out, *shape_out;
    MG_ASSIGN_OR_RETURN(TensorShape indices_shape, TensorShape::Build({total, 2}));
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, indices_shape, &indices_out));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({total}), &values_out));
    MG_RETURN_IF_ERROR(ctx->allocate_output(2, TensorShape({2}), &shape_out));
    shape_out->data<int64_t>()[0] = batch;
    shape_out->data<int64_t>()[1] = widest;
    WriteCrosses(columns, crosses, options, indices_out, values_out);
    return absl::OkStatus();
  }

 private:
  enum class Kind { kV1, kV2, kHashed };

  // What the V2 and hashed ops take as inputs after the columns.
  struct Options {
    std::string separator = "_X_";
    int64_t buckets = 0;
    bool strong = false;
    uint64_t salt[2] = {0, 0};
  };

  absl::StatusOr<Options> OptionsOf(OpKernelContext* ctx) const {
    Options o;
    const int last = ctx->num_inputs() - 1;
    const std::string where = absl::StrCat(type_string(), " '", name(), "'");
    if (kind_ == Kind::kV1) {
      o.buckets = buckets_;
    } else if (kind_ == Kind::kV2) {
      const Tensor& sep = ctx->input(last);
      if (sep.dims() != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": Input separator should be a scalar, got ", sep.shape().DebugString()));
      }
      o.separator = sep.data<std::string>()[0];
    } else {
      const Tensor& buckets = ctx->input(last - 2);
      const Tensor& strong = ctx->input(last - 1);
      const Tensor& salt = ctx->input(last);
      if (buckets.dims() != 0 || strong.dims() != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": num_buckets and strong_hash must be scalars, got ",
                         buckets.shape().DebugString(), " and ", strong.shape().DebugString()));
      }
      if (salt.NumElements() != 2) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": Input \"salt\" must have length 2 but has length ", salt.NumElements()));
      }
      o.buckets = buckets.data<int64_t>()[0];
      o.strong = strong.data<bool>()[0];
      o.salt[0] = static_cast<uint64_t>(salt.data<int64_t>()[0]);
      o.salt[1] = static_cast<uint64_t>(salt.data<int64_t>()[1]);
    }
    return o;
  }

  // The batch: the sparse inputs' first shape's rows, else the first dense
  // input's.
  absl::StatusOr<int64_t> BatchSize(OpKernelContext* ctx, int dense_n) const {
    int64_t batch = 0;
    if (n_ > 0) {
      const Tensor& shape = ctx->input(2 * n_);
      if (shape.dims() != 1 || shape.NumElements() != 2) {
        return absl::InvalidArgumentError(absl::StrCat("shape should imply a 2D tensor, but got ",
                                                       shape.shape().DebugString(),
                                                       " at position 0"));
      }
      batch = shape.data<int64_t>()[0];
    } else if (dense_n > 0) {
      batch = ctx->input(3 * n_).dims() >= 1 ? ctx->input(3 * n_).dim_size(0) : 0;
    }
    if (batch < 0) return absl::InvalidArgumentError("SparseCross: negative batch size");
    return batch;
  }

  // Every feature int64 or string, and string with internal_type string.
  absl::Status CheckTypes(OpKernelContext* ctx, int dense_n) const {
    for (int i = n_; i < 3 * n_ + dense_n; ++i) {
      const DataType t = ctx->input(i).dtype();
      if (i >= 2 * n_ && i < 3 * n_) continue;  // shapes
      const std::string which = i < 2 * n_ ? absl::StrCat("values ", i - n_)
                                           : absl::StrCat("dense input ", i - 3 * n_);
      if (t != DT_INT64 && t != DT_STRING) {
        return absl::InvalidArgumentError(absl::StrCat(
            "SparseCross crosses int64 and string features, not ", DataTypeString(t), " (", which,
            ")"));
      }
      // As TensorFlow: with internal_type string every feature is a string;
      // with int64, strings and integers mix.
      if (internal_type_ == DT_STRING && t != DT_STRING) {
        return absl::InvalidArgumentError(
            absl::StrCat("SparseCross: ", which, " should be of internal type string but is ",
                         DataTypeString(t)));
      }
    }
    return absl::OkStatus();
  }

  // The sparse columns, then the dense ones, checked against the batch.
  absl::StatusOr<std::vector<CrossColumn>> Columns(OpKernelContext* ctx, int64_t batch,
                                                   int dense_n) const {
    std::vector<CrossColumn> columns;
    for (int i = 0; i < n_; ++i) {
      const Tensor& indices = ctx->input(i);
      const Tensor& values = ctx->input(n_ + i);
      const Tensor& shape = ctx->input(2 * n_ + i);
      if (indices.dims() != 2 || indices.dim_size(1) != 2) {
        return absl::InvalidArgumentError(
            absl::StrCat("Input indices should be a matrix [n, 2] but received shape ",
                         indices.shape().DebugString(), " at position ", i));
      }
      if (values.dims() != 1 || values.dim_size(0) != indices.dim_size(0)) {
        return absl::InvalidArgumentError(
            absl::StrCat("Expected size of values to be ", indices.dim_size(0), " got shape ",
                         values.shape().DebugString(), " at position ", i));
      }
      if (shape.dims() != 1 || shape.NumElements() != 2) {
        return absl::InvalidArgumentError(absl::StrCat("shape should imply a 2D tensor, but got ",
                                                       shape.shape().DebugString(), " at position ",
                                                       i));
      }
      if (shape.data<int64_t>()[0] != batch) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Expected batch size ", batch, " got ", shape.data<int64_t>()[0], " at position ", i));
      }
      CrossColumn col{&values, false, std::vector<int64_t>(batch, 0),
                      std::vector<int64_t>(batch, 0)};
      const int64_t* idx = indices.data<int64_t>();
      for (int64_t k = 0; k < indices.dim_size(0); ++k) {
        const int64_t row = idx[2 * k];
        if (row < 0 || row >= batch || (k > 0 && row < idx[2 * (k - 1)])) {
          return absl::InvalidArgumentError(
              absl::StrCat("indices[", i, "] row ", row, " at ", k,
                           " is out of order or outside the batch of ", batch));
        }
        if (col.count[row]++ == 0) col.start[row] = k;
      }
      columns.push_back(std::move(col));
    }
    for (int i = 0; i < dense_n; ++i) {
      const Tensor& dense = ctx->input(3 * n_ + i);
      if (dense.dims() != 2) {
        return absl::InvalidArgumentError(
            absl::StrCat("Dense inputs should be a matrix but received shape ",
                         dense.shape().DebugString(), " at position ", i));
      }
      if (dense.dim_size(0) != batch) {
        return absl::InvalidArgumentError(absl::StrCat("Expected batch size ", batch, " got ",
                                                       dense.dim_size(0), " at dense tensor ", i));
      }
      columns.push_back({&dense, true, {}, {}});
    }
    return columns;
  }

  // Each row's crosses, the last column varying fastest: joined strings or
  // their hash.
  void WriteCrosses(const std::vector<CrossColumn>& columns, const std::vector<int64_t>& crosses,
                    const Options& o, Tensor* indices_out, Tensor* values_out) const {
    auto text = [](const Tensor& t, int64_t i) {
      return t.dtype() == DT_STRING ? t.data<std::string>()[i]
                                    : std::to_string(t.data<int64_t>()[i]);
    };
    auto fingerprint = [](const Tensor& t, int64_t i) {
      return t.dtype() == DT_STRING ? Fingerprint64(t.data<std::string>()[i])
                                    : static_cast<uint64_t>(t.data<int64_t>()[i]);
    };
    // SparseCrossHashed's feature hash (see above for its int64 features).
    auto keyed = [&o](const CrossColumn& c, int64_t i) -> uint64_t {
      const Tensor& t = *c.values;
      if (t.dtype() != DT_STRING && !o.strong && c.dense) {
        return static_cast<uint64_t>(t.data<int64_t>()[i]);
      }
      const absl::string_view bytes =
          t.dtype() == DT_STRING
              ? absl::string_view(t.data<std::string>()[i])
              : absl::string_view(reinterpret_cast<const char*>(t.data<int64_t>() + i), 4);
      return o.strong ? StrongKeyedHash(o.salt, bytes) : Fingerprint64(bytes);
    };
    int64_t* out_idx = indices_out->data<int64_t>();
    std::vector<int64_t> pick(columns.size());
    const int64_t batch = static_cast<int64_t>(crosses.size());
    for (int64_t b = 0, k = 0; b < batch; ++b) {
      std::fill(pick.begin(), pick.end(), 0);
      for (int64_t j = 0; j < crosses[b]; ++j, ++k) {
        out_idx[2 * k] = b;
        out_idx[2 * k + 1] = j;
        if (hashed_) {
          uint64_t h = hash_key_;
          for (size_t c = 0; c < columns.size(); ++c) {
            const int64_t at = columns[c].Index(b, pick[c]);
            if (kind_ == Kind::kV1) {
              h = FingerprintCat64(h, fingerprint(*columns[c].values, at));
            } else {
              h = c == 0 ? keyed(columns[c], at) : FingerprintCat64(h, keyed(columns[c], at));
            }
          }
          values_out->data<int64_t>()[k] = static_cast<int64_t>(
              o.buckets > 0 ? h % static_cast<uint64_t>(o.buckets)
                            : h % static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
        } else {
          std::string& out = values_out->data<std::string>()[k];
          for (size_t c = 0; c < columns.size(); ++c) {
            if (c > 0) out += o.separator;
            out += text(*columns[c].values, columns[c].Index(b, pick[c]));
          }
        }
        // The next combination: the last column varies fastest.
        for (int c = static_cast<int>(columns.size()) - 1; c >= 0; --c) {
          if (++pick[c] < columns[c].Count(b)) break;
          pick[c] = 0;
        }
      }
    }
  }

  Kind kind_ = Kind::kV1;
  int64_t n_ = 0, buckets_ = 0;
  bool hashed_ = false;
  uint64_t hash_key_ = 0;
  DataType internal_type_ = DT_INT64;
};

}  // namespace

void RegisterSparseKernels(KernelRegistry* r) {
  r->Register("SparseCross", MakeFactory<SparseCrossOp>());
  r->Register("SparseCrossV2", MakeFactory<SparseCrossOp>());
  r->Register("SparseCrossHashed", MakeFactory<SparseCrossOp>());
  r->Register("SparseToDense",
              TypedFactory<SparseToDenseOp, float, double, int32_t, int64_t, bool, std::string>());
  r->Register("SparseReshape", MakeFactory<SparseReshapeOp>());
  r->Register(
      "SparseFillEmptyRows",
      TypedFactory<SparseFillEmptyRowsOp, float, double, int32_t, int64_t, bool, std::string>());
}

}  // namespace kernels_internal
}  // namespace minigraph
