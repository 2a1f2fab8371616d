// _Send and _Recv: the two halves of an edge cut between devices or
// processes, as TensorFlow's partitioner inserts them (its attrs, so that
// partition graphs read the same). The key they meet under is built from the
// attrs (runtime/engine/rendezvous.h).
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace ops_internal {

namespace {

// The attrs a _Send and its _Recv share: what their rendezvous key is made of.
OpDefBuilder& TransferAttrs(OpDefBuilder& b) {
  return b.Attr("tensor_name: string")
      .Attr("send_device: string")
      .Attr("send_device_incarnation: int")
      .Attr("recv_device: string")
      .Attr("client_terminated: bool = false")
      .SetIsStateful()
      .SetShapeFn(shape_fn::Unknown);
}

}  // namespace

void RegisterSendRecvOps(OpRegistry* r) {
  // _HostSend and _HostRecv carry tensors TensorFlow keeps in host memory
  // (strings, shapes) between a GPU and the wire; on a CPU they are _Send
  // and _Recv, and TensorFlow's CPU partitions use them for such tensors.
  for (const char* op : {"_Send", "_HostSend"}) {
    OpDefBuilder b(op);
    b.Input("tensor: T").Attr("T: type");
    MG_REGISTER_OP(r, TransferAttrs(b));
  }
  for (const char* op : {"_Recv", "_HostRecv"}) {
    OpDefBuilder b(op);
    b.Output("tensor: tensor_type").Attr("tensor_type: type").SetIsDistributedCommunication();
    MG_REGISTER_OP(r, TransferAttrs(b));
  }
}

}  // namespace ops_internal
}  // namespace minigraph
