// Op functions of the graph-building API: each adds one node through a
// Scope and returns its output(s). Type attrs come from the inputs.
//
//   Output w = ops::Const(s, Tensor(...));
//   Output y = ops::Relu(s, ops::BiasAdd(s, ops::MatMul(s, x, w), b));
//   Output loss = ops::Mean(s, ops::SparseSoftmaxCrossEntropyWithLogits(s, y, labels).loss,
//                           ops::Const<int32_t>(s, {0}));
//
// Like Scope's, not thread-safe: build a graph on one thread.

#ifndef MINIGRAPH_RUNTIME_CC_OPS_H_
#define MINIGRAPH_RUNTIME_CC_OPS_H_

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "runtime/cc/scope.h"

namespace minigraph {
namespace ops {

// Constants.
Output Const(const Scope& s, const Tensor& value);
template <typename T>
Output Const(const Scope& s, T scalar) {
  return Const(s, Tensor::Scalar<T>(scalar));
}
// A 1-D constant.
template <typename T>
Output Const(const Scope& s, std::initializer_list<T> values) {
  return Const(s, Tensor::Vector<T>(values));
}
// A constant of `shape` holding `values` (one value fills the whole shape).
template <typename T>
Output Const(const Scope& s, std::initializer_list<T> values, const TensorShape& shape) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  T* p = t.data<T>();
  for (int64_t i = 0; i < shape.num_elements(); ++i) {
    p[i] = values.size() == 1 ? *values.begin() : values.begin()[i];
  }
  return Const(s, t);
}

Output Placeholder(const Scope& s, DataType dtype, const PartialShape& shape = PartialShape());
Output PlaceholderWithDefault(const Scope& s, Output input, const PartialShape& shape);
Output Identity(const Scope& s, Output x);
Output StopGradient(const Scope& s, Output x);
Operation NoOp(const Scope& s);
// A NoOp that runs after every op of `deps` (TensorFlow's tf.group).
Operation Group(const Scope& s, const std::vector<Operation>& deps);

Output Fill(const Scope& s, Output dims, Output value);
Output ZerosLike(const Scope& s, Output x);
Output OnesLike(const Scope& s, Output x);
Output Shape(const Scope& s, Output x, DataType out_type = DT_INT32);
Output Size(const Scope& s, Output x, DataType out_type = DT_INT32);
Output Rank(const Scope& s, Output x);
Output Reshape(const Scope& s, Output x, Output shape);
Output Cast(const Scope& s, Output x, DataType dtype);
Output Pack(const Scope& s, const std::vector<Output>& values, int64_t axis = 0);
Output ConcatV2(const Scope& s, const std::vector<Output>& values, Output axis);
Output ExpandDims(const Scope& s, Output x, Output axis);
// Drops the dims in `axes` (each must be 1), or every dim of size 1.
Output Squeeze(const Scope& s, Output x, const std::vector<int64_t>& axes = {});
Output Transpose(const Scope& s, Output x, Output perm);
Output InvertPermutation(const Scope& s, Output x);
// x[begin : begin + size] per dim; a size of -1 takes the rest.
Output Slice(const Scope& s, Output x, Output begin, Output size);
// Python's x[...] (tf.strided_slice): bit i of a mask applies to index i.
struct StridedSliceOptions {
  int64_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0,
          shrink_axis_mask = 0;
};
Output StridedSlice(const Scope& s, Output x, Output begin, Output end, Output strides,
                    const StridedSliceOptions& options = {});
Output Tile(const Scope& s, Output x, Output multiples);
// `paddings`: [rank, 2] (before, after) per dim; PadV2 pads with a scalar.
Output Pad(const Scope& s, Output x, Output paddings);
Output PadV2(const Scope& s, Output x, Output paddings, Output constant_values);
Output ReverseV2(const Scope& s, Output x, Output axis);
std::vector<Output> Split(const Scope& s, Output axis, Output value, int64_t num_split);
std::vector<Output> SplitV(const Scope& s, Output value, Output size_splits, Output axis,
                           int64_t num_split);
// tf.unstack (the op is Unpack).
std::vector<Output> Unstack(const Scope& s, Output value, int64_t num, int64_t axis = 0);
// TensorFlow's dynamic_partition and dynamic_stitch.
std::vector<Output> DynamicPartition(const Scope& s, Output data, Output partitions,
                                     int64_t num_partitions);
Output DynamicStitch(const Scope& s, const std::vector<Output>& indices,
                     const std::vector<Output>& data);
Output Range(const Scope& s, Output start, Output limit, Output delta);
Output OneHot(const Scope& s, Output indices, Output depth, Output on_value, Output off_value,
              int64_t axis = -1);
// Passes `x` through; asking for its gradient fails with `message`.
Output PreventGradient(const Scope& s, Output x, const std::string& message = "");
Output Gather(const Scope& s, Output params, Output indices);
// TensorFlow's embedding_lookup: the rows of `params`, one tensor or the
// parts of a partitioned one (PartitionedVariable's part values), for each
// of `ids` (int32 or int64); shape ids.shape + params[0].shape[1:]. With
// several parts, id i is in part i % n at row i / n ("mod", TensorFlow's
// default), or in the parts taken as consecutive ranges ("div"), through
// DynamicPartition, Gather and DynamicStitch under "embedding_lookup".
Output EmbeddingLookup(const Scope& s, const std::vector<Output>& params, Output ids,
                       absl::string_view partition_strategy = "mod");
Output GatherV2(const Scope& s, Output params, Output indices, Output axis);
Output Select(const Scope& s, Output condition, Output t, Output e);
// Select with condition, t and e broadcast together (numpy's where).
Output SelectV2(const Scope& s, Output condition, Output t, Output e);
Output Where(const Scope& s, Output x);
// params[indices[i..., :]]: index tuples into params's leading dims.
Output GatherNd(const Scope& s, Output params, Output indices);
struct UniqueOutputs {
  Output y, idx;
};
UniqueOutputs Unique(const Scope& s, Output x);
// Sums of data's rows by segment id (negative ids dropped).
Output UnsortedSegmentSum(const Scope& s, Output data, Output segment_ids, Output num_segments);
// output[segment_ids[i]] += data[indices[i]], segment_ids sorted.
Output SparseSegmentSum(const Scope& s, Output data, Output indices, Output segment_ids);
struct BroadcastGradientArgsOutputs {
  Output r0, r1;
};
BroadcastGradientArgsOutputs BroadcastGradientArgs(const Scope& s, Output s0, Output s1);

// Element-wise, with broadcasting for binary ops.
Output Add(const Scope& s, Output x, Output y);
Output AddV2(const Scope& s, Output x, Output y);
Output Sub(const Scope& s, Output x, Output y);
Output Mul(const Scope& s, Output x, Output y);
Output RealDiv(const Scope& s, Output x, Output y);
// Div truncates integers; FloorDiv and FloorMod round toward -inf (the
// remainder takes the divisor's sign); DivNoNan gives 0 where y is 0.
Output Div(const Scope& s, Output x, Output y);
Output DivNoNan(const Scope& s, Output x, Output y);
Output FloorDiv(const Scope& s, Output x, Output y);
Output FloorMod(const Scope& s, Output x, Output y);
Output Maximum(const Scope& s, Output x, Output y);
Output Minimum(const Scope& s, Output x, Output y);
Output SquaredDifference(const Scope& s, Output x, Output y);
Output Greater(const Scope& s, Output x, Output y);
Output Less(const Scope& s, Output x, Output y);
Output GreaterEqual(const Scope& s, Output x, Output y);
Output LessEqual(const Scope& s, Output x, Output y);
Output Equal(const Scope& s, Output x, Output y);
Output NotEqual(const Scope& s, Output x, Output y);
Output LogicalAnd(const Scope& s, Output x, Output y);
Output LogicalNot(const Scope& s, Output x);
Output Neg(const Scope& s, Output x);
Output Square(const Scope& s, Output x);
Output Sqrt(const Scope& s, Output x);
Output Exp(const Scope& s, Output x);
Output Log(const Scope& s, Output x);
Output Reciprocal(const Scope& s, Output x);
Output Sigmoid(const Scope& s, Output x);
Output Tanh(const Scope& s, Output x);
Output Relu(const Scope& s, Output x);
Output Rsqrt(const Scope& s, Output x);
Output Log1p(const Scope& s, Output x);
// Half to even, as TensorFlow's.
Output Round(const Scope& s, Output x);
Output Softplus(const Scope& s, Output x);
Output Elu(const Scope& s, Output x);
Output Relu6(const Scope& s, Output x);
Output LeakyRelu(const Scope& s, Output x, float alpha = 0.2f);
Output AddN(const Scope& s, const std::vector<Output>& inputs);

Output MatMul(const Scope& s, Output a, Output b, bool transpose_a = false,
              bool transpose_b = false);
Output BiasAdd(const Scope& s, Output value, Output bias);
Output Softmax(const Scope& s, Output logits);
Output LogSoftmax(const Scope& s, Output logits);
struct XentOutputs {
  Output loss, backprop;
};
XentOutputs SoftmaxCrossEntropyWithLogits(const Scope& s, Output logits, Output labels);
XentOutputs SparseSoftmaxCrossEntropyWithLogits(const Scope& s, Output logits, Output labels);

// Convolutions and pools over NHWC images (TensorFlow's tf.nn.conv2d,
// max_pool, avg_pool): `strides` and `ksize` have 4 elements, {1, rows,
// cols, 1}; `padding` is "SAME" or "VALID" (a convolution also takes
// "EXPLICIT" with Conv2DOptions::explicit_paddings, 8 values). The filter is
// [rows, cols, in_depth, out_depth].
struct Conv2DOptions {
  std::vector<int64_t> dilations = {1, 1, 1, 1};
  std::vector<int64_t> explicit_paddings = {};
};
Output Conv2D(const Scope& s, Output input, Output filter, const std::vector<int64_t>& strides,
              const std::string& padding, const Conv2DOptions& options = {});
// The gradients of Conv2D with respect to its input (shaped `input_sizes`,
// an int32 vector) and its filter (shaped `filter_sizes`).
Output Conv2DBackpropInput(const Scope& s, Output input_sizes, Output filter, Output out_backprop,
                           const std::vector<int64_t>& strides, const std::string& padding,
                           const Conv2DOptions& options = {});
Output Conv2DBackpropFilter(const Scope& s, Output input, Output filter_sizes,
                            Output out_backprop, const std::vector<int64_t>& strides,
                            const std::string& padding, const Conv2DOptions& options = {});
Output MaxPool(const Scope& s, Output input, const std::vector<int64_t>& ksize,
               const std::vector<int64_t>& strides, const std::string& padding);
Output AvgPool(const Scope& s, Output input, const std::vector<int64_t>& ksize,
               const std::vector<int64_t>& strides, const std::string& padding);

// Batch normalization (tf.compat.v1.nn.fused_batch_norm, NHWC): in training
// y normalizes x by its batch statistics and batch_mean / batch_variance
// are those (the variance unbiased) or, with exponential_avg_factor < 1,
// running averages with `mean` and `variance`; in inference y uses `mean`
// and `variance`.
struct FusedBatchNormOptions {
  float epsilon = 0.001f;
  bool is_training = true;
  float exponential_avg_factor = 1.0f;
  std::string data_format = "NHWC";
};
struct FusedBatchNormOutputs {
  Output y, batch_mean, batch_variance;
};
FusedBatchNormOutputs FusedBatchNormV3(const Scope& s, Output x, Output scale, Output offset,
                                       Output mean, Output variance,
                                       const FusedBatchNormOptions& options = {});
// Local response normalization over the depth of NHWC data.
Output LRN(const Scope& s, Output input, int64_t depth_radius = 5, float bias = 1.0f,
           float alpha = 1.0f, float beta = 0.5f);
// TensorFlow 2's tf.nn.dropout: each element kept with probability 1 - rate
// and scaled by 1 / (1 - rate), else 0 (RandomUniform, GreaterEqual, Cast,
// Mul: differentiable as TensorFlow's).
Output Dropout(const Scope& s, Output x, float rate, int64_t seed = 0, int64_t seed2 = 0);
// Batched matrix products, batch dimensions broadcast; adj_* transposes.
Output BatchMatMulV2(const Scope& s, Output x, Output y, bool adj_x = false, bool adj_y = false);
Output BroadcastTo(const Scope& s, Output input, Output shape);
Output Cumsum(const Scope& s, Output x, Output axis, bool exclusive = false, bool reverse = false);
// Whether each target is in its row's k largest predictions.
Output InTopKV2(const Scope& s, Output predictions, Output targets, Output k);
// Fails the step with "assertion failed: [data...]" when `condition` is
// false.
Operation Assert(const Scope& s, Output condition, const std::vector<Output>& data,
                 int64_t summarize = 3);

// Reductions over `axes` (an int32/int64 scalar or vector).
Output Sum(const Scope& s, Output x, Output axes, bool keep_dims = false);
Output Mean(const Scope& s, Output x, Output axes, bool keep_dims = false);
Output Max(const Scope& s, Output x, Output axes, bool keep_dims = false);
Output Min(const Scope& s, Output x, Output axes, bool keep_dims = false);
Output Prod(const Scope& s, Output x, Output axes, bool keep_dims = false);
Output ArgMax(const Scope& s, Output x, Output dimension, DataType out_type = DT_INT64);
Output ArgMin(const Scope& s, Output x, Output dimension, DataType out_type = DT_INT64);
// Logical and / or of bools over `axes`.
Output All(const Scope& s, Output x, Output axes, bool keep_dims = false);
Output Any(const Scope& s, Output x, Output axes, bool keep_dims = false);

Output RandomUniform(const Scope& s, Output shape, DataType dtype, int64_t seed = 0,
                     int64_t seed2 = 0);
Output RandomStandardNormal(const Scope& s, Output shape, DataType dtype, int64_t seed = 0,
                            int64_t seed2 = 0);
Output TruncatedNormal(const Scope& s, Output shape, DataType dtype, int64_t seed = 0,
                       int64_t seed2 = 0);

// Control flow (TensorFlow's cond): Switch forwards `data` to output 1 when
// `pred` is true, else to output 0; the other output is dead. RefSwitch does
// the same for a variable reference without reading it. Merge forwards the
// first live input (output 0) and its index (output 1).
struct SwitchOutputs {
  Output output_false, output_true;
};
SwitchOutputs Switch(const Scope& s, Output data, Output pred);
SwitchOutputs RefSwitch(const Scope& s, Output ref, Output pred);
Output Merge(const Scope& s, const std::vector<Output>& inputs);

// State. `ref` inputs are VariableV2 outputs.
Output VariableV2(const Scope& s, const PartialShape& shape, DataType dtype,
                  const std::string& container = "", const std::string& shared_name = "");
Output Assign(const Scope& s, Output ref, Output value, bool validate_shape = true,
              bool use_locking = true);
Output AssignAdd(const Scope& s, Output ref, Output value, bool use_locking = false);
Output AssignSub(const Scope& s, Output ref, Output value, bool use_locking = false);
Output IsVariableInitialized(const Scope& s, Output ref);

// While-loop primitives (see WhileLoop, which builds them for you).
Output Enter(const Scope& s, Output data, const std::string& frame_name, bool is_constant = false,
             int parallel_iterations = 10);
Output Exit(const Scope& s, Output data);
Output NextIteration(const Scope& s, Output data);
Output LoopCond(const Scope& s, Output pred);

// TensorFlow's while_loop: starting from `inputs`, runs `body` while `cond`
// holds and returns the loop variables' final values (its Exit nodes).
// `cond` and `body` get a scope and the current loop variables and build
// their ops through that scope: ops built through it wait on the loop
// variables, which puts constants in the loop's frame (as TensorFlow's
// pivot does). A tensor from outside the loop comes in as a loop variable,
// or through LoopInvariant. Nodes are named as in TensorFlow ("while/Enter",
// "while/Merge", "while/LoopCond", "while/Switch", "while/Identity",
// "while/NextIteration", "while/Exit", ...). Iterations overlap up to
// `parallel_iterations`. On a build error the scope's status is set and the
// result is empty.
using WhileCondFn = std::function<Output(const Scope&, const std::vector<Output>&)>;
using WhileBodyFn =
    std::function<std::vector<Output>(const Scope&, const std::vector<Output>&)>;
std::vector<Output> WhileLoop(const Scope& s, const std::vector<Output>& inputs,
                              const WhileCondFn& cond, const WhileBodyFn& body,
                              int parallel_iterations = 10);
// TensorFlow's cond: `then_fn`'s values where the scalar bool `pred` holds,
// else `else_fn`'s; only the branch taken runs (the other is dead, see
// runtime/executor.h). Each branch gets `inputs` (passed through a Switch)
// and builds through the scope it is given, which pins constants to the
// branch (TensorFlow's pivots "cond/switch_t" and "cond/switch_f"). Both
// branches must return as many values, of the same dtypes; the results are
// "cond/Merge", "cond/Merge_1", ... Works inside while loops.
using CondBranchFn =
    std::function<std::vector<Output>(const Scope&, const std::vector<Output>&)>;
std::vector<Output> Cond(const Scope& s, Output pred, const std::vector<Output>& inputs,
                         const CondBranchFn& then_fn, const CondBranchFn& else_fn);

// Inside `cond` or `body`: `outer`, a tensor (or variable) of the frame the
// loop is built in, made available to every iteration (a constant Enter).
// `loop_scope` is the scope cond or body was given, or one derived from it;
// anywhere else the scope's status becomes InvalidArgument.
Output LoopInvariant(const Scope& loop_scope, Output outer);

// Resource variables: `resource` is a VarHandleOp's output.
Output ReadVariableOp(const Scope& s, Output resource, DataType dtype);
Operation AssignVariableOp(const Scope& s, Output resource, Output value);
Operation AssignAddVariableOp(const Scope& s, Output resource, Output value);
Operation AssignSubVariableOp(const Scope& s, Output resource, Output value);
Output VarIsInitializedOp(const Scope& s, Output resource);

Output ApplyGradientDescent(const Scope& s, Output var, Output alpha, Output delta);
Output ApplyMomentum(const Scope& s, Output var, Output accum, Output lr, Output grad,
                     Output momentum, bool use_nesterov = false);
Output ApplyAdam(const Scope& s, Output var, Output m, Output v, Output beta1_power,
                 Output beta2_power, Output lr, Output beta1, Output beta2, Output epsilon,
                 Output grad, bool use_nesterov = false);
Output ApplyRMSProp(const Scope& s, Output var, Output ms, Output mom, Output lr, Output rho,
                    Output momentum, Output epsilon, Output grad);
Output ApplyAdagrad(const Scope& s, Output var, Output accum, Output lr, Output grad);

}  // namespace ops
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_CC_OPS_H_
