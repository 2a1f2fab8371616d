#include "runtime/cc/variables.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "core/tensor_slice.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {
namespace {

// "node:0" -> "node"
std::string OpName(const std::string& tensor_name) {
  const size_t colon = tensor_name.rfind(':');
  return colon == std::string::npos ? tensor_name : tensor_name.substr(0, colon);
}

// The dtype of the variable behind a VarHandleOp's output.
DataType HandleDtype(const Scope& scope, const Output& handle) {
  const auto& attr = scope.GetNodeDef(handle.op()).attr();
  auto it = attr.find("dtype");
  return it == attr.end() ? DT_INVALID : it->second.type();
}

}  // namespace

Variable Variable::Create(const Scope& scope, absl::string_view name, Output initial_value,
                          const VariableOptions& options) {
  Variable v;
  v.trainable_ = options.trainable;
  v.save_slice_info_ = options.save_slice_info;
  if (options.validate_shape && scope.ok() && !initial_value.shape().IsFullyDefined()) {
    scope.UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
        "variable '", scope.UniqueName(name), "' needs an initial value of fully defined shape, "
        "got ", initial_value.shape().DebugString(), " (or set validate_shape = false)")));
    return v;
  }
  const PartialShape shape = options.validate_shape ? initial_value.shape() : PartialShape();
  const DataType dtype = BaseType(initial_value.dtype());
  v.shape_ = shape;
  v.initial_value_ = initial_value;
  if (options.use_resource) {
    // TensorFlow's ResourceVariable: the handle is shared under the
    // variable's full name, so sessions and restores find it by name.
    const std::string full = scope.UniqueName(name);
    v.ref_ = scope.WithOpName(name)
                 .AddOp("VarHandleOp", {},
                        {{"dtype", MakeAttrValue(dtype)},
                         {"shape", MakeAttrValue(shape)},
                         {"container", MakeAttrValue(options.container)},
                         {"shared_name",
                          MakeAttrValue(options.shared_name.empty() ? full : options.shared_name)}})
                 .output(0);
    const Scope inside = scope.InsideOp(v.ref_.op());
    // (The op has no outputs; initializer() is what is used.)
    v.initializer_ =
        Output(ops::AssignVariableOp(inside.WithOpName("Assign"), v.ref_, initial_value), 0);
    v.value_ =
        ops::ReadVariableOp(inside.NewSubScope("Read").WithOpName("ReadVariableOp"), v.ref_, dtype);
  } else {
    v.ref_ = ops::VariableV2(scope.WithOpName(name), shape, dtype, options.container,
                             options.shared_name);
    const Scope inside = scope.InsideOp(v.ref_.op());
    v.initializer_ =
        ops::Assign(inside.WithOpName("Assign"), v.ref_, initial_value, options.validate_shape);
    v.value_ = ops::Identity(inside.WithOpName("read"), v.ref_);
  }
  if (!scope.ok()) return v;
  const std::string def = v.ToDef().SerializeAsString();
  for (const std::string& c : options.collections) scope.AddBytesToCollection(c, def);
  if (options.trainable) scope.AddBytesToCollection(kTrainableVariables, def);
  return v;
}

Variable Variable::Create(const Scope& scope, absl::string_view name, const Tensor& initial_value,
                          const VariableOptions& options) {
  // The constant goes first, at NAME/initial_value, with NAME still free.
  const std::string full = scope.UniqueName(name);
  const std::string base =
      scope.prefix().empty() ? full : full.substr(scope.prefix().size() + 1);
  Output init = ops::Const(scope.WithOpName(absl::StrCat(base, "/initial_value")), initial_value);
  return Create(scope, base, init, options);
}

absl::StatusOr<Variable> Variable::FromDef(const Scope& scope, const VariableDef& def) {
  Variable v;
  v.trainable_ = def.trainable();
  MG_ASSIGN_OR_RETURN(Operation var, scope.FindOp(OpName(def.variable_name())));
  MG_ASSIGN_OR_RETURN(Operation init, scope.FindOp(def.initializer_name()));
  MG_ASSIGN_OR_RETURN(Operation read, scope.FindOp(OpName(def.snapshot_name())));
  v.ref_ = var.output(0);
  v.initializer_ = init.output(0);
  v.value_ = read.output(0);
  if (auto it = scope.GetNodeDef(var).attr().find("shape");
      it != scope.GetNodeDef(var).attr().end()) {
    v.shape_ = PartialShape::FromProto(it->second.shape());
  }
  if (!def.initial_value_name().empty()) {
    MG_ASSIGN_OR_RETURN(Operation iv, scope.FindOp(OpName(def.initial_value_name())));
    v.initial_value_ = iv.output(0);
  }
  if (def.has_save_slice_info_def()) {
    v.save_slice_info_ = SaveSliceInfo::FromProto(def.save_slice_info_def());
  }
  return v;
}

Output Variable::InitializedValue(const Scope& scope) const {
  const Scope s = scope.NewSubScope("cond");
  if (is_resource()) {
    // The read runs only on the initialized side: the handle passes the
    // Switch only there.
    Output pred = ops::VarIsInitializedOp(s, ref_);
    Output read =
        ops::ReadVariableOp(s.WithOpName("read"), ops::Switch(s, ref_, pred).output_true, dtype());
    Output initial = ops::Switch(s, initial_value_, pred).output_false;
    return ops::Merge(s, {initial, read});
  }
  Output pred = ops::IsVariableInitialized(s, ref_);
  Output read = ops::Identity(s.WithOpName("read"), ops::RefSwitch(s, ref_, pred).output_true);
  Output initial = ops::Switch(s, initial_value_, pred).output_false;
  return ops::Merge(s, {initial, read});
}

VariableDef Variable::ToDef() const {
  VariableDef def;
  def.set_variable_name(ref_.name() + ":0");
  def.set_initializer_name(initializer_.op().name());
  def.set_snapshot_name(value_.op().name() + ":0");
  if (initial_value_.op().valid()) {
    def.set_initial_value_name(initial_value_.op().name() + ":" +
                               std::to_string(initial_value_.index()));
  }
  def.set_trainable(trainable_);
  def.set_is_resource(is_resource());
  if (save_slice_info_.has_value()) {
    *def.mutable_save_slice_info_def() = save_slice_info_->ToProto();
  }
  return def;
}

std::string SaveSliceInfo::Spec() const {
  return ShapeAndSliceString(TensorShape(full_shape),
                             TensorSlice::FromExtents(var_offset, var_shape));
}

SaveSliceInfoDef SaveSliceInfo::ToProto() const {
  SaveSliceInfoDef def;
  def.set_full_name(full_name);
  for (int64_t d : full_shape) def.add_full_shape(d);
  for (int64_t d : var_offset) def.add_var_offset(d);
  for (int64_t d : var_shape) def.add_var_shape(d);
  return def;
}

SaveSliceInfo SaveSliceInfo::FromProto(const SaveSliceInfoDef& def) {
  return {def.full_name(),
          {def.full_shape().begin(), def.full_shape().end()},
          {def.var_offset().begin(), def.var_offset().end()},
          {def.var_shape().begin(), def.var_shape().end()}};
}

namespace {

Tensor Int64Vector(const std::vector<int64_t>& v) {
  Tensor t(DT_INT64, TensorShape({static_cast<int64_t>(v.size())}));
  std::copy(v.begin(), v.end(), t.data<int64_t>());
  return t;
}

}  // namespace

absl::StatusOr<PartitionedVariable> PartitionedVariable::Create(const Scope& scope,
                                                                absl::string_view name,
                                                                Output initial_value,
                                                                const std::vector<int>& partitions,
                                                                const VariableOptions& options) {
  MG_RETURN_IF_ERROR(scope.status());
  const PartialShape& init_shape = initial_value.shape();
  const std::string full = scope.UniqueName(name);
  if (!init_shape.IsFullyDefined()) {
    return absl::InvalidArgumentError(absl::StrCat("partitioned variable '", full,
                                                   "' needs an initial value of fully defined ",
                                                   "shape, got ", init_shape.DebugString()));
  }
  const TensorShape shape(init_shape.dims());
  if (shape.dims() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("partitioned variable '", full, "': a scalar cannot be partitioned"));
  }
  const std::string what =
      absl::StrCat("partitioned variable '", full, "' of shape ", shape.DebugString(),
                   " with partitions [", absl::StrJoin(partitions, ", "), "]");
  if (static_cast<int>(partitions.size()) != shape.dims()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": the partition list needs one entry per dimension"));
  }
  int axis = 0;
  int num_parts = 1;
  for (int d = 0; d < shape.dims(); ++d) {
    if (partitions[d] < 1) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": a dimension needs at least 1 part"));
    }
    if (partitions[d] == 1) continue;
    if (num_parts > 1) {
      // TensorFlow's rule too: "Can only slice a variable along one dimension".
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": a variable is partitioned along one dimension only"));
    }
    if (partitions[d] > shape.dim_size(d)) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": dimension ", d, " has only ", shape.dim_size(d), " elements"));
    }
    axis = d;
    num_parts = partitions[d];
  }
  if (options.save_slice_info.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": its options cannot carry a save_slice_info of their own"));
  }

  const Scope s = scope.NewSubScope(name);
  PartitionedVariable pv;
  pv.name_ = s.prefix();
  pv.shape_ = shape;
  pv.axis_ = axis;
  const int64_t n = shape.dim_size(axis);
  int64_t offset = 0;
  for (int i = 0; i < num_parts; ++i) {
    const int64_t len = n / num_parts + (i < n % num_parts ? 1 : 0);
    SaveSliceInfo info;
    info.full_name = pv.name_;
    info.full_shape.assign(shape.dim_sizes().begin(), shape.dim_sizes().end());
    info.var_offset.assign(shape.dims(), 0);
    info.var_shape = info.full_shape;
    info.var_offset[axis] = offset;
    info.var_shape[axis] = len;
    const std::string part = absl::StrCat("part_", i);
    Output part_init = initial_value;
    if (num_parts > 1) {
      const std::string at = part + "/initial_value";
      Output begin = ops::Const(s.WithOpName(at + "/begin"), Int64Vector(info.var_offset));
      Output size = ops::Const(s.WithOpName(at + "/size"), Int64Vector(info.var_shape));
      part_init = ops::Slice(s.WithOpName(at), initial_value, begin, size);
    }
    VariableOptions part_options = options;
    part_options.save_slice_info = std::move(info);
    pv.parts_.push_back(Variable::Create(s, part, part_init, part_options));
    offset += len;
  }
  MG_RETURN_IF_ERROR(scope.status());
  return pv;
}

absl::StatusOr<PartitionedVariable> PartitionedVariable::Create(const Scope& scope,
                                                                absl::string_view name,
                                                                const Tensor& initial_value,
                                                                const std::vector<int>& partitions,
                                                                const VariableOptions& options) {
  const std::string full = scope.UniqueName(name);
  const std::string base = scope.prefix().empty() ? full : full.substr(scope.prefix().size() + 1);
  Output init = ops::Const(scope.WithOpName(absl::StrCat(base, "/initial_value")), initial_value);
  return Create(scope, base, init, partitions, options);
}

std::vector<Output> PartitionedVariable::values() const {
  std::vector<Output> out;
  for (const Variable& v : parts_) out.push_back(v.value());
  return out;
}

Output PartitionedVariable::AsTensor(const Scope& scope) const {
  const Scope s = scope.NewSubScope(name_ + "/ConcatPartitions");
  if (parts_.size() == 1) return ops::Identity(s.WithOpName("concat"), parts_[0].value());
  std::vector<Output> values;
  for (const Variable& v : parts_) values.push_back(v.value());
  return ops::ConcatV2(s.WithOpName("concat"), values,
                       ops::Const(s.WithOpName("concat/axis"), static_cast<int32_t>(axis_)));
}

std::vector<int> FixedSizePartitions(const TensorShape& shape, int num_shards, int axis) {
  std::vector<int> partitions(shape.dims(), 1);
  if (axis >= 0 && axis < shape.dims()) {
    partitions[axis] =
        static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(num_shards, shape.dim_size(axis))));
  }
  return partitions;
}

absl::StatusOr<Variable> Variable::ReplaceInitialValue(const Scope& scope,
                                                       Output initial_value) const {
  if (BaseType(initial_value.dtype()) != dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "variable '", name(), "' is ", DataTypeString(dtype()), "; its initial value cannot be ",
        DataTypeString(BaseType(initial_value.dtype())), " ('", initial_value.name(), "')"));
  }
  if (!PartialShape::Merge(shape_, initial_value.shape()).ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("variable '", name(), "' has shape ", shape_.DebugString(),
                     "; its initial value cannot have shape ", initial_value.shape().DebugString(),
                     " ('", initial_value.name(), "')"));
  }
  Variable v = *this;
  v.initial_value_ = initial_value;
  if (is_resource()) {
    v.initializer_ =
        Output(ops::AssignVariableOp(scope.WithOpName("Assign"), ref_, initial_value), 0);
  } else {
    v.initializer_ = ops::Assign(scope.WithOpName("Assign"), ref_, initial_value,
                                 /*validate_shape=*/shape_.IsFullyDefined());
  }
  MG_RETURN_IF_ERROR(scope.status());
  const VariableDef def = v.ToDef();
  for (const char* key : {kGlobalVariables, kLocalVariables, kTrainableVariables}) {
    scope.EditCollection(key, [&](std::string* bytes) {
      VariableDef old;
      if (old.ParseFromString(*bytes) && old.variable_name() == def.variable_name()) {
        VariableDef updated = old;  // keeps trainable and the rest
        updated.set_initializer_name(def.initializer_name());
        updated.set_initial_value_name(def.initial_value_name());
        *bytes = updated.SerializeAsString();
      }
    });
  }
  return v;
}

std::vector<Variable> GetVariables(const Scope& scope, const std::string& collection) {
  std::vector<Variable> out;
  for (const std::string& bytes : scope.GetCollection(collection)) {
    VariableDef def;
    if (!def.ParseFromString(bytes)) continue;
    absl::StatusOr<Variable> v = Variable::FromDef(scope, def);
    if (v.ok()) out.push_back(*std::move(v));
  }
  return out;
}

std::vector<Variable> GlobalVariables(const Scope& scope) {
  return GetVariables(scope, kGlobalVariables);
}
std::vector<Variable> LocalVariables(const Scope& scope) {
  return GetVariables(scope, kLocalVariables);
}
std::vector<Variable> TrainableVariables(const Scope& scope) {
  return GetVariables(scope, kTrainableVariables);
}

Operation VariablesInitializer(const Scope& scope, const std::vector<Variable>& vars,
                               absl::string_view name) {
  std::vector<Operation> inits;
  for (const Variable& v : vars) inits.push_back(v.initializer());
  return ops::Group(scope.WithOpName(name), inits);
}

Operation GlobalVariablesInitializer(const Scope& scope) {
  return VariablesInitializer(scope, GlobalVariables(scope));
}

Operation LocalVariablesInitializer(const Scope& scope) {
  return VariablesInitializer(scope, LocalVariables(scope));
}

namespace {

// The variables a report without an explicit list covers: global then local
// variables; when both collections are empty, every VariableV2 (or legacy
// "Variable") op of the graph, as TensorFlow does for old-style variables
// built outside the collections or graphs imported without them.
std::vector<Output> DefaultVariableRefs(const Scope& scope) {
  std::vector<Output> refs;
  for (const Variable& v : GlobalVariables(scope)) refs.push_back(v.ref());
  for (const Variable& v : LocalVariables(scope)) refs.push_back(v.ref());
  if (!refs.empty()) return refs;
  for (const Operation& op : scope.AllOps()) {
    const std::string& type = scope.GetNodeDef(op).op();
    if (type == "VariableV2" || type == "Variable" || type == "VarHandleOp") {
      refs.push_back(op.output(0));
    }
  }
  return refs;
}

std::vector<Output> Refs(const std::vector<Variable>& vars) {
  std::vector<Output> refs;
  for (const Variable& v : vars) refs.push_back(v.ref());
  return refs;
}

Output ReportUninitialized(const Scope& scope, const std::vector<Output>& refs) {
  const Scope s = scope.NewSubScope("report_uninitialized_variables");
  if (refs.empty()) {
    return ops::Const(s, Tensor(DT_STRING, TensorShape({0})));
  }
  std::vector<Output> is_init;
  Tensor names(DT_STRING, TensorShape({static_cast<int64_t>(refs.size())}));
  for (size_t i = 0; i < refs.size(); ++i) {
    is_init.push_back(refs[i].dtype() == DT_RESOURCE ? ops::VarIsInitializedOp(s, refs[i])
                                                     : ops::IsVariableInitialized(s, refs[i]));
    names.data<std::string>()[i] = refs[i].op().name();
  }
  Output mask = ops::LogicalNot(s, ops::Pack(s, is_init));
  const Scope bm = s.NewSubScope("boolean_mask");
  Output where = ops::Where(bm, mask);
  Output indices = ops::Reshape(bm, where, ops::Const<int64_t>(bm, {-1}));
  return ops::GatherV2(bm, ops::Const(s, names), indices, ops::Const<int32_t>(bm, 0));
}

Output AssertInitialized(const Scope& scope, const std::vector<Output>& refs) {
  std::vector<Output> ranks;
  for (const Output& ref : refs) {
    // A resource variable's read fails while it has no value.
    ranks.push_back(ops::Rank(scope, ref.dtype() == DT_RESOURCE
                                         ? ops::ReadVariableOp(scope, ref, HandleDtype(scope, ref))
                                         : ref));
  }
  if (ranks.size() == 1) return ranks[0];
  return ops::Pack(scope, ranks);
}

}  // namespace

Output ReportUninitializedVariables(const Scope& scope, const std::vector<Variable>& vars) {
  return ReportUninitialized(scope, Refs(vars));
}

Output ReportUninitializedVariables(const Scope& scope) {
  return ReportUninitialized(scope, DefaultVariableRefs(scope));
}

Output AssertVariablesInitialized(const Scope& scope, const std::vector<Variable>& vars) {
  return AssertInitialized(scope, Refs(vars));
}

Output AssertVariablesInitialized(const Scope& scope) {
  return AssertInitialized(scope, DefaultVariableRefs(scope));
}

}  // namespace minigraph
