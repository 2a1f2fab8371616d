// Checkpoint ops: SaveV2, RestoreV2 and MergeV2Checkpoints, and the V1-era
// Restore, RestoreSlice, Save and SaveSlices (TensorFlow's signatures, so
// graphs from TensorFlow's Saver import).
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/tensor_slice.h"
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace ops_internal {
namespace {

absl::Status SaveShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(PartialShape prefix, c->WithRank(0, 0));
  (void)prefix;
  const int n = c->num_inputs() - 3;
  for (int i : {1, 2}) {
    MG_ASSIGN_OR_RETURN(PartialShape s, c->WithRank(i, 1));
    if (s.dim(0) >= 0 && s.dim(0) != n) {
      return c->Error(absl::StrCat("input ", i, " has ", s.dim(0), " names, but ", n,
                                   " tensors are saved"));
    }
  }
  return absl::OkStatus();
}

// The shape a restore outputs for the shape_and_slice entry `spec`: the
// slice's, or unknown for "" (the whole tensor, of the checkpoint's shape).
absl::StatusOr<PartialShape> RestoredShape(const InferenceContext* c, absl::string_view spec) {
  absl::StatusOr<std::optional<ShapeAndSlice>> parsed = ParseShapeAndSlice(spec);
  if (!parsed.ok()) return c->Error(parsed.status().message());
  if (!parsed->has_value()) return PartialShape();
  return PartialShape::FromShape((*parsed)->slice.SliceShape((*parsed)->full));
}

absl::Status RestoreShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(PartialShape prefix, c->WithRank(0, 0));
  (void)prefix;
  for (int i : {1, 2}) {
    MG_ASSIGN_OR_RETURN(PartialShape s, c->WithRank(i, 1));
    if (s.dim(0) >= 0 && s.dim(0) != c->num_outputs()) {
      return c->Error(absl::StrCat("input ", i, " has ", s.dim(0), " names, but ",
                                   c->num_outputs(), " tensors are restored"));
    }
  }
  // With constant shape_and_slices (as every Saver builds them), each
  // output has its entry's shape, as in TensorFlow.
  const Tensor* specs = c->input_tensor(2);
  if (specs == nullptr || specs->dtype() != DT_STRING || specs->NumElements() != c->num_outputs()) {
    return shape_fn::Unknown(c);
  }
  for (int i = 0; i < c->num_outputs(); ++i) {
    MG_ASSIGN_OR_RETURN(PartialShape shape, RestoredShape(c, specs->data<std::string>()[i]));
    c->set_output(i, std::move(shape));
  }
  return absl::OkStatus();
}

// Restore and RestoreSlice: one tensor, of a shape only the checkpoint
// knows, unless RestoreSlice's shape_and_slice is a constant naming a slice.
absl::Status RestoreOneShape(InferenceContext* c) {
  for (int i = 0; i < c->num_inputs(); ++i) {
    MG_ASSIGN_OR_RETURN(PartialShape s, c->WithRank(i, 0));
    (void)s;
  }
  const Tensor* spec = c->num_inputs() > 2 ? c->input_tensor(2) : nullptr;
  if (spec == nullptr || spec->dtype() != DT_STRING || spec->NumElements() != 1) {
    return shape_fn::Unknown(c);
  }
  MG_ASSIGN_OR_RETURN(PartialShape shape, RestoredShape(c, spec->data<std::string>()[0]));
  c->set_output(0, std::move(shape));
  return absl::OkStatus();
}

}  // namespace

void RegisterIoOps(OpRegistry* r) {
  // The ops of tf.train.Saver(write_version=V1) graphs. Minigraph reads V1
  // checkpoints and writes only V2, so Save and SaveSlices fail when run,
  // saying so (save_restore_kernels.cc).
  MG_REGISTER_OP(r, OpDefBuilder("Restore")
                        .Input("file_pattern: string")
                        .Input("tensor_name: string")
                        .Output("tensor: dt")
                        .Attr("dt: type")
                        .Attr("preferred_shard: int = -1")
                        .SetIsStateful()
                        .SetShapeFn(RestoreOneShape));
  MG_REGISTER_OP(r, OpDefBuilder("RestoreSlice")
                        .Input("file_pattern: string")
                        .Input("tensor_name: string")
                        .Input("shape_and_slice: string")
                        .Output("tensor: dt")
                        .Attr("dt: type")
                        .Attr("preferred_shard: int = -1")
                        .SetIsStateful()
                        .SetShapeFn(RestoreOneShape));
  MG_REGISTER_OP(r, OpDefBuilder("Save")
                        .Input("filename: string")
                        .Input("tensor_names: string")
                        .Input("data: T")
                        .Attr("T: list(type) >= 1")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Unknown));
  MG_REGISTER_OP(r, OpDefBuilder("SaveSlices")
                        .Input("filename: string")
                        .Input("tensor_names: string")
                        .Input("shapes_and_slices: string")
                        .Input("data: T")
                        .Attr("T: list(type) >= 1")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Unknown));
  MG_REGISTER_OP(r, OpDefBuilder("SaveV2")
                        .Input("prefix: string")
                        .Input("tensor_names: string")
                        .Input("shape_and_slices: string")
                        .Input("tensors: dtypes")
                        .Attr("dtypes: list(type) >= 1")
                        .SetIsStateful()
                        .SetShapeFn(SaveShape));
  MG_REGISTER_OP(r, OpDefBuilder("RestoreV2")
                        .Input("prefix: string")
                        .Input("tensor_names: string")
                        .Input("shape_and_slices: string")
                        .Output("tensors: dtypes")
                        .Attr("dtypes: list(type) >= 1")
                        .SetIsStateful()
                        .SetShapeFn(RestoreShape));
  MG_REGISTER_OP(r, OpDefBuilder("StringJoin")
                        .Input("inputs: N * string")
                        .Output("output: string")
                        .Attr("N: int >= 0")
                        .Attr("separator: string = \"\"")
                        .SetShapeFn([](InferenceContext* c) {
                          // The non-scalar inputs' one shape, or a scalar.
                          PartialShape s;
                          bool all_scalars = true;
                          for (int i = 0; i < c->num_inputs(); ++i) {
                            const PartialShape& in = c->input(i);
                            if (in.rank_known() && in.rank() == 0) continue;
                            all_scalars = false;
                            auto merged = PartialShape::Merge(s, in);
                            if (!merged.ok()) {
                              return c->Error(absl::StrCat(
                                  "StringJoin inputs must be scalars or of one shape: ",
                                  merged.status().message()));
                            }
                            s = *merged;
                          }
                          c->set_output(0, all_scalars ? PartialShape({}) : s);
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("ShardedFilename")
                        .Input("basename: string")
                        .Input("shard: int32")
                        .Input("num_shards: int32")
                        .Output("filename: string")
                        .SetShapeFn(shape_fn::Scalar));
  // tf.io.read_file and tf.io.write_file, through the session's Env.
  MG_REGISTER_OP(r, OpDefBuilder("ReadFile")
                        .Input("filename: string")
                        .Output("contents: string")
                        .SetShapeFn(shape_fn::Scalar));
  MG_REGISTER_OP(r, OpDefBuilder("WriteFile")
                        .Input("filename: string")
                        .Input("contents: string")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Unknown));
  MG_REGISTER_OP(r, OpDefBuilder("MergeV2Checkpoints")
                        .Input("checkpoint_prefixes: string")
                        .Input("destination_prefix: string")
                        .Attr("delete_old_dirs: bool = true")
                        .Attr("allow_missing_files: bool = false")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Unknown));
}

}  // namespace ops_internal
}  // namespace minigraph
