// RaggedCross (tf.ragged.cross and cross_hashed, what Keras' preprocessing
// HashedCrossing and feature crosses of ragged inputs build): for each row
// of the batch, every combination of one feature from each input (ragged,
// sparse or dense, in the order `input_order` names them, the last varying
// fastest), as a ragged result: joined with "_X_", or FingerprintCat64 over
// the features' Fingerprint64 (an int64 feature is its own) from hash_key,
// mod num_buckets (mod 2^63 - 1 when it is 0), as TensorFlow's
// ragged_cross_op.cc.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/fingerprint.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// One input's features: row b's are values[start[b] .. start[b + 1]) (a
// dense input's rows are its matrix's).
struct Feature {
  const Tensor* values;
  std::vector<int64_t> start;  // batch + 1 row starts
  int64_t Count(int64_t b) const { return start[b + 1] - start[b]; }
};

class RaggedCrossOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    std::vector<DataType> ragged_values, ragged_splits, sparse_values, dense;
    int64_t key;
    MG_RETURN_IF_ERROR(c->GetAttr("num_buckets", &buckets_));
    MG_RETURN_IF_ERROR(c->GetAttr("hash_key", &key));
    MG_RETURN_IF_ERROR(c->GetAttr("Nsparse", &n_sparse_));
    MG_RETURN_IF_ERROR(c->GetAttr("ragged_values_types", &ragged_values));
    MG_RETURN_IF_ERROR(c->GetAttr("ragged_splits_types", &ragged_splits));
    MG_RETURN_IF_ERROR(c->GetAttr("sparse_values_types", &sparse_values));
    MG_RETURN_IF_ERROR(c->GetAttr("dense_types", &dense));
    MG_RETURN_IF_ERROR(c->GetAttr("input_order", &order_));
    DataType out_type;
    MG_RETURN_IF_ERROR(c->GetAttr("out_values_type", &out_type));
    MG_RETURN_IF_ERROR(c->GetAttr("out_row_splits_type", &splits_type_));
    hash_key_ = static_cast<uint64_t>(key);
    hashed_ = out_type == DT_INT64;
    n_ragged_ = static_cast<int>(ragged_values.size());
    n_dense_ = static_cast<int>(dense.size());
    if (ragged_values.size() != ragged_splits.size()) {
      return Invalid("ragged values and splits must have the same length");
    }
    if (n_sparse_ != static_cast<int64_t>(sparse_values.size())) {
      return Invalid("sparse indices and values must have the same length");
    }
    int counts[3] = {0, 0, 0};
    for (char k : order_) {
      const int which = k == 'R' ? 0 : k == 'S' ? 1 : k == 'D' ? 2 : -1;
      if (which < 0) return Invalid(absl::StrCat("unexpected input_order value '", order_, "'"));
      ++counts[which];
    }
    if (counts[0] != n_ragged_ || counts[1] != n_sparse_ || counts[2] != n_dense_) {
      return Invalid(absl::StrCat("input_order \"", order_, "\" does not name the ", n_ragged_,
                                  " ragged, ", n_sparse_, " sparse and ", n_dense_,
                                  " dense inputs"));
    }
    return absl::OkStatus();
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(const int64_t batch, Batch(ctx));
    // Per input a row start, and the row splits, for each row (a sparse
    // input's dense shape alone may name a huge batch).
    MG_RETURN_IF_ERROR(CheckScratchSize(
        batch + 1, (order_.size() + 1) * sizeof(int64_t),
        absl::StrCat(type_string(), " '", name(), "' over a batch of ", batch, " rows")));
    std::vector<Feature> features;
    int next[3] = {0, 0, 0};
    for (char k : order_) {
      Feature f;
      if (k == 'R') {
        MG_ASSIGN_OR_RETURN(f, Ragged(ctx, next[0]++, batch));
      } else if (k == 'S') {
        MG_ASSIGN_OR_RETURN(f, Sparse(ctx, next[1]++, batch));
      } else {
        const Tensor& d = ctx->input(2 * n_ragged_ + 3 * n_sparse_ + next[2]++);
        f.values = &d;
        for (int64_t b = 0; b <= batch; ++b) f.start.push_back(b * d.dim_size(1));
      }
      features.push_back(std::move(f));
    }
    // Row splits: the product of the features' counts in each row.
    std::vector<int64_t> splits(batch + 1, 0);
    const int64_t limit = splits_type_ == DT_INT32 ? std::numeric_limits<int32_t>::max()
                                                   : std::numeric_limits<int64_t>::max();
    for (int64_t b = 0; b < batch; ++b) {
      int64_t n = 1;
      for (const Feature& f : features) {
        const int64_t c = f.Count(b);
        if (c != 0 && n > limit / c) {
          return Invalid(absl::StrCat("row ", b, " has too many crosses"));
        }
        n *= c;
      }
      if (splits[b] > limit - n) return Invalid("more crosses than the row splits' type holds");
      splits[b + 1] = splits[b] + n;
    }
    Tensor *values_out, *splits_out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({splits[batch]}), &values_out));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({batch + 1}), &splits_out));
    for (int64_t b = 0; b <= batch; ++b) {
      if (splits_out->dtype() == DT_INT32) {
        splits_out->data<int32_t>()[b] = static_cast<int32_t>(splits[b]);
      } else {
        splits_out->data<int64_t>()[b] = splits[b];
      }
    }
    std::vector<int64_t> pick(features.size());
    for (int64_t b = 0; b < batch; ++b) {
      std::fill(pick.begin(), pick.end(), 0);
      for (int64_t k = splits[b]; k < splits[b + 1]; ++k) {
        if (hashed_) {
          uint64_t h = hash_key_;
          for (size_t i = 0; i < features.size(); ++i) {
            const Tensor& t = *features[i].values;
            const int64_t at = features[i].start[b] + pick[i];
            h = FingerprintCat64(h, t.dtype() == DT_STRING
                                        ? Fingerprint64(t.data<std::string>()[at])
                                        : static_cast<uint64_t>(t.data<int64_t>()[at]));
          }
          values_out->data<int64_t>()[k] = static_cast<int64_t>(
              buckets_ > 0 ? h % static_cast<uint64_t>(buckets_)
                           : h % static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
        } else {
          std::string& out = values_out->data<std::string>()[k];
          for (size_t i = 0; i < features.size(); ++i) {
            const Tensor& t = *features[i].values;
            const int64_t at = features[i].start[b] + pick[i];
            if (i > 0) out += "_X_";
            out += t.dtype() == DT_STRING ? t.data<std::string>()[at]
                                          : std::to_string(t.data<int64_t>()[at]);
          }
        }
        for (int i = static_cast<int>(features.size()) - 1; i >= 0; --i) {
          if (++pick[i] < features[i].Count(b)) break;
          pick[i] = 0;
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Invalid(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(type_string(), " '", name(), "': ", what));
  }

  // The batch: the first ragged input's rows, else the first dense input's,
  // else the first sparse input's; every input's shape checked against it.
  absl::StatusOr<int64_t> Batch(OpKernelContext* ctx) const {
    const int sparse_at = 2 * n_ragged_, dense_at = 2 * n_ragged_ + 3 * n_sparse_;
    const char* rank2 = "tf.ragged.cross only supports inputs with rank=2";
    for (int i = 0; i < n_ragged_; ++i) {
      if (ctx->input(i).dims() != 1 || ctx->input(n_ragged_ + i).dims() != 1 ||
          ctx->input(n_ragged_ + i).NumElements() == 0) {
        return Invalid(absl::StrCat(rank2, ": ragged input ", i, " has values ",
                                    ctx->input(i).shape().DebugString(), " and row splits ",
                                    ctx->input(n_ragged_ + i).shape().DebugString()));
      }
    }
    for (int i = 0; i < n_sparse_; ++i) {
      const Tensor& indices = ctx->input(sparse_at + i);
      const Tensor& values = ctx->input(sparse_at + n_sparse_ + i);
      const Tensor& shape = ctx->input(sparse_at + 2 * n_sparse_ + i);
      if (indices.dims() != 2 || values.dims() != 1 || shape.dims() != 1 ||
          indices.dim_size(0) != values.dim_size(0) || indices.dim_size(1) < 1) {
        return Invalid(absl::StrCat("invalid SparseTensor ", i, ": indices ",
                                    indices.shape().DebugString(), ", values ",
                                    values.shape().DebugString()));
      }
      if (shape.NumElements() != 2) {
        return Invalid(absl::StrCat(rank2, ": sparse input ", i, " has shape ",
                                    shape.shape().DebugString()));
      }
    }
    for (int i = 0; i < n_dense_; ++i) {
      if (ctx->input(dense_at + i).dims() != 2) {
        return Invalid(absl::StrCat(rank2, ": dense input ", i, " is ",
                                    ctx->input(dense_at + i).shape().DebugString()));
      }
    }
    int64_t batch = 0;
    if (n_ragged_ > 0) {
      batch = ctx->input(n_ragged_).NumElements() - 1;
    } else if (n_dense_ > 0) {
      batch = ctx->input(dense_at).dim_size(0);
    } else if (n_sparse_ > 0) {
      batch = ctx->input(sparse_at + 2 * n_sparse_).data<int64_t>()[0];
    }
    bool same = batch >= 0;
    for (int i = 0; i < n_ragged_; ++i) {
      same &= ctx->input(n_ragged_ + i).NumElements() - 1 == batch;
    }
    for (int i = 0; i < n_sparse_; ++i) {
      same &= ctx->input(sparse_at + 2 * n_sparse_ + i).data<int64_t>()[0] == batch;
    }
    for (int i = 0; i < n_dense_; ++i) same &= ctx->input(dense_at + i).dim_size(0) == batch;
    if (!same) return Invalid("inputs must all have the same batch dimension size");
    return batch;
  }

  // A ragged input's row starts: its splits, checked (0 first, never
  // decreasing, the values' count last).
  absl::StatusOr<Feature> Ragged(OpKernelContext* ctx, int i, int64_t batch) const {
    const Tensor& values = ctx->input(i);
    const Tensor& splits = ctx->input(n_ragged_ + i);
    Feature f{&values, std::vector<int64_t>(batch + 1)};
    for (int64_t b = 0; b <= batch; ++b) {
      f.start[b] = splits.dtype() == DT_INT32 ? splits.data<int32_t>()[b]
                                              : splits.data<int64_t>()[b];
      if ((b == 0 && f.start[0] != 0) || (b > 0 && f.start[b] < f.start[b - 1])) {
        return Invalid(absl::StrCat("ragged input ", i, "'s row splits must start at 0 and "
                                    "never decrease, got ", f.start[b], " at ", b));
      }
    }
    if (f.start[batch] != values.NumElements()) {
      return Invalid(absl::StrCat("ragged input ", i, "'s row splits end at ", f.start[batch],
                                  " for ", values.NumElements(), " values"));
    }
    return f;
  }

  // A sparse input's row starts, from its indices' rows in order.
  absl::StatusOr<Feature> Sparse(OpKernelContext* ctx, int i, int64_t batch) const {
    const int at = 2 * n_ragged_;
    const Tensor& indices = ctx->input(at + i);
    const Tensor& values = ctx->input(at + n_sparse_ + i);
    const int64_t n = values.NumElements(), width = indices.dim_size(1);
    const int64_t* idx = indices.data<int64_t>();
    for (int64_t k = 0; k < n; ++k) {
      const int64_t row = idx[k * width];
      if (row < 0 || row >= batch || (k > 0 && row < idx[(k - 1) * width])) {
        return Invalid(absl::StrCat("sparse input ", i, "'s row ", row, " at ", k,
                                    " is out of order or outside the batch of ", batch));
      }
    }
    Feature f{&values, {0}};
    int64_t k = 0;
    for (int64_t row = 0; row < batch; ++row) {
      while (k < n && idx[k * width] <= row) ++k;
      f.start.push_back(k);
    }
    return f;
  }

  int64_t buckets_ = 0, n_sparse_ = 0;
  int n_ragged_ = 0, n_dense_ = 0;
  uint64_t hash_key_ = 0;
  bool hashed_ = false;
  DataType splits_type_ = DT_INT64;
  std::string order_;
};

}  // namespace

void RegisterRaggedCrossKernels(KernelRegistry* r) {
  r->Register("RaggedCross", MakeFactory<RaggedCrossOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
