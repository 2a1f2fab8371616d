// RaggedTensorToTensor: a ragged tensor (flat values plus one row partition
// per ragged dimension) padded into a dense tensor, as TensorFlow's
// RaggedTensor.to_tensor() builds it (Keras' TextVectorization ends so);
// and RaggedRange (tf.ragged.range).
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// One ragged dimension: which element of the dimension above each element
// belongs to, given as row splits or as value row ids.
struct Partition {
  bool splits = false;  // ROW_SPLITS, else VALUE_ROWIDS
  std::vector<int64_t> v;
};

// The row partitions of `ctx` (its inputs from 3 on, of `types`) and the
// number of rows: FIRST_DIM_SIZE's, else the first ROW_SPLITS' length - 1.
absl::Status ReadPartitions(OpKernelContext* ctx, const std::vector<std::string>& types,
                            int64_t* rows, std::vector<Partition>* parts) {
  const bool first_dim = types[0] == "FIRST_DIM_SIZE";
  for (size_t i = 0; i < types.size(); ++i) {
    const std::string what = absl::StrCat("row_partition_tensors[", i, "] (", types[i], ")");
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> v, IntsFromTensor(ctx->input(3 + i), what));
    if (i == 0 && first_dim) {
      if (v.size() != 1 || v[0] < 0) {
        return absl::InvalidArgumentError(absl::StrCat(what, " must be one non-negative number"));
      }
      *rows = v[0];
      MG_RETURN_IF_ERROR(CheckScratchSize(
          *rows, sizeof(int64_t), absl::StrCat("RaggedTensorToTensor over ", *rows, " rows")));
      continue;
    }
    parts->push_back({types[i] == "ROW_SPLITS", std::move(v)});
  }
  if (!first_dim) {
    if ((*parts)[0].v.empty()) {
      return absl::InvalidArgumentError("row_partition_tensors[0] (ROW_SPLITS) is empty");
    }
    *rows = static_cast<int64_t>((*parts)[0].v.size()) - 1;
  }
  return absl::OkStatus();
}

// The dense shape: the rows, each ragged dimension's longest row, the
// values' inner dimensions. Checks each partition against the dimension
// above it, and that the last holds as many values as there are.
absl::StatusOr<std::vector<int64_t>> DenseDims(const std::vector<Partition>& parts,
                                               int64_t rows, bool first_dim,
                                               const Tensor& values) {
  std::vector<int64_t> dims = {rows};
  int64_t above = rows;
  for (size_t k = 0; k < parts.size(); ++k) {
    const std::vector<int64_t>& v = parts[k].v;
    const std::string what = absl::StrCat("row_partition_tensors[", k + (first_dim ? 1 : 0), "]");
    int64_t longest = 0, count;
    if (parts[k].splits) {
      if (static_cast<int64_t>(v.size()) != above + 1 || v[0] != 0) {
        return absl::InvalidArgumentError(absl::StrCat(what,
                                                       " (ROW_SPLITS) must start at 0 and have ",
                                                       above + 1, " entries, has ", v.size()));
      }
      for (int64_t r = 0; r < above; ++r) {
        if (v[r + 1] < v[r]) {
          return absl::InvalidArgumentError(
              absl::StrCat(what, " (ROW_SPLITS) decreases at ", r + 1));
        }
        longest = std::max(longest, v[r + 1] - v[r]);
      }
      count = v.back();
      MG_RETURN_IF_ERROR(CheckScratchSize(
          count, sizeof(int64_t), absl::StrCat(what, " (ROW_SPLITS) with ", count, " values")));
    } else {
      int64_t run = 0;
      for (size_t j = 0; j < v.size(); ++j) {
        if (v[j] < 0 || v[j] >= above || (j > 0 && v[j] < v[j - 1])) {
          return absl::InvalidArgumentError(
              absl::StrCat(what, " (VALUE_ROWIDS) must be sorted and in [0, ", above, "), has ",
                           v[j], " at ", j));
        }
        run = j > 0 && v[j] == v[j - 1] ? run + 1 : 1;
        longest = std::max(longest, run);
      }
      count = static_cast<int64_t>(v.size());
    }
    dims.push_back(longest);
    above = count;
  }
  if (above != values.dim_size(0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the row partitions hold ", above, " values, but values has ",
                     values.dim_size(0), " (shape ", values.shape().DebugString(), ")"));
  }
  for (int d = 1; d < values.dims(); ++d) dims.push_back(values.dim_size(d));
  return dims;
}

// `shape_t`: -1 (or a scalar) leaves a dimension as found; a size cuts or
// pads it; an inner dimension must match the values'.
absl::Status ApplyShape(const Tensor& shape_t, int ragged_rank, std::vector<int64_t>* dims) {
  if (shape_t.dims() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape must be a vector or a scalar, got shape ", shape_t.shape().DebugString()));
  }
  if (shape_t.dims() != 1) return absl::OkStatus();
  MG_ASSIGN_OR_RETURN(std::vector<int64_t> shape, IntsFromTensor(shape_t, "shape"));
  if (shape.size() != dims->size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape [", absl::StrJoin(shape, ","), "] has rank ", shape.size(),
                     ", the ragged tensor has rank ", dims->size()));
  }
  for (size_t d = 0; d < dims->size(); ++d) {
    if (shape[d] < 0) continue;
    if (static_cast<int>(d) > ragged_rank && shape[d] != (*dims)[d]) {
      return absl::InvalidArgumentError(absl::StrCat("shape [", absl::StrJoin(shape, ","),
                                                     "] asks for ", shape[d], " in dimension ",
                                                     d, ", where values have ", (*dims)[d]));
    }
    (*dims)[d] = shape[d];
  }
  return absl::OkStatus();
}

// default_value: one element, or one inner block of values.
absl::Status CheckDefault(const Tensor& default_value, const Tensor& values) {
  if (default_value.NumElements() == 1) return absl::OkStatus();
  if (default_value.dims() == values.dims() - 1 &&
      std::equal(default_value.shape().dim_sizes().begin(),
                 default_value.shape().dim_sizes().end(),
                 values.shape().dim_sizes().begin() + 1)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("default_value of shape ", default_value.shape().DebugString(),
                   " is neither one element nor one element of values (shape ",
                   values.shape().DebugString(), ")"));
}

// Where each value's block lands in the dense tensor (in blocks; -1 when
// cut off): each ragged dimension's elements placed in turn, in units of
// the dimension's cells.
std::vector<int64_t> Placements(const std::vector<Partition>& parts, int64_t rows,
                                const std::vector<int64_t>& dims) {
  std::vector<int64_t> at(rows);
  for (int64_t r = 0; r < rows; ++r) at[r] = r < dims[0] ? r : -1;
  for (size_t k = 0; k < parts.size(); ++k) {
    const std::vector<int64_t>& v = parts[k].v;
    const int64_t width = dims[k + 1];
    std::vector<int64_t> next;
    auto place = [&](int64_t parent, int64_t pos) {
      next.push_back(at[parent] < 0 || pos >= width ? -1 : at[parent] * width + pos);
    };
    if (parts[k].splits) {
      next.reserve(v.back());
      for (size_t r = 0; r + 1 < v.size(); ++r) {
        for (int64_t pos = 0; pos < v[r + 1] - v[r]; ++pos) place(r, pos);
      }
    } else {
      next.reserve(v.size());
      for (size_t j = 0, pos = 0; j < v.size(); ++j) {
        pos = j > 0 && v[j] == v[j - 1] ? pos + 1 : 0;
        place(v[j], pos);
      }
    }
    at = std::move(next);
  }
  return at;
}

class RaggedTensorToTensorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("row_partition_types", &types_));
    if (types_.empty()) return absl::InvalidArgumentError("row_partition_types is empty");
    for (size_t i = 0; i < types_.size(); ++i) {
      const std::string& t = types_[i];
      if (t != "ROW_SPLITS" && t != "VALUE_ROWIDS" && (t != "FIRST_DIM_SIZE" || i > 0)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "row_partition_types[", i, "] is \"", t,
            "\": each must be ROW_SPLITS or VALUE_ROWIDS, and FIRST_DIM_SIZE may come first"));
      }
    }
    if (types_[0] == "VALUE_ROWIDS") {
      return absl::InvalidArgumentError(
          "row_partition_types starts with VALUE_ROWIDS: the first dimension's size must be "
          "given first (FIRST_DIM_SIZE)");
    }
    if (types_.size() == 1 && types_[0] == "FIRST_DIM_SIZE") {
      return absl::InvalidArgumentError(
          "row_partition_types has FIRST_DIM_SIZE and no partition after it");
    }
    return absl::OkStatus();
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& values = ctx->input(1);
    const Tensor& default_value = ctx->input(2);
    if (ctx->num_inputs() != 3 + static_cast<int>(types_.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("RaggedTensorToTensor has ", ctx->num_inputs() - 3,
                       " row partition tensors for ", types_.size(), " row_partition_types"));
    }
    if (values.dims() < 1) {
      return absl::InvalidArgumentError("RaggedTensorToTensor values must be at least 1-D");
    }
    int64_t rows = 0;
    std::vector<Partition> parts;
    MG_RETURN_IF_ERROR(ReadPartitions(ctx, types_, &rows, &parts));
    const bool first_dim = types_[0] == "FIRST_DIM_SIZE";
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> dims, DenseDims(parts, rows, first_dim, values));
    MG_RETURN_IF_ERROR(ApplyShape(ctx->input(0), static_cast<int>(parts.size()), &dims));
    MG_RETURN_IF_ERROR(CheckDefault(default_value, values));
    MG_ASSIGN_OR_RETURN(TensorShape out_shape, TensorShape::Build(dims));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    const int64_t total = out->NumElements();
    if (total == 0) return absl::OkStatus();
    int64_t inner = 1;
    for (int d = 1; d < values.dims(); ++d) inner *= values.dim_size(d);
    // Fill with the default, doubling what is filled.
    const int64_t block = default_value.NumElements() == 1 ? 1 : inner;
    CopyElements(default_value, 0, out, 0, block);
    for (int64_t filled = block; filled < total;) {
      const int64_t n = std::min(filled, total - filled);
      CopyElements(*out, 0, out, filled, n);
      filled += n;
    }
    const std::vector<int64_t> at = Placements(parts, rows, dims);
    for (size_t j = 0; j < at.size(); ++j) {
      if (at[j] >= 0) CopyElements(values, j * inner, out, at[j] * inner, inner);
    }
    return absl::OkStatus();
  }

 private:
  std::vector<std::string> types_;
};

// RaggedRange: row i is range(starts[i], limits[i], deltas[i]) (scalars
// apply to every row), as row splits of Tsplits and the rows' values, each
// value the previous plus delta (TensorFlow's sums, not start + j delta).
template <typename T>
class RaggedRangeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor* in[3] = {&ctx->input(0), &ctx->input(1), &ctx->input(2)};
    int64_t rows = 1;
    const Tensor* shaped = nullptr;
    for (const Tensor* t : in) {
      if (t->dims() > 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "RaggedRange: starts, limits and deltas must be scalars or vectors, got shape ",
            t->shape().DebugString()));
      }
      if (t->dims() == 0) continue;
      if (shaped != nullptr && shaped->shape() != t->shape()) {
        return absl::InvalidArgumentError(
            "RaggedRange: starts, limits, and deltas must have the same shape");
      }
      shaped = t;
      rows = t->dim_size(0);
    }
    auto at = [](const Tensor* t, int64_t i) { return t->data<T>()[t->dims() == 0 ? 0 : i]; };
    std::vector<int64_t> sizes(rows);
    int64_t total = 0;
    for (int64_t i = 0; i < rows; ++i) {
      const T start = at(in[0], i), limit = at(in[1], i), delta = at(in[2], i);
      if (delta == T(0)) return absl::InvalidArgumentError("RaggedRange: Requires delta != 0");
      if ((delta > 0 && limit < start) || (delta < 0 && limit > start)) {
        sizes[i] = 0;
      } else if constexpr (std::is_integral_v<T>) {
        const T span = limit > start ? limit - start : start - limit;
        const T step = delta > 0 ? delta : -delta;
        sizes[i] = static_cast<int64_t>((span + step - 1) / step);
      } else {
        sizes[i] = static_cast<int64_t>(std::ceil(std::abs((limit - start) / delta)));
      }
      total += sizes[i];
    }
    Tensor *splits, *values;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({rows + 1}), &splits));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({total}), &values));
    const bool splits64 = splits->dtype() == DT_INT64;
    int64_t k = 0;
    for (int64_t i = 0; i <= rows; ++i) {
      if (splits64) {
        splits->data<int64_t>()[i] = k;
      } else {
        splits->data<int32_t>()[i] = static_cast<int32_t>(k);
      }
      if (i == rows) break;
      T value = at(in[0], i);
      for (int64_t j = 0; j < sizes[i]; ++j, value += at(in[2], i)) {
        values->data<T>()[k++] = value;
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterRaggedKernels(KernelRegistry* r) {
  r->Register("RaggedTensorToTensor", MakeFactory<RaggedTensorToTensorOp>());
  r->Register("RaggedRange", TypedFactory<RaggedRangeOp, float, double, int32_t, int64_t>());
}

}  // namespace kernels_internal
}  // namespace minigraph
