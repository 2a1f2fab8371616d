#include "runtime/graph/node_def_util.h"

#include <algorithm>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/tensor_proto.h"
#include "runtime/graph/partial_shape.h"

namespace minigraph {
namespace {

// The length of a list attr value of `type` ("list(int)", ...).
int64_t ListLength(const std::string& type, const AttrValue::ListValue& list) {
  if (type == "list(int)") return list.i_size();
  if (type == "list(float)") return list.f_size();
  if (type == "list(string)") return list.s_size();
  if (type == "list(bool)") return list.b_size();
  if (type == "list(shape)") return list.shape_size();
  if (type == "list(tensor)") return list.tensor_size();
  if (type == "list(func)") return list.func_size();
  return list.type_size();
}

absl::StatusOr<const AttrValue*> Find(const NodeDef& node, absl::string_view name) {
  auto it = node.attr().find(std::string(name));
  if (it == node.attr().end()) {
    return absl::NotFoundError(
        absl::StrCat("node '", node.name(), "' (", node.op(), ") has no attr named '", name, "'"));
  }
  return &it->second;
}

absl::Status WrongType(const NodeDef& node, absl::string_view name, absl::string_view want) {
  return absl::InvalidArgumentError(absl::StrCat("attr '", name, "' of node '", node.name(),
                                                 "' (", node.op(), ") is not a ", want));
}

// The attr type of an AttrValue, as OpDef spells it ("list(int)", ...).
std::string AttrValueType(const AttrValue& v) {
  switch (v.value_case()) {
    case AttrValue::kS: return "string";
    case AttrValue::kI: return "int";
    case AttrValue::kF: return "float";
    case AttrValue::kB: return "bool";
    case AttrValue::kType: return "type";
    case AttrValue::kShape: return "shape";
    case AttrValue::kTensor: return "tensor";
    case AttrValue::kFunc: return "func";
    case AttrValue::kPlaceholder: return "placeholder";
    case AttrValue::kList: {
      const auto& l = v.list();
      if (l.s_size()) return "list(string)";
      if (l.i_size()) return "list(int)";
      if (l.f_size()) return "list(float)";
      if (l.b_size()) return "list(bool)";
      if (l.type_size()) return "list(type)";
      if (l.shape_size()) return "list(shape)";
      if (l.tensor_size()) return "list(tensor)";
      return "list";  // empty: matches any list type
    }
    case AttrValue::VALUE_NOT_SET:
      return "";
  }
  return "";
}

}  // namespace

#define MG_GET_SCALAR_ATTR(TYPE, CASE, ACCESSOR, NAME)                                 \
  absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name, TYPE* value) { \
    MG_ASSIGN_OR_RETURN(const AttrValue* v, Find(node, name));                         \
    if (v->value_case() != AttrValue::CASE) return WrongType(node, name, NAME);        \
    *value = static_cast<TYPE>(v->ACCESSOR());                                         \
    return absl::OkStatus();                                                           \
  }
MG_GET_SCALAR_ATTR(std::string, kS, s, "string")
MG_GET_SCALAR_ATTR(int64_t, kI, i, "int")
MG_GET_SCALAR_ATTR(int32_t, kI, i, "int")
MG_GET_SCALAR_ATTR(float, kF, f, "float")
MG_GET_SCALAR_ATTR(bool, kB, b, "bool")
MG_GET_SCALAR_ATTR(DataType, kType, type, "type")
#undef MG_GET_SCALAR_ATTR

absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name, PartialShape* value) {
  MG_ASSIGN_OR_RETURN(const AttrValue* v, Find(node, name));
  if (v->value_case() != AttrValue::kShape) return WrongType(node, name, "shape");
  *value = PartialShape::FromProto(v->shape());
  return absl::OkStatus();
}

absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name, Tensor* value) {
  MG_ASSIGN_OR_RETURN(const AttrValue* v, Find(node, name));
  if (v->value_case() != AttrValue::kTensor) return WrongType(node, name, "tensor");
  auto t = TensorFromProto(v->tensor());
  if (!t.ok()) {
    return AddContext(t.status(), absl::StrCat("attr '", name, "' of node '", node.name(), "'"));
  }
  *value = *std::move(t);
  return absl::OkStatus();
}

#define MG_GET_LIST_ATTR(TYPE, FIELD, NAME)                                             \
  absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,                \
                           std::vector<TYPE>* value) {                                 \
    MG_ASSIGN_OR_RETURN(const AttrValue* v, Find(node, name));                         \
    if (v->value_case() != AttrValue::kList) return WrongType(node, name, NAME);       \
    value->clear();                                                                    \
    for (const auto& e : v->list().FIELD()) value->push_back(static_cast<TYPE>(e));    \
    return absl::OkStatus();                                                           \
  }
MG_GET_LIST_ATTR(int64_t, i, "list(int)")
MG_GET_LIST_ATTR(int32_t, i, "list(int)")
MG_GET_LIST_ATTR(float, f, "list(float)")
MG_GET_LIST_ATTR(DataType, type, "list(type)")
MG_GET_LIST_ATTR(std::string, s, "list(string)")
#undef MG_GET_LIST_ATTR

AttrValue MakeAttrValue(const std::string& value) {
  AttrValue a;
  a.set_s(value);
  return a;
}
AttrValue MakeAttrValue(const char* value) { return MakeAttrValue(std::string(value)); }
AttrValue MakeAttrValue(int64_t value) {
  AttrValue a;
  a.set_i(value);
  return a;
}
AttrValue MakeAttrValue(int value) { return MakeAttrValue(static_cast<int64_t>(value)); }
AttrValue MakeAttrValue(float value) {
  AttrValue a;
  a.set_f(value);
  return a;
}
AttrValue MakeAttrValue(bool value) {
  AttrValue a;
  a.set_b(value);
  return a;
}
AttrValue MakeAttrValue(DataType value) {
  AttrValue a;
  a.set_type(value);
  return a;
}
AttrValue MakeAttrValue(const PartialShape& value) {
  AttrValue a;
  value.AsProto(a.mutable_shape());
  return a;
}
AttrValue MakeAttrValue(const Tensor& value) {
  AttrValue a;
  TensorToProto(value, a.mutable_tensor());
  return a;
}
AttrValue MakeAttrValue(const std::vector<int64_t>& value) {
  AttrValue a;
  a.mutable_list();  // an empty list is still a list
  for (int64_t v : value) a.mutable_list()->add_i(v);
  return a;
}
AttrValue MakeAttrValue(const std::vector<DataType>& value) {
  AttrValue a;
  a.mutable_list();
  for (DataType v : value) a.mutable_list()->add_type(v);
  return a;
}
AttrValue MakeAttrValue(const std::vector<std::string>& value) {
  AttrValue a;
  a.mutable_list();
  for (const auto& v : value) a.mutable_list()->add_s(v);
  return a;
}

void AddDefaultsToNodeDef(const OpDef& op, NodeDef* node) {
  for (const auto& attr : op.attr()) {
    if (attr.has_default_value() && !node->attr().contains(attr.name())) {
      (*node->mutable_attr())[attr.name()] = attr.default_value();
    }
  }
}

absl::Status ValidateNodeAttrs(const NodeDef& node, const OpDef& op) {
  const std::string where = absl::StrCat("node '", node.name(), "' (op ", op.name(), ")");
  for (const auto& attr : op.attr()) {
    auto it = node.attr().find(attr.name());
    if (it == node.attr().end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " is missing attr '", attr.name(), "' of type ", attr.type()));
    }
    const std::string got = AttrValueType(it->second);
    const bool list_ok = got == "list" && attr.type().rfind("list(", 0) == 0;
    if (got != attr.type() && !list_ok) {
      return absl::InvalidArgumentError(absl::StrCat(where, " has attr '", attr.name(),
                                                     "' of type ", got.empty() ? "unset" : got,
                                                     ", expected ", attr.type()));
    }
    if (attr.has_minimum()) {
      // TensorFlow's texts (op_def_util.cc): an int's value, a list's length.
      const bool is_int = attr.type() == "int";
      const int64_t n = is_int ? it->second.i() : ListLength(attr.type(), it->second.list());
      if (n < attr.minimum()) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": ", is_int ? "Value" : "Length", " for attr '", attr.name(),
                         "' of ", n, " must be at least minimum ", attr.minimum()));
      }
    }
    if (attr.has_allowed_values() && attr.type() == "string") {
      const auto& allowed = attr.allowed_values().list().s();
      if (std::find(allowed.begin(), allowed.end(), it->second.s()) == allowed.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, " has attr '", attr.name(), "' = \"", it->second.s(),
                         "\", which is not one of \"", absl::StrJoin(allowed, "\", \""), "\""));
      }
    }
    if (attr.has_allowed_values() && (attr.type() == "type" || attr.type() == "list(type)")) {
      const auto& allowed = attr.allowed_values().list().type();
      std::vector<int> given;
      if (attr.type() == "type") {
        given.push_back(it->second.type());
      } else {
        given.assign(it->second.list().type().begin(), it->second.list().type().end());
      }
      for (int t : given) {
        if (std::find(allowed.begin(), allowed.end(), t) != allowed.end()) continue;
        std::string names;
        for (int a : allowed) {
          absl::StrAppend(&names, names.empty() ? "" : ", ",
                          DataTypeString(static_cast<DataType>(a)));
        }
        return absl::InvalidArgumentError(absl::StrCat(
            where, " has attr '", attr.name(), "' ", attr.type() == "type" ? "=" : "with",
            " ", DataTypeString(static_cast<DataType>(t)),
            ", which is not one of the allowed types {", names, "}"));
      }
    }
  }
  for (const auto& [name, value] : node.attr()) {
    if (name.rfind('_', 0) == 0) continue;  // internal attrs (_class, ...) are allowed
    bool known = false;
    for (const auto& attr : op.attr()) known |= attr.name() == name;
    if (!known) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " has attr '", name, "' that the op does not define"));
    }
  }
  return absl::OkStatus();
}

namespace {

absl::Status ArgTypes(const NodeDef& node, const OpDef::ArgDef& arg, std::vector<DataType>* out) {
  std::vector<DataType> types;
  if (!arg.type_list_attr().empty()) {
    MG_RETURN_IF_ERROR(GetNodeAttr(node, arg.type_list_attr(), &types));
  } else {
    DataType dt = arg.type();
    if (!arg.type_attr().empty()) MG_RETURN_IF_ERROR(GetNodeAttr(node, arg.type_attr(), &dt));
    int64_t n = 1;
    if (!arg.number_attr().empty()) MG_RETURN_IF_ERROR(GetNodeAttr(node, arg.number_attr(), &n));
    types.assign(n, dt);
  }
  for (DataType dt : types) out->push_back(arg.is_ref() ? MakeRefType(dt) : dt);
  return absl::OkStatus();
}

}  // namespace

absl::Status InOutTypesForNode(const NodeDef& node, const OpDef& op,
                               std::vector<DataType>* inputs,
                               std::vector<DataType>* outputs) {
  inputs->clear();
  outputs->clear();
  for (const auto& arg : op.input_arg()) MG_RETURN_IF_ERROR(ArgTypes(node, arg, inputs));
  for (const auto& arg : op.output_arg()) MG_RETURN_IF_ERROR(ArgTypes(node, arg, outputs));
  return absl::OkStatus();
}

absl::Status ArgSizesForNode(const NodeDef& node, const OpDef& op, std::vector<int64_t>* inputs,
                             std::vector<int64_t>* outputs) {
  auto sizes = [&](const auto& args, std::vector<int64_t>* out) -> absl::Status {
    out->clear();
    for (const OpDef::ArgDef& arg : args) {
      int64_t n = 1;
      if (!arg.number_attr().empty()) {
        MG_RETURN_IF_ERROR(GetNodeAttr(node, arg.number_attr(), &n));
      } else if (!arg.type_list_attr().empty()) {
        std::vector<DataType> types;
        MG_RETURN_IF_ERROR(GetNodeAttr(node, arg.type_list_attr(), &types));
        n = static_cast<int64_t>(types.size());
      }
      out->push_back(n);
    }
    return absl::OkStatus();
  };
  MG_RETURN_IF_ERROR(sizes(op.input_arg(), inputs));
  return sizes(op.output_arg(), outputs);
}

std::string TensorId::ToString() const {
  if (control) return absl::StrCat("^", node);
  return index == 0 ? node : absl::StrCat(node, ":", index);
}

absl::StatusOr<TensorId> ParseTensorName(absl::string_view name) {
  TensorId id;
  absl::string_view n = name;
  if (!n.empty() && n[0] == '^') {
    id.control = true;
    n.remove_prefix(1);
  }
  const size_t colon = n.rfind(':');
  if (colon != absl::string_view::npos && !id.control) {
    int index;
    if (!absl::SimpleAtoi(n.substr(colon + 1), &index) || index < 0) {
      return absl::InvalidArgumentError(absl::StrCat("malformed tensor name '", name, "'"));
    }
    id.index = index;
    n = n.substr(0, colon);
  }
  if (n.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("malformed tensor name '", name, "'"));
  }
  id.node = std::string(n);
  return id;
}

}  // namespace minigraph
