// Checkpoint ops: SaveV2, RestoreV2 and MergeV2Checkpoints, and the V1-era
// Restore, RestoreSlice, Save and SaveSlices (TensorFlow's signatures, so
// graphs from TensorFlow's Saver import).
#include "absl/strings/str_cat.h"
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/ops/standard_ops.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
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
  return shape_fn::Unknown(c);
}

// Restore and RestoreSlice: one tensor, of a shape only the checkpoint
// knows (TensorFlow reads a constant shape_and_slice here; minigraph's
// graph layer does not parse slice specs, so the shape stays unknown).
absl::Status RestoreOneShape(InferenceContext* c) {
  for (int i = 0; i < c->num_inputs(); ++i) {
    MG_ASSIGN_OR_RETURN(PartialShape s, c->WithRank(i, 0));
    (void)s;
  }
  return shape_fn::Unknown(c);
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
                        .Attr("T: list(type)")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Unknown));
  MG_REGISTER_OP(r, OpDefBuilder("SaveSlices")
                        .Input("filename: string")
                        .Input("tensor_names: string")
                        .Input("shapes_and_slices: string")
                        .Input("data: T")
                        .Attr("T: list(type)")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Unknown));
  MG_REGISTER_OP(r, OpDefBuilder("SaveV2")
                        .Input("prefix: string")
                        .Input("tensor_names: string")
                        .Input("shape_and_slices: string")
                        .Input("tensors: dtypes")
                        .Attr("dtypes: list(type)")
                        .SetIsStateful()
                        .SetShapeFn(SaveShape));
  MG_REGISTER_OP(r, OpDefBuilder("RestoreV2")
                        .Input("prefix: string")
                        .Input("tensor_names: string")
                        .Input("shape_and_slices: string")
                        .Output("tensors: dtypes")
                        .Attr("dtypes: list(type)")
                        .SetIsStateful()
                        .SetShapeFn(RestoreShape));
  MG_REGISTER_OP(r, OpDefBuilder("StringJoin")
                        .Input("inputs: N * string")
                        .Output("output: string")
                        .Attr("N: int >= 1")
                        .Attr("separator: string = \"\"")
                        .SetShapeFn(shape_fn::MergeAllInputs));
  MG_REGISTER_OP(r, OpDefBuilder("ShardedFilename")
                        .Input("basename: string")
                        .Input("shard: int32")
                        .Input("num_shards: int32")
                        .Output("filename: string")
                        .SetShapeFn(shape_fn::Scalar));
  MG_REGISTER_OP(r, OpDefBuilder("MergeV2Checkpoints")
                        .Input("checkpoint_prefixes: string")
                        .Input("destination_prefix: string")
                        .Attr("delete_old_dirs: bool = true")
                        .Attr("allow_missing_files: bool = false")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Unknown));
}

}  // namespace minigraph
