// tf.data: datasets (DT_VARIANT scalars made by the *Dataset ops), the
// iterators that walk them (resources) and the ops between the two, with
// TensorFlow's signatures, so that the input pipelines of TensorFlow 1.x
// Estimators and of tf.data users import and run.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace ops_internal {
namespace {

// The attrs every dataset op carries: the types and shapes of its elements'
// components.
OpDefBuilder& ElementAttrs(OpDefBuilder& b) {
  return b.Attr("output_types: list(type) >= 1")
      .Attr("output_shapes: list(shape) >= 1")
      .Attr("metadata: string = \"\"");
}

// A dataset op: its inputs are added by the caller; its output is the
// dataset. Stateless but for the sources, as TensorFlow declares them.
OpDefBuilder DatasetOp(const char* name) {
  OpDefBuilder b(name);
  b.Output("handle: variant").SetShapeFn(shape_fn::Scalar);
  return b;
}

// Datasets that read files or make their own elements, and shuffles.
void RegisterSourceDatasetOps(OpRegistry* r) {
  {
    OpDefBuilder b = DatasetOp("TextLineDataset");
    b.SetIsStateful();
    b.Input("filenames: string")
        .Input("compression_type: string")
        .Input("buffer_size: int64")
        .Attr("metadata: string = \"\"");
    MG_REGISTER_OP(r, b);
  }
  {
    OpDefBuilder b = DatasetOp("TFRecordDataset");
    b.SetIsStateful();
    b.Input("filenames: string")
        .Input("compression_type: string")
        .Input("buffer_size: int64")
        .Attr("metadata: string = \"\"");
    MG_REGISTER_OP(r, b);
  }
  {
    OpDefBuilder b = DatasetOp("RangeDataset");
    b.SetIsStateful();
    b.Input("start: int64")
        .Input("stop: int64")
        .Input("step: int64")
        .Attr("replicate_on_split: bool = false");
    ElementAttrs(b);
    MG_REGISTER_OP(r, b);
  }
  {
    OpDefBuilder b = DatasetOp("TensorSliceDataset");
    b.SetIsStateful();
    b.Input("components: Toutput_types")
        .Attr("Toutput_types: list(type) >= 1")
        .Attr("output_shapes: list(shape) >= 1")
        .Attr("is_files: bool = false")
        .Attr("metadata: string = \"\"")
        .Attr("replicate_on_split: bool = false");
    MG_REGISTER_OP(r, b);
  }
  {
    OpDefBuilder b = DatasetOp("TensorDataset");
    b.SetIsStateful();
    b.Input("components: Toutput_types")
        .Attr("Toutput_types: list(type) >= 1")
        .Attr("output_shapes: list(shape) >= 1")
        .Attr("metadata: string = \"\"");
    MG_REGISTER_OP(r, b);
  }
  {
    OpDefBuilder b = DatasetOp("ShuffleDataset");
    b.Input("input_dataset: variant")
        .Input("buffer_size: int64")
        .Input("seed: int64")
        .Input("seed2: int64")
        .Attr("reshuffle_each_iteration: bool = true");
    ElementAttrs(b);
    MG_REGISTER_OP(r, b);
  }
}

// Datasets of a function of each element: maps, filters, flat maps and interleaves.
void RegisterFunctionDatasetOps(OpRegistry* r) {
  for (const char* op : {"MapDataset", "ParallelMapDataset", "ParallelMapDatasetV2"}) {
    const std::string name = op;
    OpDefBuilder b = DatasetOp(op);
    b.Input("input_dataset: variant")
        .Input("other_arguments: Targuments")
        .Attr("f: func")
        .Attr("Targuments: list(type) >= 0")
        .Attr("use_inter_op_parallelism: bool = true")
        .Attr("preserve_cardinality: bool = false");
    // Attrs newer TensorFlows write (no effect on the elements here).
    if (name == "MapDataset") b.Attr("force_synchronous: bool = false");
    if (name == "ParallelMapDataset") {
      b.Input("num_parallel_calls: int32").Attr("sloppy: bool = false");
    } else if (name == "ParallelMapDatasetV2") {
      b.Input("num_parallel_calls: int64")
          .Attr("deterministic: string = \"default\"")
          .Attr("use_unbounded_threadpool: bool = false");
    }
    ElementAttrs(b);
    MG_REGISTER_OP(r, b);
  }
  // A function of each input element (and captured values): a predicate,
  // or one that returns a dataset.
  for (const char* op : {"FilterDataset", "FlatMapDataset", "InterleaveDataset"}) {
    const std::string name = op;
    OpDefBuilder b = DatasetOp(op);
    b.Input("input_dataset: variant")
        .Input("other_arguments: Targuments")
        .Attr(name == "FilterDataset" ? "predicate: func" : "f: func")
        .Attr("Targuments: list(type) >= 0");
    if (name == "InterleaveDataset") b.Input("cycle_length: int64").Input("block_length: int64");
    ElementAttrs(b);
    MG_REGISTER_OP(r, b);
  }
  // Interleave with the open inputs read on threads of their own: the
  // experimental parallel_interleave (V1, whose sloppy is an input, and
  // the Legacy V2 TensorFlow 2 writes for it) and Dataset.interleave with
  // num_parallel_calls (V2 to V4).
  for (const char* op : {"ParallelInterleaveDataset", "LegacyParallelInterleaveDatasetV2",
                         "ParallelInterleaveDatasetV2", "ParallelInterleaveDatasetV3",
                         "ParallelInterleaveDatasetV4"}) {
    const std::string name = op;
    OpDefBuilder b = DatasetOp(op);
    b.Input("input_dataset: variant")
        .Input("other_arguments: Targuments")
        .Input("cycle_length: int64")
        .Input("block_length: int64")
        .Attr("f: func")
        .Attr("Targuments: list(type) >= 0");
    if (name == "ParallelInterleaveDataset") {
      b.Input("sloppy: bool")
          .Input("buffer_output_elements: int64")
          .Input("prefetch_input_elements: int64");
    } else if (name == "LegacyParallelInterleaveDatasetV2") {
      b.Input("buffer_output_elements: int64").Input("prefetch_input_elements: int64");
    } else if (name == "ParallelInterleaveDatasetV4") {
      b.Input("buffer_output_elements: int64")
          .Input("prefetch_input_elements: int64")
          .Input("num_parallel_calls: int64");
    } else {
      b.Input("num_parallel_calls: int64");
    }
    if (name == "ParallelInterleaveDatasetV2") b.Attr("sloppy: bool = false");
    if (name == "ParallelInterleaveDatasetV3" || name == "ParallelInterleaveDatasetV4" ||
        name == "LegacyParallelInterleaveDatasetV2") {
      b.Attr("deterministic: string = \"default\"");
    }
    ElementAttrs(b);
    MG_REGISTER_OP(r, b);
  }
  {
    OpDefBuilder b = DatasetOp("ZipDataset");
    b.Input("input_datasets: N * variant").Attr("N: int >= 1");
    ElementAttrs(b);
    MG_REGISTER_OP(r, b);
  }
  {
    OpDefBuilder b = DatasetOp("ConcatenateDataset");
    b.Input("input_dataset: variant").Input("another_dataset: variant");
    ElementAttrs(b);
    MG_REGISTER_OP(r, b);
  }
  {
    OpDefBuilder b = DatasetOp("CacheDataset");
    b.Input("input_dataset: variant").Input("filename: string");
    ElementAttrs(b);
    MG_REGISTER_OP(r, b);
  }
}

// Repeats, takes, skips, prefetches and batches.
void RegisterBatchingDatasetOps(OpRegistry* r) {
  // A dataset and one int64.
  for (const auto& [op, arg] : {std::pair<const char*, const char*>{"RepeatDataset", "count"},
                                {"TakeDataset", "count"},
                                {"SkipDataset", "count"},
                                {"BatchDataset", "batch_size"}}) {
    OpDefBuilder b = DatasetOp(op);
    b.Input("input_dataset: variant").Input(absl::StrCat(arg, ": int64"));
    ElementAttrs(b);
    MG_REGISTER_OP(r, b);
  }
  {
    OpDefBuilder b = DatasetOp("BatchDatasetV2");
    b.Input("input_dataset: variant")
        .Input("batch_size: int64")
        .Input("drop_remainder: bool")
        .Attr("parallel_copy: bool = false");
    ElementAttrs(b);
    MG_REGISTER_OP(r, b);
  }
  {
    OpDefBuilder b = DatasetOp("ParallelBatchDataset");
    b.Input("input_dataset: variant")
        .Input("batch_size: int64")
        .Input("num_parallel_calls: int64")
        .Input("drop_remainder: bool")
        .Attr("parallel_copy: bool = false")
        .Attr("deterministic: string = \"default\"");
    ElementAttrs(b);
    MG_REGISTER_OP(r, b);
  }
  for (const char* op : {"PaddedBatchDataset", "PaddedBatchDatasetV2"}) {
    OpDefBuilder b = DatasetOp(op);
    b.Input("input_dataset: variant")
        .Input("batch_size: int64")
        .Input("padded_shapes: N * int64")
        .Input("padding_values: Toutput_types");
    if (std::string(op) == "PaddedBatchDatasetV2") {
      b.Input("drop_remainder: bool").Attr("parallel_copy: bool = false");
    }
    b.Attr("Toutput_types: list(type) >= 1")
        .Attr("output_shapes: list(shape) >= 1")
        .Attr("N: int >= 1")
        .Attr("metadata: string = \"\"");
    MG_REGISTER_OP(r, b);
  }
  {
    OpDefBuilder b = DatasetOp("ShuffleAndRepeatDataset");
    b.Input("input_dataset: variant")
        .Input("buffer_size: int64")
        .Input("seed: int64")
        .Input("seed2: int64")
        .Input("count: int64")
        .Attr("reshuffle_each_iteration: bool = true");
    ElementAttrs(b);
    MG_REGISTER_OP(r, b);
  }
  {
    OpDefBuilder b = DatasetOp("MapAndBatchDataset");
    b.Input("input_dataset: variant")
        .Input("other_arguments: Targuments")
        .Input("batch_size: int64")
        .Input("num_parallel_calls: int64")
        .Input("drop_remainder: bool")
        .Attr("f: func")
        .Attr("Targuments: list(type) >= 0")
        .Attr("preserve_cardinality: bool = false");
    ElementAttrs(b);
    MG_REGISTER_OP(r, b);
  }
}

// Options, autotuning and graph rewrites, which pass elements through.
void RegisterPassThroughDatasetOps(OpRegistry* r) {
  // tf.data's autotuning and graph rewrites (ModelDataset, OptimizeDataset,
  // which TensorFlow 1.13+ and 2 put before every iterator) and its options
  // (OptionsDataset, from Dataset.with_options: threading, autotuning,
  // which rewrites to make, whether the order may vary) change how elements
  // are made, not which: they pass them through, in order.
  {
    OpDefBuilder b = DatasetOp("OptionsDataset");
    b.Input("input_dataset: variant").Attr("serialized_options: string");
    ElementAttrs(b);
    MG_REGISTER_OP(r, b);
  }
  {
    OpDefBuilder b = DatasetOp("ModelDataset");
    b.Input("input_dataset: variant")
        .Attr("algorithm: int = 0")
        .Attr("cpu_budget: int = 0")
        .Attr("ram_budget: int = 0")
        .Attr("output_types: list(type) >= 1")
        .Attr("output_shapes: list(shape) >= 1");
    MG_REGISTER_OP(r, b);
  }
  {
    OpDefBuilder b = DatasetOp("OptimizeDataset");
    b.Input("input_dataset: variant")
        .Input("optimizations: string")
        .Attr("output_types: list(type) >= 1")
        .Attr("output_shapes: list(shape) >= 1")
        .Attr("optimization_configs: list(string) = []");
    MG_REGISTER_OP(r, b);
  }
  {
    OpDefBuilder b = DatasetOp("OptimizeDatasetV2");
    b.Input("input_dataset: variant")
        .Input("optimizations_enabled: string")
        .Input("optimizations_disabled: string")
        .Input("optimizations_default: string")
        .Attr("output_types: list(type) >= 1")
        .Attr("output_shapes: list(shape) >= 1")
        .Attr("optimization_configs: list(string) = []");
    MG_REGISTER_OP(r, b);
  }
  {
    // Prefetching overlaps the pipeline with the step in TensorFlow; here
    // elements are made when asked for, so it passes them through.
    OpDefBuilder b = DatasetOp("PrefetchDataset");
    b.Input("input_dataset: variant")
        .Input("buffer_size: int64")
        .Attr("slack_period: int = 0")
        .Attr("legacy_autotune: bool = true")
        .Attr("buffer_size_min: int = 0");
    ElementAttrs(b);
    MG_REGISTER_OP(r, b);
  }
}

// Iterators, their string handles, and optionals.
void RegisterIteratorOps(OpRegistry* r) {
  for (const char* op : {"Iterator", "IteratorV2"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Output("handle: resource")
                          .Attr("shared_name: string")
                          .Attr("container: string")
                          .Attr("output_types: list(type) >= 1")
                          .Attr("output_shapes: list(shape) >= 1")
                          .SetIsStateful()
                          .SetShapeFn(shape_fn::Scalar));
  }
  // TensorFlow 1's make_one_shot_iterator(): the dataset comes from a
  // function of no arguments, called on the first run.
  MG_REGISTER_OP(r, OpDefBuilder("OneShotIterator")
                        .Output("handle: resource")
                        .Attr("dataset_factory: func")
                        .Attr("output_types: list(type) >= 1")
                        .Attr("output_shapes: list(shape) >= 1")
                        .Attr("container: string = \"\"")
                        .Attr("shared_name: string = \"\"")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Scalar));
  MG_REGISTER_OP(r, OpDefBuilder("MakeIterator")
                        .Input("dataset: variant")
                        .Input("iterator: resource")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Unknown));
  // Optionals: a value or none, in a DT_VARIANT (cond_v2's gradient keeps
  // a branch's intermediates in them).
  MG_REGISTER_OP(r, OpDefBuilder("OptionalFromValue")
                        .Input("components: Toutput_types")
                        .Output("optional: variant")
                        .Attr("Toutput_types: list(type) >= 1")
                        .SetShapeFn(shape_fn::Scalar));
  MG_REGISTER_OP(r, OpDefBuilder("OptionalNone")
                        .Output("optional: variant")
                        .SetShapeFn(shape_fn::Scalar));
  MG_REGISTER_OP(r, OpDefBuilder("OptionalHasValue")
                        .Input("optional: variant")
                        .Output("has_value: bool")
                        .SetShapeFn(shape_fn::Scalar));
  MG_REGISTER_OP(r, OpDefBuilder("OptionalGetValue")
                        .Input("optional: variant")
                        .Output("components: output_types")
                        .Attr("output_types: list(type) >= 1")
                        .Attr("output_shapes: list(shape) >= 1")
                        .SetShapeFn(shape_fn::OutputShapesAttr));
  MG_REGISTER_OP(r, OpDefBuilder("IteratorGetNext")
                        .Input("iterator: resource")
                        .Output("components: output_types")
                        .Attr("output_types: list(type) >= 1")
                        .Attr("output_shapes: list(shape) >= 1")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::OutputShapesAttr));
  MG_REGISTER_OP(r, OpDefBuilder("IteratorToStringHandle")
                        .Input("resource_handle: resource")
                        .Output("string_handle: string")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Scalar));
  for (const char* op : {"IteratorFromStringHandle", "IteratorFromStringHandleV2"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("string_handle: string")
                          .Output("resource_handle: resource")
                          .Attr("output_types: list(type) >= 0 = []")
                          .Attr("output_shapes: list(shape) >= 0 = []")
                          .SetIsStateful()
                          .SetShapeFn(shape_fn::Scalar));
  }
}

}  // namespace

void RegisterDatasetOps(OpRegistry* r) {
  RegisterSourceDatasetOps(r);
  RegisterFunctionDatasetOps(r);
  RegisterBatchingDatasetOps(r);
  RegisterPassThroughDatasetOps(r);
  RegisterIteratorOps(r);
}

}  // namespace ops_internal
}  // namespace minigraph
