// Gradients of the TensorList ops (TensorFlow 2's TensorArrays: what Keras'
// recurrent layers and while_v2 use), as TensorFlow's list_ops gradients
// compute them. A list's gradient is a list of its items' gradients; an
// item nothing flows back to stays unset, which reads as zeros.

#include <vector>

#include "runtime/cc/gradients.h"
#include "runtime/cc/internal/gradient_families.h"
#include "runtime/cc/ops.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {
namespace {

using Grads = std::vector<Output>;

AttrValue ElementDtype(const Scope& s, const Operation& op) {
  return s.GetNodeDef(op).attr().at("element_dtype");
}

Output UnknownShape(const Scope& s) { return ops::Const<int32_t>(s, -1); }

}  // namespace

void gradients_internal::RegisterListGradients(GradientRegistry* r) {
  // FromTensor(t) -> list of t's rows: d(t) stacks the rows' gradients.
  r->Register(
      "TensorListFromTensor", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
        const Output element_shape = s.GetInputs(op)[1];
        *dx = {s.AddOp("TensorListStack", {{dy[0]}, {ops::Cast(s, element_shape, DT_INT32)}},
                       {{"element_dtype", ElementDtype(s, op)}})
                   .output(0),
               Output()};
        return s.status();
      });
  // Stack(list) -> t: d(list) is dt's rows as a list.
  r->Register("TensorListStack", [](const Scope& s, const Operation& op, const Grads& dy,
                                    Grads* dx) {
    *dx = {
        s.AddOp("TensorListFromTensor", {{dy[0]}, {UnknownShape(s)}},
                {{"element_dtype", ElementDtype(s, op)}, {"shape_type", MakeAttrValue(DT_INT32)}})
            .output(0),
        Output()};
    return s.status();
  });
  // GetItem(list, i) -> item: d(list) is a list as long, with dy at i.
  r->Register("TensorListGetItem", [](const Scope& s, const Operation& op, const Grads& dy,
                                      Grads* dx) {
    const std::vector<Output> in = s.GetInputs(op);
    Output length = s.AddOp("TensorListLength", {{in[0]}}).output(0);
    Output reserved =
        s.AddOp("TensorListReserve", {{UnknownShape(s)}, {length}},
                {{"element_dtype", ElementDtype(s, op)}, {"shape_type", MakeAttrValue(DT_INT32)}})
            .output(0);
    *dx = {s.AddOp("TensorListSetItem", {{reserved}, {in[1]}, {dy[0]}}).output(0), Output(),
           Output()};
    return s.status();
  });
  // SetItem(list, i, item) -> list': d(item) is d(list')'s item i (zeros of
  // item's shape when unset); d(list) is d(list') with zeros at i.
  r->Register(
      "TensorListSetItem", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
        const std::vector<Output> in = s.GetInputs(op);
        Output ditem = s.AddOp("TensorListGetItem", {{dy[0]}, {in[1]}, {ops::Shape(s, in[2])}},
                               {{"element_dtype", ElementDtype(s, op)}})
                           .output(0);
        Output dlist =
            s.AddOp("TensorListSetItem", {{dy[0]}, {in[1]}, {ops::ZerosLike(s, in[2])}}).output(0);
        *dx = {dlist, Output(), ditem};
        return s.status();
      });
  // PushBack(list, item) -> list': d(list), d(item) = PopBack(d(list')).
  r->Register("TensorListPushBack",
              [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
                const std::vector<Output> in = s.GetInputs(op);
                Operation pop = s.AddOp("TensorListPopBack", {{dy[0]}, {ops::Shape(s, in[1])}},
                                        {{"element_dtype", ElementDtype(s, op)}});
                *dx = {pop.output(0), pop.output(1)};
                return s.status();
              });
  // PopBack(list) -> list', item: d(list) = PushBack(d(list'), d(item))
  // (TensorFlow's _PopBackGrad; a missing d(list') is a list of unset
  // items, a missing d(item) zeros).
  r->Register("TensorListPopBack",
              [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
                *dx = {s.AddOp("TensorListPushBack", {{dy[0]}, {dy[1]}}).output(0), Output()};
                return s.status();
              });
  // Optionals (TensorFlow's _OptionalFromValueGrad, _OptionalGetValueGrad):
  // the gradient of the values wrapped is that of the values unwrapped,
  // and the other way round.
  r->Register("OptionalFromValue",
              [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
                AttrValue types, shapes;
                for (const Output& c : s.GetInputs(op)) {
                  types.mutable_list()->add_type(BaseType(c.dtype()));
                  c.shape().AsProto(shapes.mutable_list()->add_shape());
                }
                Operation get = s.AddOp("OptionalGetValue", {{dy[0]}},
                                        {{"output_types", types}, {"output_shapes", shapes}});
                dx->clear();
                for (int i = 0; i < get.num_outputs(); ++i) dx->push_back(get.output(i));
                return s.status();
              });
  r->Register("OptionalGetValue",
              [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
                *dx = {s.AddOp("OptionalFromValue", {dy}).output(0)};
                return s.status();
              });
  for (const char* op : {"EmptyTensorList", "TensorListReserve", "TensorListLength"}) {
    r->RegisterNoGradient(op);
  }
}

}  // namespace minigraph
