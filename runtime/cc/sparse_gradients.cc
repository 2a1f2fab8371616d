// Gradients of the SparseTensor ops, as TensorFlow's sparse_grad.py
// defines them: with respect to the values (and a dense operand); indices
// and shapes have none.
#include <string>
#include <vector>

#include "runtime/cc/gradients.h"
#include "runtime/cc/internal/gradient_families.h"
#include "runtime/cc/ops.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {
namespace {

using Grads = std::vector<Output>;

// Column `c` of an [N, 2] index matrix.
Output Column(const Scope& s, Output indices, int32_t c) {
  return ops::GatherV2(s, indices, ops::Const<int32_t>(s, c), ops::Const<int32_t>(s, 1));
}

bool BoolAttr(const Scope& s, const Operation& op, const char* name) {
  bool value = false;
  GetNodeAttr(s.GetNodeDef(op), name, &value).IgnoreError();
  return value;
}

}  // namespace

void gradients_internal::RegisterSparseGradients(GradientRegistry* r) {
  // _SparseTensorDenseMatMulGrad: B's gradient is A' times dy (transposed
  // back with adjoint_b); each value's the dot product of its row of dy and
  // its row of B.
  r->Register("SparseTensorDenseMatMul", [](const Scope& s, const Operation& op,
                                            const Grads& dy, Grads* dx) {
    const Grads in = s.GetInputs(op);
    const bool adj_a = BoolAttr(s, op, "adjoint_a");
    const bool adj_b = BoolAttr(s, op, "adjoint_b");
    AttrValue flip;
    flip.set_b(!adj_a);
    Output b_grad =
        s.AddOp("SparseTensorDenseMatMul", {{in[0]}, {in[1]}, {in[2]}, {dy[0]}},
                {{"adjoint_a", flip}})
            .output(0);
    Output perm = ops::Const<int32_t>(s, {1, 0});
    if (adj_b) b_grad = ops::Transpose(s, b_grad, perm);
    Output rows = Column(s, in[0], 0), cols = Column(s, in[0], 1);
    Output parts_a = ops::Gather(s, dy[0], adj_a ? cols : rows);
    Output parts_b = ops::Gather(s, adj_b ? ops::Transpose(s, in[3], perm) : in[3],
                                 adj_a ? rows : cols);
    *dx = {Output(), ops::Sum(s, ops::Mul(s, parts_a, parts_b), ops::Const<int32_t>(s, 1)),
           Output(), b_grad};
    return s.status();
  });
  // _SparseReduceSumGrad: each value gets the gradient of the output it was
  // summed into (dy reshaped to keep the reduced dimensions as 1).
  r->Register("SparseReduceSum", [](const Scope& s, const Operation& op, const Grads& dy,
                                    Grads* dx) {
    const Grads in = s.GetInputs(op);
    Output rank = ops::Size(s, in[2], DT_INT64);
    Output axes = ops::FloorMod(s, ops::Add(s, ops::Cast(s, in[3], DT_INT64), rank), rank);
    Output kept = s.AddOp("TensorScatterUpdate",
                          {{in[2]},
                           {ops::Reshape(s, axes, ops::Const<int32_t>(s, {-1, 1}))},
                           {ops::OnesLike(s, axes)}})
                      .output(0);
    Output scale = ops::FloorDiv(s, in[2], kept);
    Output values = ops::GatherNd(s, ops::Reshape(s, dy[0], kept), ops::FloorDiv(s, in[0], scale));
    *dx = {Output(), values, Output(), Output()};
    return s.status();
  });
  // _SparseAddGrad: the sum's value gradients back to a's and b's entries.
  r->Register("SparseAdd", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    const Grads in = s.GetInputs(op);
    Operation grad = s.AddOp("SparseAddGrad", {{dy[1]}, {in[0]}, {in[3]}, {op.output(0)}});
    *dx = {Output(), grad.output(0), Output(), Output(), grad.output(1), Output(), Output()};
    return s.status();
  });
  r->RegisterNoGradient("SparseAddGrad");
  // _SparseTensorDenseAddGrad: a's values get dy at their indices, b all of
  // it.
  r->Register("SparseTensorDenseAdd", [](const Scope& s, const Operation& op, const Grads& dy,
                                         Grads* dx) {
    const Grads in = s.GetInputs(op);
    *dx = {Output(), ops::GatherNd(s, dy[0], in[0]), Output(), dy[0]};
    return s.status();
  });
  // _SparseSoftmaxGrad: (dy - sum over the row of dy * y) * y, entry by
  // entry.
  r->Register("SparseSoftmax", [](const Scope& s, const Operation& op, const Grads& dy,
                                  Grads* dx) {
    const Grads in = s.GetInputs(op);
    Output y = op.output(0);
    AttrValue keep;
    keep.set_b(true);
    Output row_sums = s.AddOp("SparseReduceSum",
                              {{in[0]}, {ops::Mul(s, y, dy[0])}, {in[2]},
                               {ops::Const<int32_t>(s, {-1})}},
                              {{"keep_dims", keep}})
                          .output(0);
    Output shifted = s.AddOp("SparseDenseCwiseAdd",
                             {{in[0]}, {dy[0]}, {in[2]}, {ops::Neg(s, row_sums)}})
                         .output(0);
    *dx = {Output(), ops::Mul(s, shifted, y), Output()};
    return s.status();
  });
  // _SparseReorderGrad: the values' gradients put back in the input's
  // order (the inverse of the permutation the reorder applied).
  r->Register("SparseReorder", [](const Scope& s, const Operation& op, const Grads& dy,
                                  Grads* dx) {
    const Grads in = s.GetInputs(op);
    Output zero = ops::Const<int32_t>(s, 0);
    Output count = ops::GatherV2(s, ops::Shape(s, in[0]), zero, zero);
    Output entries = ops::Range(s, zero, count, ops::Const<int32_t>(s, 1));
    Output order = s.AddOp("SparseReorder", {{in[0]}, {entries}, {in[2]}}).output(1);
    *dx = {Output(), ops::Gather(s, dy[1], ops::InvertPermutation(s, order)), Output()};
    return s.status();
  });
  // The sliced values' gradient back to the entries they came from
  // (SparseSliceGrad); the others get zeros.
  r->Register("SparseSlice", [](const Scope& s, const Operation& op, const Grads& dy,
                                Grads* dx) {
    const Grads in = s.GetInputs(op);
    *dx = {Output(),
           s.AddOp("SparseSliceGrad", {{dy[1]}, {in[0]}, {in[3]}, {op.output(0)}}).output(0),
           Output(), Output(), Output()};
    return s.status();
  });
  // _SparseFillEmptyRowsGrad: each value's gradient is that of the entry
  // it became (reverse_index_map), the default's the sum over the entries
  // it filled in: all of the output values' gradient but the kept ones'
  // (what SparseFillEmptyRowsGrad computes, from ops minigraph has).
  r->Register("SparseFillEmptyRows", [](const Scope& s, const Operation& op, const Grads& dy,
                                        Grads* dx) {
    Output kept = ops::Gather(s, dy[1], op.output(3));
    Output zero = ops::Const<int32_t>(s, 0);
    *dx = {Output(), kept, Output(),
           ops::Sub(s, ops::Sum(s, dy[1], zero), ops::Sum(s, kept, zero))};
    return s.status();
  });
  // TensorFlow's _ragged_tensor_to_tensor_grad: the op run again on the
  // flat values' positions (-1 for padding) tells which output elements
  // came from which value; their gradients are summed into the values', the
  // rest into the default's (over the dimensions it was broadcast along).
  r->Register("RaggedTensorToTensor", [](const Scope& s, const Operation& op, const Grads& dy,
                                         Grads* dx) {
    const Grads in = s.GetInputs(op);
    std::vector<std::string> types;
    MG_RETURN_IF_ERROR(GetNodeAttr(s.GetNodeDef(op), "row_partition_types", &types));
    int32_t ragged_rank = 0;
    for (const std::string& t : types) ragged_rank += t != "FIRST_DIM_SIZE";
    // The default's rank without its leading dimensions of 1 (static).
    const PartialShape& ds = in[2].shape();
    if (!ds.rank_known()) {
      return absl::UnimplementedError(
          "the gradient of RaggedTensorToTensor needs its default value's rank");
    }
    int default_rank = ds.rank();
    for (int64_t d : ds.dims()) {
      if (d != 1) {
        if (d < 0) {
          return absl::UnimplementedError(
              "the gradient of RaggedTensorToTensor needs its default value's leading dims");
        }
        break;
      }
      --default_rank;
    }
    Output zero = ops::Const<int32_t>(s, 0), one = ops::Const<int32_t>(s, 1);
    Output count = ops::GatherV2(s, ops::Shape(s, in[1]), zero, zero);
    Output prefix = ops::StridedSlice(s, ops::Shape(s, dy[0], BaseType(in[0].dtype())),
                                      ops::Const<int32_t>(s, {0}),
                                      ops::Const<int32_t>(s, {1 + ragged_rank}),
                                      ops::Const<int32_t>(s, {1}));
    std::vector<Output> partitions(in.begin() + 3, in.end());
    Output positions =
        s.AddOp("RaggedTensorToTensor",
                {{prefix}, {ops::Range(s, zero, count, one)}, {ops::Const<int32_t>(s, -1)},
                 partitions},
                {{"row_partition_types", s.GetNodeDef(op).attr().at("row_partition_types")}})
            .output(0);
    Output from_values = ops::NotEqual(s, positions, ops::Const<int32_t>(s, -1));
    Output kept = ops::Where(s, from_values);
    Output values = ops::UnsortedSegmentSum(s, ops::GatherNd(s, dy[0], kept),
                                            ops::GatherNd(s, positions, kept), count);
    Output padded = ops::GatherNd(s, dy[0], ops::Where(s, ops::LogicalNot(s, from_values)));
    Output dims = ops::Range(
        s, zero, ops::Sub(s, ops::Rank(s, padded), ops::Const<int32_t>(s, default_rank)), one);
    *dx = {Output(), values,
           ops::Reshape(s, ops::Sum(s, padded, dims), ops::Shape(s, in[2]))};
    dx->resize(in.size());
    return s.status();
  });
  r->RegisterNoGradient("SparseConcat");  // as TensorFlow declares it
}

}  // namespace minigraph
