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

// Registers an update's definitions: "Apply<name>", whose variable and
// slots (`vars`) are Ref(T) inputs and which outputs the variable, and
// "ResourceApply<name>", where they are resource handles (resource
// variables) and which has no output; with `sparse`, "SparseApply<name>"
// and "ResourceSparseApply<name>" too, whose `grad` holds the rows of the
// variables that `indices` (the input after it) names. `inputs` are the
// other inputs, of type T unless they say ("global_step: int64"), each a
// scalar but the gradient ("grad", or "delta" in the dense forms). With
// `resource_only` (tf_keras' updates) TensorFlow has the resource forms
// only.
void RegisterApply(OpRegistry* r, const std::string& name, const std::vector<std::string>& vars,
                   const std::vector<std::string>& inputs, const std::vector<std::string>& attrs,
                   bool sparse, bool resource_only = false) {
  for (bool rows : {false, true}) {
    if (rows && !sparse) continue;
    for (bool resource : {false, true}) {
      if (resource_only && !resource) continue;
      OpDefBuilder b(absl::StrCat(resource ? "Resource" : "", rows ? "SparseApply" : "Apply",
                                  name));
      std::vector<int> same, scalars;
      int index = 0;
      for (const std::string& v : vars) {
        b.Input(v + (resource ? ": resource" : ": Ref(T)"));
        if (index++ > 0) same.push_back(index - 1);
      }
      for (const std::string& in : inputs) {
        const bool grad = in == "grad" || in == "delta";
        b.Input(grad && rows ? "grad: T" : absl::StrContains(in, ':') ? in : in + ": T");
        if (!grad) {
          scalars.push_back(index++);
        } else if (!rows) {
          same.push_back(index++);
        } else {
          b.Input("indices: Tindices");
          index += 2;
        }
      }
      if (!resource) b.Output("out: Ref(T)");
      b.Attr("T: {float, double}").Attr("use_locking: bool = false");
      if (rows) b.Attr("Tindices: {int32, int64}");
      for (const std::string& a : attrs) b.Attr(a);
      if (resource) b.SetIsStateful();
      b.SetShapeFn(ApplyShape(resource, same, scalars));
      MG_REGISTER_OP(r, b);
    }
  }
}

}  // namespace

void RegisterTrainingOps(OpRegistry* r) {
  const std::string nesterov = "use_nesterov: bool = false";
  const std::string update_slots = "update_slots: bool = true";
  const std::string multiply = "multiply_linear_by_lr: bool = false";
  RegisterApply(r, "GradientDescent", {"var"}, {"alpha", "delta"}, {}, false);
  RegisterApply(r, "ProximalGradientDescent", {"var"}, {"alpha", "l1", "l2", "delta"}, {}, true);
  RegisterApply(r, "Momentum", {"var", "accum"}, {"lr", "grad", "momentum"}, {nesterov}, true);
  RegisterApply(r, "KerasMomentum", {"var", "accum"}, {"lr", "grad", "momentum"}, {nesterov},
                true, /*resource_only=*/true);
  RegisterApply(r, "Adam", {"var", "m", "v"},
                {"beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"},
                {nesterov}, false);
  RegisterApply(r, "AdamWithAmsgrad", {"var", "m", "v", "vhat"},
                {"beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"}, {},
                false, /*resource_only=*/true);
  RegisterApply(r, "AdaMax", {"var", "m", "v"},
                {"beta1_power", "lr", "beta1", "beta2", "epsilon", "grad"}, {}, false);
  RegisterApply(r, "RMSProp", {"var", "ms", "mom"}, {"lr", "rho", "momentum", "epsilon", "grad"},
                {}, true);
  RegisterApply(r, "CenteredRMSProp", {"var", "mg", "ms", "mom"},
                {"lr", "rho", "momentum", "epsilon", "grad"}, {}, true);
  RegisterApply(r, "Adagrad", {"var", "accum"}, {"lr", "grad"}, {update_slots}, true);
  RegisterApply(r, "AdagradV2", {"var", "accum"}, {"lr", "epsilon", "grad"}, {update_slots},
                true);
  RegisterApply(r, "ProximalAdagrad", {"var", "accum"}, {"lr", "l1", "l2", "grad"}, {}, true);
  RegisterApply(r, "Adadelta", {"var", "accum", "accum_update"}, {"lr", "rho", "epsilon", "grad"},
                {}, true);
  RegisterApply(r, "AdagradDA", {"var", "gradient_accumulator", "gradient_squared_accumulator"},
                {"grad", "lr", "l1", "l2", "global_step: int64"}, {}, true);
  RegisterApply(r, "Ftrl", {"var", "accum", "linear"}, {"grad", "lr", "l1", "l2", "lr_power"},
                {multiply}, true);
  RegisterApply(r, "FtrlV2", {"var", "accum", "linear"},
                {"grad", "lr", "l1", "l2", "l2_shrinkage", "lr_power"}, {multiply}, true);
  RegisterApply(r, "AddSign", {"var", "m"}, {"lr", "alpha", "sign_decay", "beta", "grad"}, {},
                false);
  RegisterApply(r, "PowerSign", {"var", "m"}, {"lr", "logbase", "sign_decay", "beta", "grad"}, {},
                false);
}

}  // namespace ops_internal
}  // namespace minigraph
