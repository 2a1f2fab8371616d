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

#ifndef MINIGRAPH_RUNTIME_CC_VARIABLES_H_
#define MINIGRAPH_RUNTIME_CC_VARIABLES_H_

#include <string>
#include <vector>

#include "core/proto/variable.pb.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/scope.h"

namespace minigraph {

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
};

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
