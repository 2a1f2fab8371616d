// Calls of the graph's library functions: PartitionedCall (TensorFlow 2's
// tf.function calls), If and While with function branches and bodies; and
// calls of Python functions (PyFunc, PyFuncStateless, EagerPyFunc:
// tf.compat.v1.py_func and tf.py_function), whose kernels only say that
// they need Python.
#include <string>

#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace ops_internal {

void RegisterFunctionalOps(OpRegistry* r) {
  for (const char* op : {"PartitionedCall", "StatefulPartitionedCall"}) {
    OpDefBuilder b(op);
    b.Input("args: Tin")
        .Output("output: Tout")
        .Attr("Tin: list(type) >= 0")
        .Attr("Tout: list(type) >= 0")
        .Attr("f: func")
        .Attr("config: string = \"\"")
        .Attr("config_proto: string = \"\"")
        .Attr("executor_type: string = \"\"")
        .SetShapeFn(shape_fn::Unknown);
    if (std::string(op) == "StatefulPartitionedCall") {
      b.SetIsStateful().SetIsDistributedCommunication();
    }
    MG_REGISTER_OP(r, b);
  }
  for (const char* op : {"If", "StatelessIf"}) {
    OpDefBuilder b(op);
    b.Input("cond: Tcond")
        .Input("input: Tin")
        .Output("output: Tout")
        .Attr("Tcond: type")
        .Attr("Tin: list(type) >= 0")
        .Attr("Tout: list(type) >= 0")
        .Attr("then_branch: func")
        .Attr("else_branch: func")
        .Attr("output_shapes: list(shape) = []")
        .SetShapeFn(shape_fn::OutputShapesAttr);
    if (std::string(op) == "If") b.SetIsStateful();
    MG_REGISTER_OP(r, b);
  }
  // The function lives in the Python process that built the graph (its
  // `token` names it in that process's registry).
  for (const char* op : {"PyFunc", "PyFuncStateless", "EagerPyFunc"}) {
    OpDefBuilder b(op);
    b.Input("input: Tin")
        .Output("output: Tout")
        .Attr("token: string")
        .Attr("Tin: list(type) >= 0")
        .Attr("Tout: list(type) >= 0")
        .SetShapeFn(shape_fn::Unknown);
    if (std::string(op) == "EagerPyFunc") b.Attr("is_async: bool = false");
    if (std::string(op) != "PyFuncStateless") b.SetIsStateful();
    MG_REGISTER_OP(r, b);
  }
  for (const char* op : {"While", "StatelessWhile"}) {
    OpDefBuilder b(op);
    b.Input("input: T")
        .Output("output: T")
        .Attr("T: list(type) >= 0")
        .Attr("cond: func")
        .Attr("body: func")
        .Attr("output_shapes: list(shape) = []")
        .Attr("parallel_iterations: int = 10")
        .SetShapeFn(shape_fn::OutputShapesAttr);
    if (std::string(op) == "While") b.SetIsStateful();
    MG_REGISTER_OP(r, b);
  }
}

}  // namespace ops_internal
}  // namespace minigraph
