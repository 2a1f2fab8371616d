#include "runtime/graph/op_def_builder.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/status_macros.h"
#include "core/types.h"

namespace minigraph {
namespace {

absl::string_view Trim(absl::string_view s) { return absl::StripAsciiWhitespace(s); }

// Splits "name: rest" into its parts.
absl::Status SplitNameAndRest(absl::string_view spec, absl::string_view* name,
                              absl::string_view* rest) {
  const size_t colon = spec.find(':');
  if (colon == absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat("expected 'name: ...' in \"", spec, "\""));
  }
  *name = Trim(spec.substr(0, colon));
  *rest = Trim(spec.substr(colon + 1));
  if (name->empty()) {
    return absl::InvalidArgumentError(absl::StrCat("empty name in \"", spec, "\""));
  }
  return absl::OkStatus();
}

absl::Status ParseType(absl::string_view s, DataType* dt) {
  if (!DataTypeFromString(Trim(s), dt)) {
    return absl::InvalidArgumentError(absl::StrCat("unknown type \"", s, "\""));
  }
  return absl::OkStatus();
}

absl::Status ParseArg(absl::string_view spec, const OpDef& op, OpDef::ArgDef* arg) {
  absl::string_view name, type;
  MG_RETURN_IF_ERROR(SplitNameAndRest(spec, &name, &type));
  arg->set_name(std::string(name));
  if (absl::ConsumePrefix(&type, "Ref(")) {
    if (!absl::ConsumeSuffix(&type, ")")) {
      return absl::InvalidArgumentError(absl::StrCat("unclosed Ref( in \"", spec, "\""));
    }
    arg->set_is_ref(true);
  }
  const size_t star = type.find('*');
  if (star != absl::string_view::npos) {
    arg->set_number_attr(std::string(Trim(type.substr(0, star))));
    type = Trim(type.substr(star + 1));
  }
  DataType dt;
  if (DataTypeFromString(type, &dt)) {
    arg->set_type(dt);
    return absl::OkStatus();
  }
  // A type attr or a list(type) attr, declared before or after.
  for (const auto& a : op.attr()) {
    if (a.name() == type) {
      if (a.type() == "type") {
        arg->set_type_attr(std::string(type));
      } else if (a.type() == "list(type)" && arg->number_attr().empty()) {
        arg->set_type_list_attr(std::string(type));
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat("attr ", type, " of type ", a.type(), " cannot type \"", spec, "\""));
      }
      return absl::OkStatus();
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("\"", type, "\" in \"", spec, "\" is neither a type nor an attr"));
}

absl::Status ParseDefault(absl::string_view type, absl::string_view text, AttrValue* out) {
  text = Trim(text);
  auto bad = [&]() {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot parse default \"", text, "\" for attr type ", type));
  };
  if (absl::StartsWith(type, "list(")) {
    if (!absl::ConsumePrefix(&text, "[") || !absl::ConsumeSuffix(&text, "]")) return bad();
    AttrValue::ListValue* list = out->mutable_list();
    if (Trim(text).empty()) return absl::OkStatus();
    for (absl::string_view item : absl::StrSplit(text, ',')) {
      item = Trim(item);
      if (type == "list(int)") {
        int64_t v;
        if (!absl::SimpleAtoi(item, &v)) return bad();
        list->add_i(v);
      } else if (type == "list(type)") {
        DataType dt;
        MG_RETURN_IF_ERROR(ParseType(item, &dt));
        list->add_type(dt);
      } else if (type == "list(string)") {
        if (!absl::ConsumePrefix(&item, "\"") || !absl::ConsumeSuffix(&item, "\"")) return bad();
        list->add_s(std::string(item));
      } else {
        return bad();
      }
    }
    return absl::OkStatus();
  }
  if (type == "bool") {
    if (text == "true") {
      out->set_b(true);
    } else if (text == "false") {
      out->set_b(false);
    } else {
      return bad();
    }
  } else if (type == "int") {
    int64_t v;
    if (!absl::SimpleAtoi(text, &v)) return bad();
    out->set_i(v);
  } else if (type == "float") {
    float v;
    if (!absl::SimpleAtof(text, &v)) return bad();
    out->set_f(v);
  } else if (type == "string") {
    if (!absl::ConsumePrefix(&text, "\"") || !absl::ConsumeSuffix(&text, "\"")) return bad();
    out->set_s(std::string(text));
  } else if (type == "type") {
    DataType dt;
    MG_RETURN_IF_ERROR(ParseType(text, &dt));
    out->set_type(dt);
  } else if (type == "shape") {
    // "unknown", or "{}": a scalar (TensorFlow's default of value_shape).
    if (text == "{}") {
      out->mutable_shape();
    } else if (text == "unknown") {
      out->mutable_shape()->set_unknown_rank(true);
    } else {
      return bad();
    }
  } else {
    return bad();
  }
  return absl::OkStatus();
}

absl::Status ParseAttr(absl::string_view spec, OpDef::AttrDef* attr) {
  absl::string_view name, rest;
  MG_RETURN_IF_ERROR(SplitNameAndRest(spec, &name, &rest));
  attr->set_name(std::string(name));
  absl::string_view type = rest, default_text;
  bool has_default = false;
  // The default's '=' (not the one of ">=").
  size_t eq = rest.find('=');
  while (eq != absl::string_view::npos && eq > 0 && rest[eq - 1] == '>') {
    eq = rest.find('=', eq + 1);
  }
  if (eq != absl::string_view::npos) {
    type = Trim(rest.substr(0, eq));
    default_text = Trim(rest.substr(eq + 1));
    has_default = true;
  }
  const size_t ge = type.find(">=");
  if (ge != absl::string_view::npos) {
    int64_t min;
    if (!absl::SimpleAtoi(Trim(type.substr(ge + 2)), &min)) {
      return absl::InvalidArgumentError(absl::StrCat("bad minimum in \"", spec, "\""));
    }
    attr->set_has_minimum(true);
    attr->set_minimum(min);
    type = Trim(type.substr(0, ge));
  }
  // list({float, int64}): a list of types, each one of those.
  const bool list_of_allowed = absl::StartsWith(type, "list({");
  if (list_of_allowed) {
    if (!absl::ConsumeSuffix(&type, ")")) {
      return absl::InvalidArgumentError(absl::StrCat("unclosed list( in \"", spec, "\""));
    }
    type.remove_prefix(5);
  }
  if (absl::StartsWith(type, "{")) {
    if (!absl::ConsumeSuffix(&type, "}")) {
      return absl::InvalidArgumentError(absl::StrCat("unclosed { in \"", spec, "\""));
    }
    type.remove_prefix(1);
    // {"SAME", "VALID"}: a string with allowed values; {float, int32}: a
    // type with allowed types.
    const bool strings = absl::StartsWith(Trim(type), "\"");
    for (absl::string_view t : absl::StrSplit(type, ',')) {
      if (strings) {
        t = Trim(t);
        if (!absl::ConsumePrefix(&t, "\"") || !absl::ConsumeSuffix(&t, "\"")) {
          return absl::InvalidArgumentError(absl::StrCat("bad string value in \"", spec, "\""));
        }
        attr->mutable_allowed_values()->mutable_list()->add_s(std::string(t));
        continue;
      }
      DataType dt;
      MG_RETURN_IF_ERROR(ParseType(t, &dt));
      attr->mutable_allowed_values()->mutable_list()->add_type(dt);
    }
    type = strings ? "string" : "type";
    if (list_of_allowed) type = strings ? "list(string)" : "list(type)";
  }
  static constexpr absl::string_view kTypes[] = {
      "string",     "int",         "float",        "bool",      "type",        "shape",
      "tensor",     "func",        "list(string)", "list(int)", "list(float)", "list(bool)",
      "list(type)", "list(shape)", "list(tensor)", "list(func)"};
  if (std::find(std::begin(kTypes), std::end(kTypes), type) == std::end(kTypes)) {
    return absl::InvalidArgumentError(absl::StrCat("unknown attr type in \"", spec, "\""));
  }
  attr->set_type(std::string(type));
  if (has_default) {
    MG_RETURN_IF_ERROR(ParseDefault(type, default_text, attr->mutable_default_value()));
  }
  return absl::OkStatus();
}

}  // namespace

OpDefBuilder::OpDefBuilder(std::string op_name) {
  data_.op_def.set_name(std::move(op_name));
}

OpDefBuilder& OpDefBuilder::Input(std::string spec) {
  inputs_.push_back(std::move(spec));
  return *this;
}
OpDefBuilder& OpDefBuilder::Output(std::string spec) {
  outputs_.push_back(std::move(spec));
  return *this;
}
OpDefBuilder& OpDefBuilder::Attr(std::string spec) {
  attrs_.push_back(std::move(spec));
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsStateful() {
  data_.op_def.set_is_stateful(true);
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsCommutative() {
  data_.op_def.set_is_commutative(true);
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsAggregate() {
  data_.op_def.set_is_aggregate(true);
  return *this;
}
OpDefBuilder& OpDefBuilder::SetAllowsUninitializedInput() {
  data_.op_def.set_allows_uninitialized_input(true);
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsDistributedCommunication() {
  data_.op_def.set_is_distributed_communication(true);
  return *this;
}
OpDefBuilder& OpDefBuilder::SetShapeFn(ShapeFn fn) {
  data_.shape_fn = std::move(fn);
  return *this;
}
OpDefBuilder& OpDefBuilder::Deprecated(int version, std::string explanation) {
  data_.op_def.mutable_deprecation()->set_version(version);
  data_.op_def.mutable_deprecation()->set_explanation(std::move(explanation));
  return *this;
}
OpDefBuilder& OpDefBuilder::Doc(std::string summary) {
  data_.op_def.set_summary(std::move(summary));
  return *this;
}

absl::StatusOr<OpRegistrationData> OpDefBuilder::Finalize() const {
  OpRegistrationData out = data_;
  OpDef& op = out.op_def;
  const std::string where = absl::StrCat("op ", op.name(), ": ");
  for (const std::string& spec : attrs_) {
    MG_RETURN_WITH_CONTEXT_IF_ERROR(ParseAttr(spec, op.add_attr()), where);
  }
  for (const std::string& spec : inputs_) {
    MG_RETURN_WITH_CONTEXT_IF_ERROR(ParseArg(spec, op, op.add_input_arg()), where);
  }
  for (const std::string& spec : outputs_) {
    MG_RETURN_WITH_CONTEXT_IF_ERROR(ParseArg(spec, op, op.add_output_arg()), where);
  }
  return out;
}

}  // namespace minigraph
