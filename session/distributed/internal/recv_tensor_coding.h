// RecvTensorResponse on the wire without copying the tensor, as TensorFlow's
// gRPC worker does: the response is TensorFlow's message byte for byte, but
// it is written as a small header followed by the tensor's own buffer (one
// gRPC slice that holds a reference to the tensor), and read back by copying
// the bytes once, straight from gRPC's buffers into the new tensor.
// Internal to session/distributed.

#ifndef MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_RECV_TENSOR_CODING_H_
#define MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_RECV_TENSOR_CODING_H_

#include "absl/status/status.h"
#include "core/tensor.h"
#include "grpcpp/support/byte_buffer.h"

namespace minigraph {
namespace distributed_internal {

// The serialized RecvTensorResponse for `value` (or a dead one). Tensors of
// fixed-size element types share their buffer with the result; others
// (strings) are serialized as protobuf does.
grpc::ByteBuffer EncodeRecvTensorResponse(const Tensor& value, bool is_dead);

// Parses a serialized RecvTensorResponse (from any sender: fields in any
// order, typed value fields as well as tensor_content). Returns DataLoss for
// bytes that are not one, InvalidArgument for a tensor that does not decode.
absl::Status DecodeRecvTensorResponse(grpc::ByteBuffer* buffer, Tensor* value, bool* is_dead);

}  // namespace distributed_internal
}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_RECV_TENSOR_CODING_H_
