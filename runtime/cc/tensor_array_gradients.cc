// Gradients of TensorFlow 1's TensorArray ops, as TensorFlow's
// tensor_array_grad.py builds them. The gradient of an array is a second
// array (TensorArrayGradV3) found by the forward array and the gradient
// computation's name ("gradients", "gradients_1", ...), so every op of one
// tf.gradients call writes and reads the same one: a Read's gradient writes
// into it, a Write's reads back what was written there (zeros when
// nothing was). The flows order those accesses: a Read's gradient runs
// after the forward writes (it takes the read's flow), a Write's after
// every later access's gradient (it takes the gradient of its flow out).

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "runtime/cc/gradients.h"
#include "runtime/cc/internal/gradient_families.h"
#include "runtime/cc/ops.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {
namespace {

using Grads = std::vector<Output>;

// TensorFlow's _GetGradSource: the name scope up to the last component
// that starts with "gradients".
std::string GradSource(const Scope& s) {
  std::vector<std::string> parts = absl::StrSplit(s.prefix(), '/');
  for (size_t i = parts.size(); i-- > 0;) {
    if (absl::StartsWith(parts[i], "gradients")) {
      parts.resize(i + 1);
      return absl::StrJoin(parts, "/");
    }
  }
  return "gradients";
}

// The gradient array of `handle`, after `flow`: (handle, flow).
Operation GradArray(const Scope& s, const Output& handle, const Output& flow) {
  return s.AddOp("TensorArrayGradV3", {{handle}, {flow}},
                 {{"source", MakeAttrValue(GradSource(s))}});
}

AttrValue Attr(const Scope& s, const Operation& op, const char* name) {
  return s.GetNodeDef(op).attr().at(name);
}

}  // namespace

void gradients_internal::RegisterTensorArrayGradients(GradientRegistry* r) {
  // value = Read(ta, i): d(flow) is a write of dvalue at i of ta's gradient.
  r->Register("TensorArrayReadV3", [](const Scope& s, const Operation& op, const Grads& dy,
                                      Grads* dx) {
    const Grads in = s.GetInputs(op);
    Operation g = GradArray(s, in[0], in[2]);
    Output w =
        s.AddOp("TensorArrayWriteV3", {{g.output(0)}, {in[1]}, {dy[0]}, {g.output(1)}}).output(0);
    *dx = {Output(), Output(), w};
    return s.status();
  });
  // flow' = Write(ta, i, value): d(value) is item i of ta's gradient.
  r->Register("TensorArrayWriteV3",
              [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
                const Grads in = s.GetInputs(op);
                Operation g = GradArray(s, in[0], dy[0]);
                Output read = s.AddOp("TensorArrayReadV3", {{g.output(0)}, {in[1]}, {g.output(1)}},
                                      {{"dtype", Attr(s, op, "T")}})
                                  .output(0);
                *dx = {Output(), Output(), read, dy[0]};
                return s.status();
              });
  // value = Gather(ta, indices): d(flow) scatters dvalue's rows to indices.
  r->Register("TensorArrayGatherV3", [](const Scope& s, const Operation& op, const Grads& dy,
                                        Grads* dx) {
    const Grads in = s.GetInputs(op);
    Operation g = GradArray(s, in[0], in[2]);
    Output u =
        s.AddOp("TensorArrayScatterV3", {{g.output(0)}, {in[1]}, {dy[0]}, {g.output(1)}}).output(0);
    *dx = {Output(), Output(), u};
    return s.status();
  });
  // flow' = Scatter(ta, indices, value): d(value) gathers the gradient's items.
  r->Register(
      "TensorArrayScatterV3", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
        const Grads in = s.GetInputs(op);
        Operation g = GradArray(s, in[0], dy[0]);
        Output gathered = s.AddOp("TensorArrayGatherV3", {{g.output(0)}, {in[1]}, {g.output(1)}},
                                  {{"dtype", Attr(s, op, "T")}})
                              .output(0);
        *dx = {Output(), Output(), gathered, dy[0]};
        return s.status();
      });
  // (value, lengths) = Concat(ta): d(flow) splits dvalue by lengths.
  r->Register(
      "TensorArrayConcatV3", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
        const Grads in = s.GetInputs(op);
        Operation g = GradArray(s, in[0], in[1]);
        Output u =
            s.AddOp("TensorArraySplitV3", {{g.output(0)}, {dy[0]}, {op.output(1)}, {g.output(1)}})
                .output(0);
        *dx = {Output(), u};
        return s.status();
      });
  // flow' = Split(ta, value, lengths): d(value) concatenates the gradient.
  r->Register("TensorArraySplitV3",
              [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
                const Grads in = s.GetInputs(op);
                Operation g = GradArray(s, in[0], dy[0]);
                Output joined = s.AddOp("TensorArrayConcatV3", {{g.output(0)}, {g.output(1)}},
                                        {{"dtype", Attr(s, op, "T")}})
                                    .output(0);
                *dx = {Output(), joined, Output(), dy[0]};
                return s.status();
              });
  for (const char* op :
       {"TensorArrayV3", "TensorArrayGradV3", "TensorArraySizeV3", "TensorArrayCloseV3", "StackV2",
        "StackPushV2", "StackPopV2", "StackCloseV2", "ControlTrigger"}) {
    r->RegisterNoGradient(op);
  }
}

}  // namespace minigraph
