// Conversion between Tensor and TensorProto, as TensorFlow writes them.
//
//   MG_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(node.attr().at("value").tensor()));
//   TensorProto p;
//   TensorToProto(t, &p);                 // tensor_content where possible
//   TensorToProtoField(t, &p);            // typed repeated fields
//
// Reading follows TensorFlow's rules: `tensor_content`, when non-empty, holds
// the raw little-endian elements; otherwise the typed field for the dtype
// holds up to NumElements values, the last one repeated to fill the rest
// (none at all means zeros).
//
// Thread safety: functions of their arguments only.

#ifndef MINIGRAPH_CORE_TENSOR_PROTO_H_
#define MINIGRAPH_CORE_TENSOR_PROTO_H_

#include "absl/status/statusor.h"
#include "core/allocator.h"
#include "core/proto/tensor.pb.h"
#include "core/tensor.h"

namespace minigraph {

// Returns InvalidArgument for an unsupported dtype, an invalid shape, or a
// tensor_content whose size is not NumElements * element size.
absl::StatusOr<Tensor> TensorFromProto(const TensorProto& proto,
                                       Allocator* allocator = DefaultAllocator());

// Memcpy types go to tensor_content; strings, resources and variants to their
// typed fields (TensorFlow's AsProtoTensorContent). REQUIRES: t initialized.
void TensorToProto(const Tensor& t, TensorProto* proto);

// Every element to the typed field of its dtype (TensorFlow's AsProtoField).
void TensorToProtoField(const Tensor& t, TensorProto* proto);

// As TensorToProto, but strings too in tensor_content, each length as a
// varint32 and then every string's bytes (TensorFlow's C++
// AsProtoTensorContent and EncodeStringList, which SerializeSparse writes).
void TensorToProtoContent(const Tensor& t, TensorProto* proto);

}  // namespace minigraph

#endif  // MINIGRAPH_CORE_TENSOR_PROTO_H_
