// _Send and _Recv: the two halves of an edge cut between devices or
// processes, as TensorFlow's partitioner inserts them (its attrs, so that
// partition graphs read the same). The key they meet under is built from the
// attrs (runtime/engine/rendezvous.h).
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/ops/standard_ops.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {

void RegisterSendRecvOps(OpRegistry* r) {
  MG_REGISTER_OP(r, OpDefBuilder("_Send")
                        .Input("tensor: T")
                        .Attr("T: type")
                        .Attr("tensor_name: string")
                        .Attr("send_device: string")
                        .Attr("send_device_incarnation: int")
                        .Attr("recv_device: string")
                        .Attr("client_terminated: bool = false")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Unknown));
  MG_REGISTER_OP(r, OpDefBuilder("_Recv")
                        .Output("tensor: tensor_type")
                        .Attr("tensor_type: type")
                        .Attr("tensor_name: string")
                        .Attr("send_device: string")
                        .Attr("send_device_incarnation: int")
                        .Attr("recv_device: string")
                        .Attr("client_terminated: bool = false")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Unknown));
}

}  // namespace minigraph
