// Optimizer updates applied to variables in place.
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace ops_internal {
namespace {

// Of the inputs (the variable and its slots first), `same` must all have
// the variable's shape and `scalars` must be scalars. In the resource form
// the variables' shapes are those their handles carry.
ShapeFn ApplyShape(bool resource, std::vector<int> same, std::vector<int> scalars) {
  return [=](InferenceContext* c) -> absl::Status {
    PartialShape s = c->input(0);
    for (int i : same) {
      auto merged = PartialShape::Merge(s, c->input(i));
      if (!merged.ok()) {
        return c->Error(absl::StrCat(
            "input ", i, " must have the variable's shape: ", merged.status().message()));
      }
      s = *merged;
    }
    for (int i : scalars) {
      if (c->input(i).rank_known() && c->input(i).rank() != 0) {
        return c->Error(
            absl::StrCat("input ", i, " must be a scalar, got shape ", c->input(i).DebugString()));
      }
    }
    if (!resource) c->set_output(0, s);
    return absl::OkStatus();
  };
}

// Registers TensorFlow's pair of definitions for one update: `name`, whose
// variable and slots (`vars`) are Ref(T) inputs and which outputs the
// variable, and "Resource<name>", where they are resource handles (resource
// variables) and which has no output. `inputs` are the other inputs, of
// type T unless they say ("global_step: int64"); `same` and `scalars` index
// all inputs, `vars` first.
void RegisterApply(OpRegistry* r, const std::string& name, const std::vector<std::string>& vars,
                   const std::vector<std::string>& inputs, const std::vector<std::string>& attrs,
                   const std::vector<int>& same, const std::vector<int>& scalars) {
  for (bool resource : {false, true}) {
    OpDefBuilder b(resource ? "Resource" + name : name);
    for (const std::string& v : vars) b.Input(v + (resource ? ": resource" : ": Ref(T)"));
    for (const std::string& in : inputs) {
      b.Input(absl::StrContains(in, ':') ? in : in + ": T");
    }
    if (!resource) b.Output("out: Ref(T)");
    b.Attr("T: {float, double}").Attr("use_locking: bool = false");
    for (const std::string& a : attrs) b.Attr(a);
    if (resource) b.SetIsStateful();
    b.SetShapeFn(ApplyShape(resource, same, scalars));
    MG_REGISTER_OP(r, b);
  }
}

}  // namespace

void RegisterTrainingOps(OpRegistry* r) {
  RegisterApply(r, "ApplyGradientDescent", {"var"}, {"alpha", "delta"}, {}, {2}, {1});
  RegisterApply(r, "ApplyMomentum", {"var", "accum"}, {"lr", "grad", "momentum"},
                {"use_nesterov: bool = false"}, {1, 3}, {2, 4});
  RegisterApply(r, "ApplyAdam", {"var", "m", "v"},
                {"beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"},
                {"use_nesterov: bool = false"}, {1, 2, 9}, {3, 4, 5, 6, 7, 8});
  RegisterApply(r, "ApplyRMSProp", {"var", "ms", "mom"},
                {"lr", "rho", "momentum", "epsilon", "grad"}, {}, {1, 2, 7}, {3, 4, 5, 6});
  RegisterApply(r, "ApplyAdagrad", {"var", "accum"}, {"lr", "grad"}, {"update_slots: bool = true"},
                {1, 3}, {2});
  RegisterApply(r, "ApplyAdadelta", {"var", "accum", "accum_update"},
                {"lr", "rho", "epsilon", "grad"}, {}, {1, 2, 6}, {3, 4, 5});
  RegisterApply(r, "ApplyFtrl", {"var", "accum", "linear"}, {"grad", "lr", "l1", "l2", "lr_power"},
                {"multiply_linear_by_lr: bool = false"}, {1, 2, 3}, {4, 5, 6, 7});
  RegisterApply(r, "ApplyCenteredRMSProp", {"var", "mg", "ms", "mom"},
                {"lr", "rho", "momentum", "epsilon", "grad"}, {}, {1, 2, 3, 8}, {4, 5, 6, 7});
  RegisterApply(r, "ApplyProximalGradientDescent", {"var"}, {"alpha", "l1", "l2", "delta"}, {},
                {4}, {1, 2, 3});
  RegisterApply(r, "ApplyProximalAdagrad", {"var", "accum"}, {"lr", "l1", "l2", "grad"}, {},
                {1, 5}, {2, 3, 4});
  RegisterApply(r, "ApplyAdagradDA",
                {"var", "gradient_accumulator", "gradient_squared_accumulator"},
                {"grad", "lr", "l1", "l2", "global_step: int64"}, {}, {1, 2, 3}, {4, 5, 6, 7});
  // The sparse forms: `grad` holds the rows `indices` of the variable.
  for (bool resource : {false, true}) {
    OpDefBuilder b(resource ? "ResourceSparseApplyAdagrad" : "SparseApplyAdagrad");
    b.Input(resource ? "var: resource" : "var: Ref(T)")
        .Input(resource ? "accum: resource" : "accum: Ref(T)")
        .Input("lr: T")
        .Input("grad: T")
        .Input("indices: Tindices");
    if (!resource) b.Output("out: Ref(T)");
    b.Attr("T: {float, double}")
        .Attr("Tindices: {int32, int64}")
        .Attr("use_locking: bool = false")
        .Attr("update_slots: bool = true");
    if (resource) b.SetIsStateful();
    b.SetShapeFn(ApplyShape(resource, {1}, {2}));
    MG_REGISTER_OP(r, b);
  }
  for (bool resource : {false, true}) {
    OpDefBuilder b(resource ? "ResourceSparseApplyFtrl" : "SparseApplyFtrl");
    for (const char* v : {"var", "accum", "linear"}) {
      b.Input(absl::StrCat(v, resource ? ": resource" : ": Ref(T)"));
    }
    b.Input("grad: T").Input("indices: Tindices");
    for (const char* in : {"lr", "l1", "l2", "lr_power"}) b.Input(absl::StrCat(in, ": T"));
    if (!resource) b.Output("out: Ref(T)");
    b.Attr("T: {float, double}")
        .Attr("Tindices: {int32, int64}")
        .Attr("use_locking: bool = false")
        .Attr("multiply_linear_by_lr: bool = false");
    if (resource) b.SetIsStateful();
    b.SetShapeFn(ApplyShape(resource, {1, 2}, {5, 6, 7, 8}));
    MG_REGISTER_OP(r, b);
  }
}

}  // namespace ops_internal
}  // namespace minigraph
