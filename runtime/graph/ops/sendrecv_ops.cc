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
  // _HostSend and _HostRecv carry tensors TensorFlow keeps in host memory
  // (strings, shapes) between a GPU and the wire; on a CPU they are _Send
  // and _Recv, and TensorFlow's CPU partitions use them for such tensors.
  for (const char* op : {"_Send", "_HostSend"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("tensor: T")
                          .Attr("T: type")
                          .Attr("tensor_name: string")
                          .Attr("send_device: string")
                          .Attr("send_device_incarnation: int")
                          .Attr("recv_device: string")
                          .Attr("client_terminated: bool = false")
                          .SetIsStateful()
                          .SetShapeFn(shape_fn::Unknown));
  }
  for (const char* op : {"_Recv", "_HostRecv"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
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
}

}  // namespace minigraph
