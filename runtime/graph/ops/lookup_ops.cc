// Lookup tables (tf.lookup): a table is a resource; the ops take its handle.
#include "absl/strings/str_cat.h"
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace ops_internal {

namespace {

// The tables and their initializers.
void RegisterTableOps(OpRegistry* r) {
  for (const char* op : {"HashTableV2", "MutableHashTableV2"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Output("table_handle: resource")
                          .Attr("container: string = \"\"")
                          .Attr("shared_name: string = \"\"")
                          .Attr("use_node_name_sharing: bool = false")
                          .Attr("key_dtype: type")
                          .Attr("value_dtype: type")
                          .SetIsStateful()
                          .SetShapeFn(shape_fn::Scalar));
  }
  MG_REGISTER_OP(r, OpDefBuilder("MutableHashTableOfTensorsV2")
                        .Output("table_handle: resource")
                        .Attr("container: string = \"\"")
                        .Attr("shared_name: string = \"\"")
                        .Attr("use_node_name_sharing: bool = false")
                        .Attr("key_dtype: type")
                        .Attr("value_dtype: type")
                        .Attr("value_shape: shape = {}")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Scalar));
  // Open addressing over tensors (tf.lookup.experimental.DenseHashTable);
  // a key is a scalar or a vector, the empty key's shape.
  MG_REGISTER_OP(r, OpDefBuilder("MutableDenseHashTableV2")
                        .Input("empty_key: key_dtype")
                        .Input("deleted_key: key_dtype")
                        .Output("table_handle: resource")
                        .Attr("container: string = \"\"")
                        .Attr("shared_name: string = \"\"")
                        .Attr("use_node_name_sharing: bool = false")
                        .Attr("key_dtype: type")
                        .Attr("value_dtype: type")
                        .Attr("value_shape: shape = {}")
                        .Attr("initial_num_buckets: int = 131072")
                        .Attr("max_load_factor: float = 0.8")
                        .SetIsStateful()
                        .SetShapeFn([](InferenceContext* c) {
                          for (int i : {0, 1}) {
                            if (c->input(i).rank_known() && c->input(i).rank() > 1) {
                              return c->Error(absl::StrCat(
                                  "Shape must be at most rank 1 but is rank ",
                                  c->input(i).rank()));
                            }
                          }
                          c->set_output(0, PartialShape({}));
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("LookupTableRemoveV2")
                        .Input("table_handle: resource")
                        .Input("keys: Tin")
                        .Attr("Tin: type")
                        .SetIsStateful()
                        .SetShapeFn([](InferenceContext* c) {
                          MG_RETURN_IF_ERROR(c->WithRank(0, 0).status());
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("InitializeTableV2")
                        .Input("table_handle: resource")
                        .Input("keys: Tkey")
                        .Input("values: Tval")
                        .Attr("Tkey: type")
                        .Attr("Tval: type")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Unknown));
  // A HashTable's entries from the lines of a text file (a vocabulary):
  // key and value each a column (split at `delimiter`), the line number
  // (-1) or the whole line (-2).
  MG_REGISTER_OP(r, OpDefBuilder("InitializeTableFromTextFileV2")
                        .Input("table_handle: resource")
                        .Input("filename: string")
                        .Attr("key_index: int >= -2")
                        .Attr("value_index: int >= -2")
                        .Attr("vocab_size: int >= -1 = -1")
                        .Attr("delimiter: string = \"\t\"")  // a tab
                        .Attr("offset: int = 0")
                        .SetIsStateful()
                        .SetShapeFn([](InferenceContext* c) {
                          MG_RETURN_IF_ERROR(c->WithRank(1, 0).status());
                          return absl::OkStatus();
                        }));
}

// Finds, inserts, exports and sizes.
void RegisterTableAccessOps(OpRegistry* r) {
  MG_REGISTER_OP(r, OpDefBuilder("LookupTableFindV2")
                        .Input("table_handle: resource")
                        .Input("keys: Tin")
                        .Input("default_value: Tout")
                        .Output("values: Tout")
                        .Attr("Tin: type")
                        .Attr("Tout: type")
                        .SetIsStateful()
                        .SetShapeFn([](InferenceContext* c) {
                          // The keys' shape, then a vector value's.
                          const PartialShape& keys = c->input(1);
                          const PartialShape& value = c->input(2);
                          if (!keys.rank_known() || !value.rank_known()) {
                            c->set_output(0, value.rank() == 0 ? keys : PartialShape());
                            return absl::OkStatus();
                          }
                          std::vector<int64_t> dims = keys.dims();
                          dims.insert(dims.end(), value.dims().begin(), value.dims().end());
                          c->set_output(0, PartialShape(dims));
                          return absl::OkStatus();
                        }));
  for (const char* op : {"LookupTableInsertV2", "LookupTableImportV2"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("table_handle: resource")
                          .Input("keys: Tin")
                          .Input("values: Tout")
                          .Attr("Tin: type")
                          .Attr("Tout: type")
                          .SetIsStateful()
                          .SetShapeFn(shape_fn::Unknown));
  }
  MG_REGISTER_OP(r, OpDefBuilder("LookupTableExportV2")
                        .Input("table_handle: resource")
                        .Output("keys: Tkeys")
                        .Output("values: Tvalues")
                        .Attr("Tkeys: type")
                        .Attr("Tvalues: type")
                        .SetIsStateful()
                        .SetShapeFn([](InferenceContext* c) {
                          c->set_output(0, PartialShape({-1}));
                          c->set_output(1, PartialShape({-1}));
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("LookupTableSizeV2")
                        .Input("table_handle: resource")
                        .Output("size: int64")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Scalar));
}

}  // namespace

void RegisterLookupOps(OpRegistry* r) {
  RegisterTableOps(r);
  RegisterTableAccessOps(r);
}

}  // namespace ops_internal
}  // namespace minigraph
