// TensorFlow 1.x variables in the graph-building API: the VariableV2 node,
// its initializer and read, the collections, and the initializer and
// readiness helpers the SessionManager relies on. With use_resource, a
// resource variable as TensorFlow 2 (and TensorFlow 1's use_resource=True)
// builds it.
//
//   Variable w = Variable::Create(root, "w", ops::Const(root, init_tensor));
//   // nodes: w (VariableV2), w/initial_value (when given a Tensor), w/Assign, w/read
//   Variable r = Variable::Create(root, "r", init_tensor, {.use_resource = true});
//   // nodes: r (VarHandleOp), r/Assign (AssignVariableOp), r/Read/ReadVariableOp
//   Operation init = GlobalVariablesInitializer(root);          // "init"
//   Output not_ready = ReportUninitializedVariables(root);       // 1-D string
//
// Like Scope's, not thread-safe: build a graph on one thread.

#ifndef MINIGRAPH_RUNTIME_CC_VARIABLES_H_
#define MINIGRAPH_RUNTIME_CC_VARIABLES_H_

#include <optional>
#include <string>
#include <vector>

#include "core/proto/variable.pb.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/scope.h"

namespace minigraph {

// What a part of a partitioned variable holds (TensorFlow's
// Variable.SaveSliceInfo): the slice of the full tensor `full_name` at
// `var_offset` with shape `var_shape`.
struct SaveSliceInfo {
  std::string full_name;
  std::vector<int64_t> full_shape;
  std::vector<int64_t> var_offset;
  std::vector<int64_t> var_shape;

  // The shape_and_slices entry savers write for the part, TensorFlow's
  // SaveSliceInfo.spec: "10 4 3,3:0,4" (full shape, then start,length per
  // dimension).
  std::string Spec() const;
  SaveSliceInfoDef ToProto() const;
  static SaveSliceInfo FromProto(const SaveSliceInfoDef& def);
};

struct VariableOptions {
  bool trainable = true;
  // kGlobalVariables and/or kLocalVariables.
  std::vector<std::string> collections = {kGlobalVariables};
  bool validate_shape = true;
  std::string container = {};
  // Empty: the variable's own name.
  std::string shared_name = {};
  // A resource variable: a VarHandleOp whose handle the reads, assignments
  // and ResourceApply* updates take; a read is a snapshot.
  bool use_resource = false;
  // Set by PartitionedVariable::Create on each part.
  std::optional<SaveSliceInfo> save_slice_info = std::nullopt;
};

class Variable {
 public:
  Variable() = default;

  // Adds a variable named `name` (uniquified) initialized to `initial_value`,
  // whose static shape must be fully defined when validate_shape is set.
  static Variable Create(const Scope& scope, absl::string_view name, Output initial_value,
                         const VariableOptions& options = {});
  // Same, with a constant "NAME/initial_value" holding `initial_value`.
  static Variable Create(const Scope& scope, absl::string_view name, const Tensor& initial_value,
                         const VariableOptions& options = {});
  // Rebuilds the handle of a variable recorded in `scope`'s collections.
  static absl::StatusOr<Variable> FromDef(const Scope& scope, const VariableDef& def);

  const std::string& name() const { return ref_.op().name(); }
  // The VariableV2 output (a reference, for Assign and the Apply* ops), or
  // for a resource variable the VarHandleOp's handle (for AssignVariableOp,
  // the ResourceApply* ops and further reads).
  const Output& ref() const { return ref_; }
  bool is_resource() const { return ref_.dtype() == DT_RESOURCE; }
  // NAME/read, or NAME/Read/ReadVariableOp: the value.
  const Output& value() const { return value_; }
  // NAME/Assign: sets the initial value.
  const Operation& initializer() const { return initializer_.op(); }
  const Output& initial_value() const { return initial_value_; }
  DataType dtype() const { return value_.dtype(); }
  // The declared shape.
  const PartialShape& shape() const { return shape_; }
  // Set when this variable is a part of a partitioned variable.
  const std::optional<SaveSliceInfo>& save_slice_info() const { return save_slice_info_; }
  // The name of the tensor savers write the variable's value to (the full
  // tensor's for a part), and its shape_and_slices entry ("" for a whole
  // tensor).
  const std::string& checkpoint_key() const {
    return save_slice_info_.has_value() ? save_slice_info_->full_name : name();
  }
  std::string checkpoint_slice_spec() const {
    return save_slice_info_.has_value() ? save_slice_info_->Spec() : "";
  }
  // TensorFlow's initialized_value(): the variable's value if it is
  // initialized, else its initial value, as a cond under `scope`'s "cond"
  // name scope (IsVariableInitialized, RefSwitch, Switch, Merge). Reading it
  // never fails on an uninitialized variable, so one variable's initial value
  // can depend on another's.
  Output InitializedValue(const Scope& scope) const;
  VariableDef ToDef() const;

  // Makes `initial_value` the variable's initial value, as TensorFlow's
  // init_from_checkpoint does (`variable._initializer_op = assign(...)`): a
  // new Assign (AssignVariableOp) of it under `scope`, recorded as the
  // initializer in every collection that holds the variable, so the
  // initializers built after this (GlobalVariablesInitializer) run it.
  // Returns the variable with its new initializer; InvalidArgument when
  // `initial_value` has another dtype, or a shape the variable cannot take.
  absl::StatusOr<Variable> ReplaceInitialValue(const Scope& scope, Output initial_value) const;

 private:
  Output ref_, value_, initializer_, initial_value_;
  PartialShape shape_;
  bool trainable_ = true;
  std::optional<SaveSliceInfo> save_slice_info_;
};

// TensorFlow's PartitionedVariable (get_variable with a partitioner): one
// variable per part, NAME/part_0, NAME/part_1, ..., each holding a slice of
// the full value along one dimension and recorded in the collections with
// its SaveSliceInfo, so that a Saver writes the parts as slices of the one
// checkpoint tensor NAME (restorable into any other partitioning, or into an
// unpartitioned variable) and InitFromCheckpoint fills them from NAME.
//
//   PartitionedVariable emb = *PartitionedVariable::Create(
//       root, "emb", init, FixedSizePartitions(init.shape(), 3));
//   // emb/part_0 [4,8], emb/part_1 [3,8], emb/part_2 [3,8]
//   Output full = emb.AsTensor(root);  // emb/ConcatPartitions/concat
class PartitionedVariable {
 public:
  PartitionedVariable() = default;

  // `initial_value` is the full value (fully defined shape); part i's
  // initial value is its slice (a Slice of it, NAME/part_i/initial_value).
  // `partitions[d]` is the number of parts along dimension d (TensorFlow's
  // partition list: one per dimension, at most one of them above 1; not for
  // a scalar); a
  // dimension of n elements in p parts gives the first n % p parts
  // n / p + 1 elements and the others n / p. InvalidArgument names the
  // variable when the list does not fit the shape.
  static absl::StatusOr<PartitionedVariable> Create(const Scope& scope, absl::string_view name,
                                                    Output initial_value,
                                                    const std::vector<int>& partitions,
                                                    const VariableOptions& options = {});
  // Same, with a constant NAME/initial_value holding `initial_value`.
  static absl::StatusOr<PartitionedVariable> Create(const Scope& scope, absl::string_view name,
                                                    const Tensor& initial_value,
                                                    const std::vector<int>& partitions,
                                                    const VariableOptions& options = {});

  // The full name, which is the checkpoint key: "emb".
  const std::string& name() const { return name_; }
  const std::vector<Variable>& parts() const { return parts_; }
  // The parts' values (their reads), for EmbeddingLookup.
  std::vector<Output> values() const;
  const TensorShape& shape() const { return shape_; }
  DataType dtype() const { return parts_.empty() ? DT_INVALID : parts_[0].dtype(); }
  // The full value: the parts' values concatenated along the partitioned
  // dimension, NAME/ConcatPartitions/concat (TensorFlow's as_tensor()).
  Output AsTensor(const Scope& scope) const;

 private:
  std::string name_;
  std::vector<Variable> parts_;
  TensorShape shape_;
  int axis_ = 0;
};

// TensorFlow's fixed_size_partitioner(num_shards, axis): the partition list
// that splits `shape` into min(num_shards, shape.dim(axis)) parts along
// `axis`.
std::vector<int> FixedSizePartitions(const TensorShape& shape, int num_shards, int axis = 0);

// The variables recorded in a collection (kGlobalVariables, ...), in
// creation order.
std::vector<Variable> GetVariables(const Scope& scope, const std::string& collection);
std::vector<Variable> GlobalVariables(const Scope& scope);
std::vector<Variable> LocalVariables(const Scope& scope);
std::vector<Variable> TrainableVariables(const Scope& scope);

// A NoOp named "init" (uniquified) that runs every initializer of `vars`
// (TensorFlow's variables_initializer).
Operation VariablesInitializer(const Scope& scope, const std::vector<Variable>& vars,
                               absl::string_view name = "init");
Operation GlobalVariablesInitializer(const Scope& scope);
Operation LocalVariablesInitializer(const Scope& scope);

// The op names of the variables in `vars` that are not initialized, as a 1-D
// string tensor (empty when all are), built under the name scope
// "report_uninitialized_variables" from IsVariableInitialized (or
// VarIsInitializedOp for resource variables), Pack, LogicalNot, Where and
// Gather. Without `vars`: global then local variables, or, when both
// collections are empty, every VariableV2 and VarHandleOp op of the graph
// (TensorFlow's fallback for variables outside the collections).
Output ReportUninitializedVariables(const Scope& scope, const std::vector<Variable>& vars);
Output ReportUninitializedVariables(const Scope& scope);

// TensorFlow's obsolete assert_variables_initialized(): the Rank of each
// variable (int32; a scalar for one variable), which fails with
// "Attempting to use uninitialized value ..." while any is uninitialized.
// Without `vars`: the variables ReportUninitializedVariables(scope) covers.
// REQUIRES: at least one variable.
Output AssertVariablesInitialized(const Scope& scope, const std::vector<Variable>& vars);
Output AssertVariablesInitialized(const Scope& scope);

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_CC_VARIABLES_H_
