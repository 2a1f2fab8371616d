// SparseTensors as strings, as TensorFlow's serialize_sparse_op.cc and
// deserialize_sparse_string_op.cc write and read them: each of indices,
// values and dense shape a serialized TensorProto (tensor_content, strings
// included), byte for byte TensorFlow's. SerializeSparse makes
// one [3] row; SerializeManySparse one row per entry of the first
// dimension ([N, 3], empty rows included; indices must be in row-major
// order); DeserializeSparse and DeserializeManySparse read rows back, the
// leading dimensions of the rows becoming the first of the result and
// every other dimension the largest among the rows. Only the string form:
// the variant form (out_type DT_VARIANT) lives in datasets, which keep
// SparseTensors otherwise here.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/proto/tensor.pb.h"
#include "core/tensor_proto.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/kernels/sparse/sparse_input.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// `t` as TensorFlow's SerializeSparse writes a component.
absl::Status SerializeInto(const Tensor& t, std::string* out) {
  TensorProto proto;
  TensorToProtoContent(t, &proto);
  proto.mutable_tensor_shape();
  if (!proto.SerializeToString(out)) {
    return absl::InternalError("a SparseTensor component does not serialize");
  }
  return absl::OkStatus();
}

// Rows of [indices, values, shape] strings from parts of one SparseTensor.
class SparseWriter {
 public:
  SparseWriter(const Tensor& values, int rank) : values_(values), rank_(rank) {}

  // Row `row` of `out` ([.., 3] strings): entries `entries` of `sp`, their
  // first `drop` coordinates dropped, with dense shape `shape`.
  absl::Status Write(const SparseInput& sp, const std::vector<int64_t>& entries, int drop,
                     const std::vector<int64_t>& shape, std::string* row) const {
    const int64_t n = static_cast<int64_t>(entries.size());
    Tensor indices(DT_INT64, TensorShape({n, rank_ - drop}));
    Tensor values(values_.dtype(), TensorShape({n}));
    for (int64_t k = 0; k < n; ++k) {
      std::copy(sp.at(entries[k]) + drop, sp.at(entries[k]) + rank_,
                indices.data<int64_t>() + k * (rank_ - drop));
      CopyElements(values_, entries[k], &values, k, 1);
    }
    Tensor dense_shape(DT_INT64, TensorShape({static_cast<int64_t>(shape.size())}));
    std::copy(shape.begin(), shape.end(), dense_shape.data<int64_t>());
    MG_RETURN_IF_ERROR(SerializeInto(indices, &row[0]));
    MG_RETURN_IF_ERROR(SerializeInto(values, &row[1]));
    return SerializeInto(dense_shape, &row[2]);
  }

 private:
  const Tensor& values_;
  const int rank_;
};

absl::Status CheckOutType(OpKernelConstruction* c) {
  DataType out_type;
  MG_RETURN_IF_ERROR(c->GetAttr("out_type", &out_type));
  if (out_type != DT_STRING) return NoKernelForType(c, out_type);
  return absl::OkStatus();
}

class SerializeSparseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return CheckOutType(c); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(SparseInput sp, ReadSparse(ctx, *this, 0, /*in_range=*/false));
    std::vector<int64_t> all(sp.nnz);
    for (int64_t i = 0; i < sp.nnz; ++i) all[i] = i;
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({3}), &out));
    return SparseWriter(ctx->input(1), sp.rank())
        .Write(sp, all, 0, sp.shape, out->data<std::string>());
  }
};

class SerializeManySparseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return CheckOutType(c); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(SparseInput sp, ReadSparse(ctx, *this, 0, /*in_range=*/false));
    if (sp.rank() < 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Rank of input SparseTensor should be > 1, but saw rank: ", sp.rank()));
    }
    MG_RETURN_IF_ERROR(CheckIndicesOrdered(sp, *this));
    const int64_t n = sp.shape[0];
    std::vector<std::vector<int64_t>> rows(n);
    for (int64_t i = 0; i < sp.nnz; ++i) rows[sp.at(i)[0]].push_back(i);
    const std::vector<int64_t> shape(sp.shape.begin() + 1, sp.shape.end());
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({n, 3}), &out));
    const SparseWriter writer(ctx->input(1), sp.rank());
    for (int64_t b = 0; b < n; ++b) {
      MG_RETURN_IF_ERROR(writer.Write(sp, rows[b], 1, shape, out->data<std::string>() + 3 * b));
    }
    return absl::OkStatus();
  }
};

// One row read back: its indices [n, rank], values [n], shape [rank].
struct ReadRow {
  Tensor indices, values;
  std::vector<int64_t> shape;
};

absl::StatusOr<Tensor> ParseComponent(const std::string& bytes, int64_t row, int column) {
  TensorProto proto;
  if (!proto.ParseFromString(bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Could not parse serialized_sparse[", row, ", ", column, "]"));
  }
  absl::StatusOr<Tensor> t = TensorFromProto(proto);
  if (!t.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("Could not parse serialized_sparse[", row,
                                                   ", ", column, "]: ", t.status().message()));
  }
  return t;
}

absl::StatusOr<ReadRow> ReadSparseRow(const std::string* row, int64_t i, DataType dtype) {
  ReadRow r;
  MG_ASSIGN_OR_RETURN(r.indices, ParseComponent(row[0], i, 0));
  MG_ASSIGN_OR_RETURN(r.values, ParseComponent(row[1], i, 1));
  MG_ASSIGN_OR_RETURN(Tensor shape, ParseComponent(row[2], i, 2));
  if (r.indices.dtype() != DT_INT64 || r.indices.dims() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected serialized_sparse[", i, ", 0] to represent an int64 index matrix, got ",
        DataTypeString(r.indices.dtype()), " ", r.indices.shape().DebugString()));
  }
  if (r.values.dtype() != dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Requested SparseTensor of type ", DataTypeString(dtype), " but SparseTensor[", i,
        "].values.dtype() == ", DataTypeString(r.values.dtype())));
  }
  if (r.values.dims() != 1 || r.values.dim_size(0) != r.indices.dim_size(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected serialized_sparse[", i, ", 1] to represent a vector of one value per index, "
        "got ", r.values.shape().DebugString(), " for indices ",
        r.indices.shape().DebugString()));
  }
  if (shape.dtype() != DT_INT64 || shape.dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected serialized_sparse[", i, ", 2] to represent an int64 shape vector, got ",
        DataTypeString(shape.dtype()), " ", shape.shape().DebugString()));
  }
  if (shape.dim_size(0) != r.indices.dim_size(1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected column counts of SparseTensor[", i,
        "].indices to match size of SparseTensor[", i, "].shape but they do not: ",
        r.indices.dim_size(1), " vs. ", shape.dim_size(0)));
  }
  r.shape.assign(shape.data<int64_t>(), shape.data<int64_t>() + shape.NumElements());
  return r;
}

class DeserializeSparseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    if (c->def().attr().contains("Tserialized")) {  // DeserializeSparse's
      DataType t;
      MG_RETURN_IF_ERROR(c->GetAttr("Tserialized", &t));
      if (t != DT_STRING) return NoKernelForType(c, t);
    }
    return c->GetAttr("dtype", &dtype_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& serialized = ctx->input(0);
    if (serialized.dims() < 1 || serialized.dim_size(serialized.dims() - 1) != 3) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Serialized sparse should have 3 as the last dimension, got shape ",
          serialized.shape().DebugString()));
    }
    const int64_t count = serialized.NumElements() / 3;
    const int outer = serialized.dims() - 1;  // the rows' own dimensions
    std::vector<ReadRow> rows;
    int rank = -1;
    std::vector<int64_t> dims;
    int64_t total = 0;
    for (int64_t i = 0; i < count; ++i) {
      MG_ASSIGN_OR_RETURN(ReadRow r, ReadSparseRow(serialized.data<std::string>() + 3 * i, i,
                                                   dtype_));
      if (rank < 0) {
        rank = static_cast<int>(r.shape.size());
        dims = r.shape;
      } else if (static_cast<int>(r.shape.size()) != rank) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Inconsistent shape across SparseTensors: rank prior to SparseTensor[", i,
            "] was: ", rank, " but rank of SparseTensor[", i, "] is: ", r.shape.size()));
      }
      for (int d = 0; d < rank; ++d) dims[d] = std::max(dims[d], r.shape[d]);
      total += r.indices.dim_size(0);
      rows.push_back(std::move(r));
    }
    if (rank < 0) rank = 0;
    dims.resize(rank);
    // Each entry's index: its row's position among the rows, then its own.
    const int width = outer + rank;
    Tensor *indices, *values, *shape;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({total, width}), &indices));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({total}), &values));
    MG_RETURN_IF_ERROR(ctx->allocate_output(2, TensorShape({width}), &shape));
    for (int d = 0; d < outer; ++d) shape->data<int64_t>()[d] = serialized.dim_size(d);
    std::copy(dims.begin(), dims.end(), shape->data<int64_t>() + outer);
    int64_t k = 0;
    for (int64_t i = 0; i < count; ++i) {
      const ReadRow& r = rows[i];
      for (int64_t e = 0; e < r.indices.dim_size(0); ++e, ++k) {
        int64_t* at = indices->data<int64_t>() + k * width;
        for (int64_t d = outer - 1, rest = i; d >= 0; --d) {
          at[d] = rest % serialized.dim_size(d);
          rest /= serialized.dim_size(d);
        }
        std::copy_n(r.indices.data<int64_t>() + e * rank, rank, at + outer);
        CopyElements(r.values, e, values, k, 1);
      }
    }
    return absl::OkStatus();
  }

 private:
  DataType dtype_ = DT_INVALID;
};

}  // namespace

void RegisterSparseSerializationKernels(KernelRegistry* r) {
  r->Register("SerializeSparse", MakeFactory<SerializeSparseOp>());
  r->Register("SerializeManySparse", MakeFactory<SerializeManySparseOp>());
  r->Register("DeserializeSparse", MakeFactory<DeserializeSparseOp>());
  r->Register("DeserializeManySparse", MakeFactory<DeserializeSparseOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
