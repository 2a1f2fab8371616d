// Einsum: the contraction of one or two tensors that its equation names
// ("bqhd,bkhd->bhqk"), computed as TensorFlow's einsum_op_impl.h computes
// it. Each label is of one of five kinds by where it appears: broadcast
// (the axes an ellipsis stands for), batch (both inputs and the output),
// free (one input and the output), contract (both inputs, not the output)
// and reduce (one input only). Each operand is gathered into
// [broadcast, batch, free, contract] order, a repeated label's diagonal
// taken and the reduce axes summed; the two are multiplied as a batch of
// matrices (GemmBatch, the broadcast axes broadcast as BatchMatMulV2's);
// and the product's axes are scattered into the output's order, a label
// repeated in the output writing a diagonal with zeros around it (the
// equations Einsum's gradient makes, "i->ii").
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/matmul_op.h"
#include "runtime/engine/kernels/internal/matrix_batch.h"
#include "runtime/engine/kernels/internal/strided_copy.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// The kinds, in the order an operand's axes are gathered in.
enum Kind { kBroadcast = 0, kBatch = 1, kFree = 2, kContract = 3, kReduce = 4 };
constexpr int kEllipsis = -1;

// An equation's subscripts as small integers, in the order labels first
// appear; an ellipsis is kEllipsis. After an operand's ellipsis is
// expanded, broadcast axis j (of the output's, right-aligned) is label
// `named + j`.
struct Equation {
  std::vector<std::vector<int>> inputs;
  std::vector<int> output;
  int named = 0;
  std::vector<Kind> kinds;  // of each named label
};

absl::StatusOr<Equation> ParseEquation(const std::string& equation) {
  std::vector<std::string> sides = absl::StrSplit(equation, "->");
  if (sides.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expecting exactly one '->' in einsum equation: ", equation));
  }
  std::vector<std::string> inputs = absl::StrSplit(sides[0], ',');
  if (inputs.size() != 1 && inputs.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expecting 1 or 2 input subscripts in equation '", equation, "' but got: ", inputs.size()));
  }
  absl::flat_hash_map<char, int> ids;
  auto labels = [&](const std::string& sub, std::vector<int>* out) -> absl::Status {
    for (size_t i = 0; i < sub.size(); ++i) {
      if (sub[i] == '.') {
        if (sub.compare(i, 3, "...") != 0 || absl::c_linear_search(*out, kEllipsis)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Invalid ellipsis in subscript '", sub, "' of einsum equation: ", equation));
        }
        out->push_back(kEllipsis);
        i += 2;
        continue;
      }
      if (!absl::ascii_isalpha(static_cast<unsigned char>(sub[i]))) {
        return absl::InvalidArgumentError(absl::StrCat("Invalid character '", sub.substr(i, 1),
                                                       "' in einsum equation: ", equation));
      }
      out->push_back(ids.try_emplace(sub[i], static_cast<int>(ids.size())).first->second);
    }
    return absl::OkStatus();
  };
  Equation eq;
  eq.inputs.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) MG_RETURN_IF_ERROR(labels(inputs[i], &eq.inputs[i]));
  const int in_inputs = static_cast<int>(ids.size());
  MG_RETURN_IF_ERROR(labels(sides[1], &eq.output));
  if (static_cast<int>(ids.size()) != in_inputs) {
    return absl::InvalidArgumentError(absl::StrCat(
        "The output subscripts of einsum equation '", equation,
        "' name a label that no input has"));
  }
  eq.named = in_inputs;
  eq.kinds.resize(eq.named);
  for (int label = 0; label < eq.named; ++label) {
    auto count = [&](const std::vector<int>& sub) { return absl::c_count(sub, label); };
    const bool removed = count(eq.output) == 0;
    const bool unique = eq.inputs.size() == 1 || count(eq.inputs[0]) == 0 ||
                        count(eq.inputs[1]) == 0;
    eq.kinds[label] = removed ? (unique ? kReduce : kContract) : (unique ? kFree : kBatch);
  }
  return eq;
}

// One operand ready for the product: `t` holds [batch..., rows, cols], the
// rows and columns being its free and contract axes flattened (contract
// and free when `swapped`); `batch` its broadcast and batch dimensions.
struct Operand {
  Tensor t;
  std::vector<int64_t> batch;
  int64_t free_size = 1, contract_size = 1;
  bool swapped = false;
  std::vector<int> free_labels;
};

// Sums the trailing `inner` elements of each of `outer` rows of `in`.
template <typename T>
absl::StatusOr<Tensor> SumRows(OpKernelContext* ctx, const Tensor& in, int64_t outer,
                               int64_t inner) {
  MG_ASSIGN_OR_RETURN(Tensor out, ctx->allocate_temp(in.dtype(), TensorShape({outer})));
  const T* x = in.data<T>();
  T* y = out.data<T>();
  ctx->ParallelFor(outer, inner * sizeof(T), sizeof(T), inner, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      T sum = T(0);
      for (int64_t r = 0; r < inner; ++r) sum += x[o * inner + r];
      y[o] = sum;
    }
  });
  return out;
}

template <typename T>
class EinsumOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    std::string equation;
    MG_RETURN_IF_ERROR(c->GetAttr("equation", &equation));
    MG_ASSIGN_OR_RETURN(eq_, ParseEquation(equation));
    return absl::OkStatus();
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const int num_inputs = static_cast<int>(eq_.inputs.size());
    if (ctx->num_inputs() != num_inputs) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected ", num_inputs, " inputs but got: ", ctx->num_inputs()));
    }
    // Each input's labels axis by axis, and the named labels' dimensions.
    std::vector<int64_t> dims(eq_.named, -1);
    std::vector<std::vector<int>> axes(num_inputs);
    std::vector<int> broadcast_rank(num_inputs, 0);
    int max_broadcast = 0;
    for (int i = 0; i < num_inputs; ++i) {
      const Tensor& x = ctx->input(i);
      const std::vector<int>& sub = eq_.inputs[i];
      const bool ellipsis = absl::c_linear_search(sub, kEllipsis);
      const int named_axes = static_cast<int>(sub.size()) - (ellipsis ? 1 : 0);
      if (!ellipsis && x.dims() != named_axes) {
        return absl::InvalidArgumentError(absl::StrCat("Expected input ", i, " to have rank ",
                                                       named_axes, " but got: ", x.dims()));
      }
      if (ellipsis && x.dims() < named_axes) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Expected input ", i, " to have rank at least ", named_axes, " but got: ", x.dims()));
      }
      broadcast_rank[i] = x.dims() - named_axes;
      max_broadcast = std::max(max_broadcast, broadcast_rank[i]);
    }
    const bool output_ellipsis = absl::c_linear_search(eq_.output, kEllipsis);
    if (max_broadcast > 0 && !output_ellipsis) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Output contains ", max_broadcast,
          " broadcasting dimension(s) but no ellipsis (...) was found in the output subscripts."));
    }
    for (int i = 0; i < num_inputs; ++i) {
      const Tensor& x = ctx->input(i);
      for (int label : eq_.inputs[i]) {
        if (label == kEllipsis) {
          for (int j = 0; j < broadcast_rank[i]; ++j) {
            axes[i].push_back(eq_.named + max_broadcast - broadcast_rank[i] + j);
          }
          continue;
        }
        const int axis = static_cast<int>(axes[i].size());
        const int64_t d = x.dim_size(axis);
        if (dims[label] >= 0 && dims[label] != d) {
          return absl::InvalidArgumentError(
              absl::StrCat("Expected dimension ", dims[label], " at axis ", axis,
                           " of the input shaped ", x.shape().DebugString(),
                           " but got dimension ", d));
        }
        dims[label] = d;
        axes[i].push_back(label);
      }
    }
    std::vector<Operand> operands(num_inputs);
    for (int i = 0; i < num_inputs; ++i) {
      MG_RETURN_IF_ERROR(Prepare(ctx, ctx->input(i), axes[i], dims, &operands[i]));
    }

    // The product (or the one operand) as [batch..., free of x, free of y],
    // with its labels.
    Tensor result;
    std::vector<int64_t> result_dims;
    std::vector<int> result_labels;
    if (num_inputs == 1) {
      result = operands[0].t;
      result_dims = operands[0].batch;
    } else {
      MG_RETURN_IF_ERROR(Contract(ctx, operands[0], operands[1], &result, &result_dims));
    }
    for (int j = 0; j < max_broadcast; ++j) result_labels.push_back(eq_.named + j);
    for (int label = 0; label < eq_.named; ++label) {
      if (eq_.kinds[label] == kBatch) result_labels.push_back(label);
    }
    for (const Operand& op : operands) {
      for (int label : op.free_labels) {
        result_labels.push_back(label);
        result_dims.push_back(dims[label]);
      }
    }
    return WriteOutput(ctx, result, result_dims, result_labels, dims);
  }

 private:
  // `x` (its axes labelled by `axes`) gathered into `op`.
  absl::Status Prepare(OpKernelContext* ctx, const Tensor& x, const std::vector<int>& axes,
                       const std::vector<int64_t>& dims, Operand* op) const {
    auto kind = [&](int label) { return label >= eq_.named ? kBroadcast : eq_.kinds[label]; };
    // The distinct labels by kind, then label; and with contract before free.
    std::vector<int> order = axes;
    std::sort(order.begin(), order.end());
    order.erase(std::unique(order.begin(), order.end()), order.end());
    auto by = [&](bool contract_first) {
      auto rank = [&](int label) {
        const Kind k = kind(label);
        if (contract_first && (k == kFree || k == kContract)) return k == kFree ? 3 : 2;
        return static_cast<int>(k);
      };
      std::vector<int> o = order;
      std::stable_sort(o.begin(), o.end(), [&](int a, int b) { return rank(a) < rank(b); });
      return o;
    };
    order = by(false);
    const std::vector<int> swapped_order = by(true);
    // The dimension of each distinct label in this operand (a broadcast
    // axis may be 1 here and broadcast in the product).
    auto dim_of = [&](int label) {
      if (label < eq_.named) return dims[label];
      return x.dim_size(static_cast<int>(absl::c_find(axes, label) - axes.begin()));
    };
    Tensor gathered = x;
    if (axes == swapped_order && axes != order) {
      op->swapped = true;
    } else if (axes != order) {
      // Transpose, taking each repeated label's diagonal: its axes' strides
      // summed.
      const std::vector<int64_t> strides = RowMajorStrides(x.shape());
      StridedBlock block;
      for (int label : order) {
        block.dims.push_back(dim_of(label));
        int64_t stride = 0;
        for (size_t a = 0; a < axes.size(); ++a) {
          if (axes[a] == label) stride += strides[a];
        }
        block.src_strides.push_back(stride);
      }
      MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(block.dims));
      MG_ASSIGN_OR_RETURN(gathered, ctx->allocate_temp(x.dtype(), shape));
      block.dst_strides = RowMajorStrides(shape);
      if (shape.num_elements() > 0) CopyStrided(x, &gathered, block);
    }
    int64_t reduce_size = 1;
    for (int label : order) {
      const int64_t d = dim_of(label);
      switch (kind(label)) {
        case kBroadcast:
        case kBatch:
          op->batch.push_back(d);
          break;
        case kFree:
          op->free_size *= d;
          op->free_labels.push_back(label);
          break;
        case kContract:
          op->contract_size *= d;
          break;
        case kReduce:
          reduce_size *= d;
          break;
      }
    }
    if (op->swapped) {
      op->free_labels.clear();
      for (int label : swapped_order) {
        if (kind(label) == kFree) op->free_labels.push_back(label);
      }
    }
    int64_t kept = op->free_size * op->contract_size;
    for (int64_t d : op->batch) kept *= d;
    if (reduce_size != 1) {
      MG_ASSIGN_OR_RETURN(gathered, SumRows<T>(ctx, gathered, kept, reduce_size));
    }
    std::vector<int64_t> shape = op->batch;
    shape.push_back(op->swapped ? op->contract_size : op->free_size);
    shape.push_back(op->swapped ? op->free_size : op->contract_size);
    MG_ASSIGN_OR_RETURN(TensorShape matrices, TensorShape::Build(shape));
    MG_ASSIGN_OR_RETURN(op->t, gathered.Reshaped(matrices));
    return absl::OkStatus();
  }

  // x's free axes times y's, over their contract axes, batch by batch.
  static absl::Status Contract(OpKernelContext* ctx, const Operand& x, const Operand& y,
                               Tensor* result, std::vector<int64_t>* result_dims) {
    std::optional<MatrixBatch> batch = MatrixBatch::Make(x.t.shape(), y.t.shape(), true);
    if (!batch) {
      return absl::InvalidArgumentError(absl::StrCat("Invalid broadcasting dimensions: ",
                                                     x.t.shape().DebugString(), " vs. ",
                                                     y.t.shape().DebugString()));
    }
    *result_dims = batch->dims();
    std::vector<int64_t> shape = batch->dims();
    const int64_t m = x.free_size, n = y.free_size, k = x.contract_size;
    shape.push_back(m);
    shape.push_back(n);
    MG_ASSIGN_OR_RETURN(TensorShape result_shape, TensorShape::Build(shape));
    MG_ASSIGN_OR_RETURN(*result, ctx->allocate_temp(x.t.dtype(), result_shape));
    if (result->NumElements() == 0) return absl::OkStatus();
    GemmBatch(ctx, *batch, x.t.data<T>(), y.t.data<T>(), result->data<T>(), m, n, k,
              /*ta=*/x.swapped, /*tb=*/!y.swapped);
    return absl::OkStatus();
  }

  // `result` (dimensions `result_dims`, labels `result_labels`) in the
  // output's order: as it is when the orders agree, else scattered, each
  // label's output strides summed (a repeated label writes a diagonal).
  absl::Status WriteOutput(OpKernelContext* ctx, const Tensor& result,
                           const std::vector<int64_t>& result_dims,
                           const std::vector<int>& result_labels,
                           const std::vector<int64_t>& dims) const {
    auto dim_of = [&](int label) {
      return label < eq_.named ? dims[label]
                               : result_dims[label - eq_.named];  // broadcast axes lead
    };
    std::vector<int> out_labels;
    std::vector<int64_t> out_dims;
    for (int label : eq_.output) {
      if (label != kEllipsis) {
        out_labels.push_back(label);
        continue;
      }
      for (int j = 0; j < static_cast<int>(result_labels.size()); ++j) {
        if (result_labels[j] >= eq_.named) out_labels.push_back(result_labels[j]);
      }
    }
    for (int label : out_labels) out_dims.push_back(dim_of(label));
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(out_dims));
    if (out_labels == result_labels) {
      MG_ASSIGN_OR_RETURN(Tensor out, result.Reshaped(shape));
      ctx->set_output(0, std::move(out));
      return absl::OkStatus();
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    if (out_labels.size() > result_labels.size()) {
      std::memset(out->raw_data(), 0, out->TotalBytes());
    }
    const std::vector<int64_t> strides = RowMajorStrides(shape);
    StridedBlock block;
    MG_ASSIGN_OR_RETURN(TensorShape result_shape, TensorShape::Build(result_dims));
    MG_ASSIGN_OR_RETURN(Tensor flat_result, result.Reshaped(result_shape));
    block.dims = result_dims;
    block.src_strides = RowMajorStrides(result_shape);
    for (int label : result_labels) {
      int64_t stride = 0;
      for (size_t a = 0; a < out_labels.size(); ++a) {
        if (out_labels[a] == label) stride += strides[a];
      }
      block.dst_strides.push_back(stride);
    }
    CopyStrided(flat_result, out, block);
    return absl::OkStatus();
  }

  Equation eq_;
};

}  // namespace

void RegisterEinsumKernels(KernelRegistry* r) {
  r->Register("Einsum", TypedFactory<EinsumOp, float, double, int32_t, int64_t>());
}

}  // namespace kernels_internal
}  // namespace minigraph
