#include "runtime/cc/ops.h"

#include "absl/strings/str_cat.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {
namespace ops {
namespace {

using Attrs = std::map<std::string, AttrValue>;

template <typename T>
AttrValue Attr(const T& v) {
  return MakeAttrValue(v);
}

// Adds `op` to `s` and returns its first output.
Output SingleOp(const Scope& s, const char* op, std::vector<std::vector<Output>> in,
                const Attrs& attrs = {}) {
  return s.AddOp(op, in, attrs).output(0);
}

}  // namespace

Output Const(const Scope& s, const Tensor& value) {
  return SingleOp(s, "Const", {}, {{"value", Attr(value)}, {"dtype", Attr(value.dtype())}});
}

Output Placeholder(const Scope& s, DataType dtype, const PartialShape& shape) {
  return SingleOp(s, "Placeholder", {}, {{"dtype", Attr(dtype)}, {"shape", Attr(shape)}});
}
Output PlaceholderWithDefault(const Scope& s, Output input, const PartialShape& shape) {
  return SingleOp(s, "PlaceholderWithDefault", {{input}}, {{"shape", Attr(shape)}});
}
Output Identity(const Scope& s, Output x) { return SingleOp(s, "Identity", {{x}}); }
Output StopGradient(const Scope& s, Output x) { return SingleOp(s, "StopGradient", {{x}}); }
Operation NoOp(const Scope& s) { return s.AddOp("NoOp", {}); }
Operation Group(const Scope& s, const std::vector<Operation>& deps) {
  return NoOp(s.WithControlDependencies(deps));
}

Output Fill(const Scope& s, Output dims, Output value) {
  return SingleOp(s, "Fill", {{dims}, {value}});
}
Output ZerosLike(const Scope& s, Output x) { return SingleOp(s, "ZerosLike", {{x}}); }
Output OnesLike(const Scope& s, Output x) { return SingleOp(s, "OnesLike", {{x}}); }
Output Shape(const Scope& s, Output x, DataType out_type) {
  return SingleOp(s, "Shape", {{x}}, {{"out_type", Attr(out_type)}});
}
Output Size(const Scope& s, Output x, DataType out_type) {
  return SingleOp(s, "Size", {{x}}, {{"out_type", Attr(out_type)}});
}
Output Rank(const Scope& s, Output x) { return SingleOp(s, "Rank", {{x}}); }
Output Reshape(const Scope& s, Output x, Output shape) {
  return SingleOp(s, "Reshape", {{x}, {shape}});
}
Output Cast(const Scope& s, Output x, DataType dtype) {
  return SingleOp(s, "Cast", {{x}}, {{"DstT", Attr(dtype)}});
}
Output Pack(const Scope& s, const std::vector<Output>& values, int64_t axis) {
  return SingleOp(s, "Pack", {values}, {{"axis", Attr(axis)}});
}
Output ConcatV2(const Scope& s, const std::vector<Output>& values, Output axis) {
  return SingleOp(s, "ConcatV2", {values, {axis}});
}
Output Gather(const Scope& s, Output params, Output indices) {
  return SingleOp(s, "Gather", {{params}, {indices}});
}
Output EmbeddingLookup(const Scope& scope, const std::vector<Output>& params, Output ids,
                       absl::string_view partition_strategy) {
  const Scope s = scope.NewSubScope("embedding_lookup");
  if (params.empty() || (partition_strategy != "mod" && partition_strategy != "div")) {
    s.UpdateStatus(absl::InvalidArgumentError(
        params.empty() ? std::string("embedding_lookup needs at least one params tensor")
                       : absl::StrCat("Unrecognized partition strategy: ", partition_strategy,
                                      " (\"mod\" or \"div\")")));
    return Output();
  }
  if (params.size() == 1) return Gather(s, params[0], ids);
  const DataType dtype = BaseType(ids.dtype());
  // An integer of the ids' type.
  auto num = [&](int64_t v) {
    return dtype == DT_INT32 ? Const<int32_t>(s, static_cast<int32_t>(v)) : Const<int64_t>(s, v);
  };
  const int64_t n = static_cast<int64_t>(params.size());
  Output flat = Reshape(s, ids, Const<int32_t>(s, {-1}));
  Output assignments, new_ids;
  if (partition_strategy == "mod") {
    assignments = FloorMod(s, flat, num(n));
    new_ids = FloorDiv(s, flat, num(n));
  } else {
    // The parts hold consecutive ranges of ids, the first `extras` parts
    // one id more than the others.
    Output total;
    for (const Output& p : params) {
      Output rows =
          Cast(s, GatherV2(s, Shape(s, p), Const<int32_t>(s, 0), Const<int32_t>(s, 0)), dtype);
      total = total.op().valid() ? Add(s, total, rows) : rows;
    }
    Output per = FloorDiv(s, total, num(n));
    Output extras = FloorMod(s, total, num(n));
    Output per_plus_one = Add(s, per, num(1));
    Output beyond = Sub(s, flat, extras);
    assignments = Maximum(s, FloorDiv(s, flat, per_plus_one), FloorDiv(s, beyond, per));
    Output first = Cast(s, Less(s, assignments, extras), dtype);
    new_ids = Add(s, Mul(s, first, FloorMod(s, flat, per_plus_one)),
                  Mul(s, Sub(s, num(1), first), FloorMod(s, beyond, per)));
  }
  Output partitions = Cast(s, assignments, DT_INT32);
  const std::vector<Output> gather_ids = DynamicPartition(s, new_ids, partitions, n);
  Output positions = Range(s, Const<int32_t>(s, 0), Size(s, flat), Const<int32_t>(s, 1));
  const std::vector<Output> indices = DynamicPartition(s, positions, partitions, n);
  std::vector<Output> rows;
  for (int64_t i = 0; i < n; ++i) rows.push_back(Gather(s, params[i], gather_ids[i]));
  Output stitched = DynamicStitch(s, indices, rows);
  Output row_shape = Slice(s, Shape(s, params[0]), Const<int32_t>(s, {1}), Const<int32_t>(s, {-1}));
  return Reshape(s, stitched, ConcatV2(s, {Shape(s, ids), row_shape}, Const<int32_t>(s, 0)));
}
Output GatherV2(const Scope& s, Output params, Output indices, Output axis) {
  return SingleOp(s, "GatherV2", {{params}, {indices}, {axis}});
}
Output Select(const Scope& s, Output condition, Output t, Output e) {
  return SingleOp(s, "Select", {{condition}, {t}, {e}});
}
Output SelectV2(const Scope& s, Output condition, Output t, Output e) {
  return SingleOp(s, "SelectV2", {{condition}, {t}, {e}});
}
Output Where(const Scope& s, Output x) { return SingleOp(s, "Where", {{x}}); }
Output GatherNd(const Scope& s, Output params, Output indices) {
  return SingleOp(s, "GatherNd", {{params}, {indices}});
}
UniqueOutputs Unique(const Scope& s, Output x) {
  Operation op = s.AddOp("Unique", {{x}});
  return {op.output(0), op.output(1)};
}
Output UnsortedSegmentSum(const Scope& s, Output data, Output segment_ids, Output num_segments) {
  return SingleOp(s, "UnsortedSegmentSum", {{data}, {segment_ids}, {num_segments}});
}
Output SparseSegmentSum(const Scope& s, Output data, Output indices, Output segment_ids) {
  return SingleOp(s, "SparseSegmentSum", {{data}, {indices}, {segment_ids}});
}
BroadcastGradientArgsOutputs BroadcastGradientArgs(const Scope& s, Output s0, Output s1) {
  Operation op = s.AddOp("BroadcastGradientArgs", {{s0}, {s1}});
  return {op.output(0), op.output(1)};
}

#define MG_BINARY(NAME) \
  Output NAME(const Scope& s, Output x, Output y) { return SingleOp(s, #NAME, {{x}, {y}}); }
MG_BINARY(Add)
MG_BINARY(AddV2)
MG_BINARY(Sub)
MG_BINARY(Mul)
MG_BINARY(RealDiv)
MG_BINARY(Div)
MG_BINARY(DivNoNan)
MG_BINARY(FloorDiv)
MG_BINARY(FloorMod)
MG_BINARY(Maximum)
MG_BINARY(Minimum)
MG_BINARY(SquaredDifference)
MG_BINARY(Greater)
MG_BINARY(Less)
MG_BINARY(GreaterEqual)
MG_BINARY(LessEqual)
MG_BINARY(Equal)
MG_BINARY(NotEqual)
MG_BINARY(LogicalAnd)
#undef MG_BINARY

#define MG_UNARY(NAME) \
  Output NAME(const Scope& s, Output x) { return SingleOp(s, #NAME, {{x}}); }
MG_UNARY(LogicalNot)
MG_UNARY(Neg)
MG_UNARY(Square)
MG_UNARY(Sqrt)
MG_UNARY(Exp)
MG_UNARY(Log)
MG_UNARY(Reciprocal)
MG_UNARY(Sigmoid)
MG_UNARY(Tanh)
MG_UNARY(Relu)
MG_UNARY(Rsqrt)
MG_UNARY(Log1p)
MG_UNARY(Round)
MG_UNARY(Softplus)
MG_UNARY(Elu)
MG_UNARY(Relu6)
MG_UNARY(Softmax)
MG_UNARY(LogSoftmax)
#undef MG_UNARY

Output AddN(const Scope& s, const std::vector<Output>& inputs) {
  return SingleOp(s, "AddN", {inputs});
}

Output MatMul(const Scope& s, Output a, Output b, bool transpose_a, bool transpose_b) {
  return SingleOp(s, "MatMul", {{a}, {b}},
             {{"transpose_a", Attr(transpose_a)}, {"transpose_b", Attr(transpose_b)}});
}
namespace {
Attrs ConvAttrs(const std::vector<int64_t>& strides, const std::string& padding,
                const Conv2DOptions& options) {
  Attrs a = {{"strides", Attr(strides)},
             {"padding", Attr(padding)},
             {"dilations", Attr(options.dilations)}};
  if (!options.explicit_paddings.empty()) {
    a["explicit_paddings"] = Attr(options.explicit_paddings);
  }
  return a;
}
Attrs PoolAttrs(const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides,
                const std::string& padding) {
  return {{"ksize", Attr(ksize)}, {"strides", Attr(strides)}, {"padding", Attr(padding)}};
}
}  // namespace

Output Conv2D(const Scope& s, Output input, Output filter, const std::vector<int64_t>& strides,
              const std::string& padding, const Conv2DOptions& options) {
  return SingleOp(s, "Conv2D", {{input}, {filter}}, ConvAttrs(strides, padding, options));
}
Output Conv2DBackpropInput(const Scope& s, Output input_sizes, Output filter, Output out_backprop,
                           const std::vector<int64_t>& strides, const std::string& padding,
                           const Conv2DOptions& options) {
  return SingleOp(s, "Conv2DBackpropInput", {{input_sizes}, {filter}, {out_backprop}},
             ConvAttrs(strides, padding, options));
}
Output Conv2DBackpropFilter(const Scope& s, Output input, Output filter_sizes,
                            Output out_backprop, const std::vector<int64_t>& strides,
                            const std::string& padding, const Conv2DOptions& options) {
  return SingleOp(s, "Conv2DBackpropFilter", {{input}, {filter_sizes}, {out_backprop}},
             ConvAttrs(strides, padding, options));
}
Output MaxPool(const Scope& s, Output input, const std::vector<int64_t>& ksize,
               const std::vector<int64_t>& strides, const std::string& padding) {
  return SingleOp(s, "MaxPool", {{input}}, PoolAttrs(ksize, strides, padding));
}
Output AvgPool(const Scope& s, Output input, const std::vector<int64_t>& ksize,
               const std::vector<int64_t>& strides, const std::string& padding) {
  return SingleOp(s, "AvgPool", {{input}}, PoolAttrs(ksize, strides, padding));
}

namespace {
std::vector<Output> All(const Operation& op) {
  std::vector<Output> out;
  for (int i = 0; i < op.num_outputs(); ++i) out.push_back(op.output(i));
  return out;
}
}  // namespace

Output ExpandDims(const Scope& s, Output x, Output axis) {
  return SingleOp(s, "ExpandDims", {{x}, {axis}});
}
Output Squeeze(const Scope& s, Output x, const std::vector<int64_t>& axes) {
  return SingleOp(s, "Squeeze", {{x}}, {{"squeeze_dims", Attr(axes)}});
}
Output Transpose(const Scope& s, Output x, Output perm) {
  return SingleOp(s, "Transpose", {{x}, {perm}});
}
Output InvertPermutation(const Scope& s, Output x) {
  return SingleOp(s, "InvertPermutation", {{x}});
}
Output Slice(const Scope& s, Output x, Output begin, Output size) {
  return SingleOp(s, "Slice", {{x}, {begin}, {size}});
}
Output StridedSlice(const Scope& s, Output x, Output begin, Output end, Output strides,
                    const StridedSliceOptions& o) {
  return SingleOp(s, "StridedSlice", {{x}, {begin}, {end}, {strides}},
             {{"begin_mask", Attr(o.begin_mask)},
              {"end_mask", Attr(o.end_mask)},
              {"ellipsis_mask", Attr(o.ellipsis_mask)},
              {"new_axis_mask", Attr(o.new_axis_mask)},
              {"shrink_axis_mask", Attr(o.shrink_axis_mask)}});
}
Output Tile(const Scope& s, Output x, Output multiples) {
  return SingleOp(s, "Tile", {{x}, {multiples}});
}
Output Pad(const Scope& s, Output x, Output paddings) {
  return SingleOp(s, "Pad", {{x}, {paddings}});
}
Output PadV2(const Scope& s, Output x, Output paddings, Output constant_values) {
  return SingleOp(s, "PadV2", {{x}, {paddings}, {constant_values}});
}
Output ReverseV2(const Scope& s, Output x, Output axis) {
  return SingleOp(s, "ReverseV2", {{x}, {axis}});
}
std::vector<Output> Split(const Scope& s, Output axis, Output value, int64_t num_split) {
  return All(s.AddOp("Split", {{axis}, {value}}, {{"num_split", Attr(num_split)}}));
}
std::vector<Output> SplitV(const Scope& s, Output value, Output size_splits, Output axis,
                           int64_t num_split) {
  return All(s.AddOp("SplitV", {{value}, {size_splits}, {axis}}, {{"num_split", Attr(num_split)}}));
}
std::vector<Output> Unstack(const Scope& s, Output value, int64_t num, int64_t axis) {
  return All(s.AddOp("Unpack", {{value}}, {{"num", Attr(num)}, {"axis", Attr(axis)}}));
}
std::vector<Output> DynamicPartition(const Scope& s, Output data, Output partitions,
                                     int64_t num_partitions) {
  return All(s.AddOp("DynamicPartition", {{data}, {partitions}},
                     {{"num_partitions", Attr(num_partitions)}}));
}
Output DynamicStitch(const Scope& s, const std::vector<Output>& indices,
                     const std::vector<Output>& data) {
  return SingleOp(s, "DynamicStitch", {indices, data});
}
Output Range(const Scope& s, Output start, Output limit, Output delta) {
  return SingleOp(s, "Range", {{start}, {limit}, {delta}});
}
Output OneHot(const Scope& s, Output indices, Output depth, Output on_value, Output off_value,
              int64_t axis) {
  return SingleOp(s, "OneHot", {{indices}, {depth}, {on_value}, {off_value}},
                  {{"axis", Attr(axis)}});
}
Output PreventGradient(const Scope& s, Output x, const std::string& message) {
  return SingleOp(s, "PreventGradient", {{x}}, {{"message", Attr(message)}});
}

Output BiasAdd(const Scope& s, Output value, Output bias) {
  return SingleOp(s, "BiasAdd", {{value}, {bias}});
}
XentOutputs SoftmaxCrossEntropyWithLogits(const Scope& s, Output logits, Output labels) {
  Operation op = s.AddOp("SoftmaxCrossEntropyWithLogits", {{logits}, {labels}});
  return {op.output(0), op.output(1)};
}
XentOutputs SparseSoftmaxCrossEntropyWithLogits(const Scope& s, Output logits, Output labels) {
  Operation op = s.AddOp("SparseSoftmaxCrossEntropyWithLogits", {{logits}, {labels}});
  return {op.output(0), op.output(1)};
}

#define MG_REDUCTION(NAME)                                                  \
  Output NAME(const Scope& s, Output x, Output axes, bool keep_dims) {      \
    return SingleOp(s, #NAME, {{x}, {axes}}, {{"keep_dims", Attr(keep_dims)}});     \
  }
MG_REDUCTION(Sum)
MG_REDUCTION(Mean)
MG_REDUCTION(Max)
MG_REDUCTION(Min)
MG_REDUCTION(Prod)
#undef MG_REDUCTION

Output ArgMax(const Scope& s, Output x, Output dimension, DataType out_type) {
  return SingleOp(s, "ArgMax", {{x}, {dimension}}, {{"output_type", Attr(out_type)}});
}
Output ArgMin(const Scope& s, Output x, Output dimension, DataType out_type) {
  return SingleOp(s, "ArgMin", {{x}, {dimension}}, {{"output_type", Attr(out_type)}});
}
Output All(const Scope& s, Output x, Output axes, bool keep_dims) {
  return SingleOp(s, "All", {{x}, {axes}}, {{"keep_dims", Attr(keep_dims)}});
}
Output Any(const Scope& s, Output x, Output axes, bool keep_dims) {
  return SingleOp(s, "Any", {{x}, {axes}}, {{"keep_dims", Attr(keep_dims)}});
}
Output LeakyRelu(const Scope& s, Output x, float alpha) {
  return SingleOp(s, "LeakyRelu", {{x}}, {{"alpha", Attr(alpha)}});
}

#define MG_RANDOM(NAME)                                                              \
  Output NAME(const Scope& s, Output shape, DataType dtype, int64_t seed, int64_t seed2) { \
    return SingleOp(s, #NAME, {{shape}},                                                  \
               {{"dtype", Attr(dtype)}, {"seed", Attr(seed)}, {"seed2", Attr(seed2)}});       \
  }
MG_RANDOM(RandomUniform)
MG_RANDOM(RandomStandardNormal)
MG_RANDOM(TruncatedNormal)
#undef MG_RANDOM

FusedBatchNormOutputs FusedBatchNormV3(const Scope& s, Output x, Output scale, Output offset,
                                       Output mean, Output variance,
                                       const FusedBatchNormOptions& options) {
  Operation op = s.AddOp("FusedBatchNormV3", {{x}, {scale}, {offset}, {mean}, {variance}},
                         {{"epsilon", Attr(options.epsilon)},
                          {"is_training", Attr(options.is_training)},
                          {"exponential_avg_factor", Attr(options.exponential_avg_factor)},
                          {"data_format", Attr(options.data_format)}});
  return {op.output(0), op.output(1), op.output(2)};
}
Output LRN(const Scope& s, Output input, int64_t depth_radius, float bias, float alpha,
           float beta) {
  return SingleOp(s, "LRN", {{input}},
             {{"depth_radius", Attr(depth_radius)},
              {"bias", Attr(bias)},
              {"alpha", Attr(alpha)},
              {"beta", Attr(beta)}});
}
Output Dropout(const Scope& s, Output x, float rate, int64_t seed, int64_t seed2) {
  const Scope d = s.NewSubScope("dropout");
  const DataType dt = BaseType(x.dtype());
  Tensor r(dt, TensorShape()), scale(dt, TensorShape());
  if (dt == DT_DOUBLE) {
    *r.data<double>() = rate;
    *scale.data<double>() = 1.0 / (1.0 - rate);
  } else {
    *r.data<float>() = rate;
    *scale.data<float>() = 1.0f / (1.0f - rate);
  }
  Output random = RandomUniform(d, Shape(d, x), dt, seed, seed2);
  Output keep = Cast(d, GreaterEqual(d, random, Const(d, r)), dt);
  return Mul(d, Mul(d, x, Const(d, scale)), keep);
}
Output BatchMatMulV2(const Scope& s, Output x, Output y, bool adj_x, bool adj_y) {
  return SingleOp(s, "BatchMatMulV2", {{x}, {y}}, {{"adj_x", Attr(adj_x)}, {"adj_y", Attr(adj_y)}});
}
Output BroadcastTo(const Scope& s, Output input, Output shape) {
  return SingleOp(s, "BroadcastTo", {{input}, {shape}});
}
Output Cumsum(const Scope& s, Output x, Output axis, bool exclusive, bool reverse) {
  return SingleOp(s, "Cumsum", {{x}, {axis}},
                  {{"exclusive", Attr(exclusive)}, {"reverse", Attr(reverse)}});
}
Output InTopKV2(const Scope& s, Output predictions, Output targets, Output k) {
  return SingleOp(s, "InTopKV2", {{predictions}, {targets}, {k}});
}
Operation Assert(const Scope& s, Output condition, const std::vector<Output>& data,
                 int64_t summarize) {
  return s.AddOp("Assert", {{condition}, data}, {{"summarize", Attr(summarize)}});
}

SwitchOutputs Switch(const Scope& s, Output data, Output pred) {
  Operation op = s.AddOp("Switch", {{data}, {pred}});
  return {op.output(0), op.output(1)};
}
SwitchOutputs RefSwitch(const Scope& s, Output ref, Output pred) {
  Operation op = s.AddOp("RefSwitch", {{ref}, {pred}});
  return {op.output(0), op.output(1)};
}
Output Merge(const Scope& s, const std::vector<Output>& inputs) {
  return SingleOp(s, "Merge", {inputs});
}

Output Enter(const Scope& s, Output data, const std::string& frame_name, bool is_constant,
             int parallel_iterations) {
  return SingleOp(s, IsRefType(data.dtype()) ? "RefEnter" : "Enter", {{data}},
             {{"frame_name", Attr(frame_name)},
              {"is_constant", Attr(is_constant)},
              {"parallel_iterations", Attr(static_cast<int64_t>(parallel_iterations))}});
}
Output Exit(const Scope& s, Output data) {
  return SingleOp(s, IsRefType(data.dtype()) ? "RefExit" : "Exit", {{data}});
}
Output NextIteration(const Scope& s, Output data) {
  return SingleOp(s, IsRefType(data.dtype()) ? "RefNextIteration" : "NextIteration", {{data}});
}
Output LoopCond(const Scope& s, Output pred) { return SingleOp(s, "LoopCond", {{pred}}); }

std::vector<Output> Cond(const Scope& s, Output pred, const std::vector<Output>& inputs,
                         const CondBranchFn& then_fn, const CondBranchFn& else_fn) {
  if (!s.ok()) return {};
  if (BaseType(pred.dtype()) != DT_BOOL) {
    s.UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
        "Cond: the predicate must be a bool, got ", DataTypeString(pred.dtype()))));
    return {};
  }
  const Scope cond = s.NewSubScope("cond");
  SwitchOutputs pivots = Switch(cond.WithOpName("Switch"), pred, pred);
  Output switch_t = Identity(cond.WithOpName("switch_t"), pivots.output_true);
  Output switch_f = Identity(cond.WithOpName("switch_f"), pivots.output_false);
  Output pred_id = Identity(cond.WithOpName("pred_id"), pred);
  std::vector<Output> then_in, else_in;
  for (const Output& in : inputs) {
    SwitchOutputs sw = Switch(cond.WithOpName("Switch"), in, pred_id);
    then_in.push_back(sw.output_true);
    else_in.push_back(sw.output_false);
  }
  // Each branch's ops wait on its pivot, so they are dead when it is not
  // taken; its results pass an Identity that does too (a result computed
  // outside the branch would otherwise be live either way).
  auto branch = [&](const CondBranchFn& fn, Output pivot, const std::vector<Output>& in) {
    const Scope b = cond.WithNoControlDependencies().WithControlDependencies({pivot.op()});
    std::vector<Output> out = fn(b, in);
    for (Output& o : out) o = Identity(b, o);
    return out;
  };
  std::vector<Output> then_out = branch(then_fn, switch_t, then_in);
  std::vector<Output> else_out = branch(else_fn, switch_f, else_in);
  if (!cond.ok()) return {};
  if (then_out.size() != else_out.size()) {
    s.UpdateStatus(absl::InvalidArgumentError(
        absl::StrCat("Cond: the branches return ", then_out.size(), " and ", else_out.size(),
                     " values")));
    return {};
  }
  std::vector<Output> results;
  for (size_t i = 0; i < then_out.size(); ++i) {
    if (BaseType(then_out[i].dtype()) != BaseType(else_out[i].dtype())) {
      s.UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
          "Cond: result ", i, " is ", DataTypeString(then_out[i].dtype()), " in one branch and ",
          DataTypeString(else_out[i].dtype()), " in the other")));
      return {};
    }
    // TensorFlow's order: the false branch's value first.
    results.push_back(
        Merge(cond.WithNoControlDependencies().WithOpName("Merge"), {else_out[i], then_out[i]}));
  }
  return results;
}

Output LoopInvariant(const Scope& loop_scope, Output outer) {
  if (loop_scope.loop_frame().empty()) {
    loop_scope.UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
        "LoopInvariant('", outer.name(),
        "'): the scope is not inside a WhileLoop's cond or body")));
    return Output();
  }
  return Enter(loop_scope.WithNoControlDependencies().WithOpName("Enter"), outer,
               loop_scope.loop_frame(), true);
}

std::vector<Output> WhileLoop(const Scope& s, const std::vector<Output>& inputs,
                              const WhileCondFn& cond, const WhileBodyFn& body,
                              int parallel_iterations) {
  if (!s.ok()) return {};
  if (inputs.empty()) {
    s.UpdateStatus(absl::InvalidArgumentError("WhileLoop needs at least one loop variable"));
    return {};
  }
  // The Enters run where the loop is built (with the caller's control
  // dependencies); everything else runs in the loop's frame and depends only
  // on what is inside it.
  const Scope outer = s.NewSubScope("while");
  const std::string frame = absl::StrCat(outer.prefix(), "/while_context");
  const Scope loop = outer.WithNoControlDependencies().WithLoopFrame(frame);
  const size_t n = inputs.size();
  std::vector<Output> merges;
  for (const Output& in : inputs) {
    Output enter = Enter(outer.WithOpName("Enter"), in, frame, false, parallel_iterations);
    // The second input becomes the back edge once the NextIteration exists.
    merges.push_back(Merge(loop.WithOpName("Merge"), {enter, enter}));
  }
  if (!loop.ok()) return {};
  Output pred = cond(loop.WithControlDependencies({merges[0].op()}), merges);
  if (!loop.ok()) return {};
  if (BaseType(pred.dtype()) != DT_BOOL) {
    s.UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
        "WhileLoop: cond must return a bool, got ", DataTypeString(pred.dtype()))));
    return {};
  }
  Output loop_cond = LoopCond(loop.WithOpName("LoopCond"), pred);
  std::vector<Output> vars, exits;
  for (size_t i = 0; i < n; ++i) {
    SwitchOutputs sw = Switch(loop.WithOpName("Switch"), merges[i], loop_cond);
    vars.push_back(Identity(loop.WithOpName("Identity"), sw.output_true));
    exits.push_back(Exit(loop.WithOpName("Exit"), sw.output_false));
  }
  std::vector<Output> next = body(loop.WithControlDependencies({vars[0].op()}), vars);
  if (!loop.ok()) return {};
  if (next.size() != n) {
    s.UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
        "WhileLoop: body returned ", next.size(), " values for ", n, " loop variables")));
    return {};
  }
  for (size_t i = 0; i < n; ++i) {
    Output back = NextIteration(loop.WithOpName("NextIteration"), next[i]);
    loop.UpdateInput(merges[i].op(), 1, back);
  }
  if (!loop.ok()) return {};
  return exits;
}

Output VariableV2(const Scope& s, const PartialShape& shape, DataType dtype,
                  const std::string& container, const std::string& shared_name) {
  return SingleOp(s, "VariableV2", {},
             {{"shape", Attr(shape)},
              {"dtype", Attr(dtype)},
              {"container", Attr(container)},
              {"shared_name", Attr(shared_name)}});
}
Output Assign(const Scope& s, Output ref, Output value, bool validate_shape, bool use_locking) {
  return SingleOp(s, "Assign", {{ref}, {value}},
             {{"validate_shape", Attr(validate_shape)}, {"use_locking", Attr(use_locking)}});
}
Output AssignAdd(const Scope& s, Output ref, Output value, bool use_locking) {
  return SingleOp(s, "AssignAdd", {{ref}, {value}}, {{"use_locking", Attr(use_locking)}});
}
Output AssignSub(const Scope& s, Output ref, Output value, bool use_locking) {
  return SingleOp(s, "AssignSub", {{ref}, {value}}, {{"use_locking", Attr(use_locking)}});
}
Output IsVariableInitialized(const Scope& s, Output ref) {
  return SingleOp(s, "IsVariableInitialized", {{ref}});
}

Output ReadVariableOp(const Scope& s, Output resource, DataType dtype) {
  return SingleOp(s, "ReadVariableOp", {{resource}}, {{"dtype", Attr(dtype)}});
}
Operation AssignVariableOp(const Scope& s, Output resource, Output value) {
  return s.AddOp("AssignVariableOp", {{resource}, {value}},
                 {{"dtype", Attr(BaseType(value.dtype()))}});
}
Operation AssignAddVariableOp(const Scope& s, Output resource, Output value) {
  return s.AddOp("AssignAddVariableOp", {{resource}, {value}},
                 {{"dtype", Attr(BaseType(value.dtype()))}});
}
Operation AssignSubVariableOp(const Scope& s, Output resource, Output value) {
  return s.AddOp("AssignSubVariableOp", {{resource}, {value}},
                 {{"dtype", Attr(BaseType(value.dtype()))}});
}
Output VarIsInitializedOp(const Scope& s, Output resource) {
  return SingleOp(s, "VarIsInitializedOp", {{resource}});
}

Output ApplyGradientDescent(const Scope& s, Output var, Output alpha, Output delta) {
  return SingleOp(s, "ApplyGradientDescent", {{var}, {alpha}, {delta}});
}
Output ApplyMomentum(const Scope& s, Output var, Output accum, Output lr, Output grad,
                     Output momentum, bool use_nesterov) {
  return SingleOp(s, "ApplyMomentum", {{var}, {accum}, {lr}, {grad}, {momentum}},
             {{"use_nesterov", Attr(use_nesterov)}});
}
Output ApplyAdam(const Scope& s, Output var, Output m, Output v, Output beta1_power,
                 Output beta2_power, Output lr, Output beta1, Output beta2, Output epsilon,
                 Output grad, bool use_nesterov) {
  return SingleOp(s, "ApplyAdam",
             {{var}, {m}, {v}, {beta1_power}, {beta2_power}, {lr}, {beta1}, {beta2}, {epsilon},
              {grad}},
             {{"use_nesterov", Attr(use_nesterov)}});
}

Output ApplyRMSProp(const Scope& s, Output var, Output ms, Output mom, Output lr, Output rho,
                    Output momentum, Output epsilon, Output grad) {
  return SingleOp(s, "ApplyRMSProp",
                  {{var}, {ms}, {mom}, {lr}, {rho}, {momentum}, {epsilon}, {grad}});
}
Output ApplyAdagrad(const Scope& s, Output var, Output accum, Output lr, Output grad) {
  return SingleOp(s, "ApplyAdagrad", {{var}, {accum}, {lr}, {grad}});
}

}  // namespace ops
}  // namespace minigraph
