// Optimizer updates applied to variables in place.
#include "absl/strings/str_cat.h"
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/ops/standard_ops.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace {

constexpr char kFloat[] = "T: {float, double}";

// Inputs `same` must all have the variable's shape; `scalars` must be scalars.
ShapeFn ApplyShape(std::vector<int> same, std::vector<int> scalars) {
  return [same, scalars](InferenceContext* c) -> absl::Status {
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
    c->set_output(0, s);
    return absl::OkStatus();
  };
}

}  // namespace

void RegisterTrainingOps(OpRegistry* r) {
  MG_REGISTER_OP(r, OpDefBuilder("ApplyGradientDescent")
                        .Input("var: Ref(T)")
                        .Input("alpha: T")
                        .Input("delta: T")
                        .Output("out: Ref(T)")
                        .Attr(kFloat)
                        .Attr("use_locking: bool = false")
                        .SetShapeFn(ApplyShape({2}, {1})));
  MG_REGISTER_OP(r, OpDefBuilder("ApplyMomentum")
                        .Input("var: Ref(T)")
                        .Input("accum: Ref(T)")
                        .Input("lr: T")
                        .Input("grad: T")
                        .Input("momentum: T")
                        .Output("out: Ref(T)")
                        .Attr(kFloat)
                        .Attr("use_locking: bool = false")
                        .Attr("use_nesterov: bool = false")
                        .SetShapeFn(ApplyShape({1, 3}, {2, 4})));
  MG_REGISTER_OP(r, OpDefBuilder("ApplyAdam")
                        .Input("var: Ref(T)")
                        .Input("m: Ref(T)")
                        .Input("v: Ref(T)")
                        .Input("beta1_power: T")
                        .Input("beta2_power: T")
                        .Input("lr: T")
                        .Input("beta1: T")
                        .Input("beta2: T")
                        .Input("epsilon: T")
                        .Input("grad: T")
                        .Output("out: Ref(T)")
                        .Attr(kFloat)
                        .Attr("use_locking: bool = false")
                        .Attr("use_nesterov: bool = false")
                        .SetShapeFn(ApplyShape({1, 2, 9}, {3, 4, 5, 6, 7, 8})));
  MG_REGISTER_OP(r, OpDefBuilder("ApplyRMSProp")
                        .Input("var: Ref(T)")
                        .Input("ms: Ref(T)")
                        .Input("mom: Ref(T)")
                        .Input("lr: T")
                        .Input("rho: T")
                        .Input("momentum: T")
                        .Input("epsilon: T")
                        .Input("grad: T")
                        .Output("out: Ref(T)")
                        .Attr(kFloat)
                        .Attr("use_locking: bool = false")
                        .SetShapeFn(ApplyShape({1, 2, 7}, {3, 4, 5, 6})));
  MG_REGISTER_OP(r, OpDefBuilder("ApplyAdagrad")
                        .Input("var: Ref(T)")
                        .Input("accum: Ref(T)")
                        .Input("lr: T")
                        .Input("grad: T")
                        .Output("out: Ref(T)")
                        .Attr(kFloat)
                        .Attr("use_locking: bool = false")
                        .Attr("update_slots: bool = true")
                        .SetShapeFn(ApplyShape({1, 3}, {2})));
}

}  // namespace minigraph
