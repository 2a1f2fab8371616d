// TensorFlow 2.21's op definitions, the interface only (names, inputs,
// outputs, attrs with their defaults and constraints), as
// tools/tf_op_defs.py wrote them into tensorflow_op_defs.pbtxt.
// GlobalOpRegistry() (standard_ops.h) registers each one that minigraph does
// not define itself, without a shape function (its outputs' shapes are
// unknown until it runs), so that every TensorFlow graph imports; whether a
// kernel runs it is the kernel registry's business, asked when a step needs
// the node.
//
//   const OpDef* tf_def = FindTensorFlowOpDef("Qr");

#ifndef MINIGRAPH_RUNTIME_GRAPH_OPS_TENSORFLOW_OP_DEFS_H_
#define MINIGRAPH_RUNTIME_GRAPH_OPS_TENSORFLOW_OP_DEFS_H_

#include "absl/strings/string_view.h"
#include "core/proto/op_def.pb.h"

namespace minigraph {

// Every op of TensorFlow's registry, sorted by name; parsed once, on first
// use, and never destroyed. Thread-safe.
const OpList& TensorFlowOpDefs();

// The op of that name in TensorFlowOpDefs(), or nullptr.
const OpDef* FindTensorFlowOpDef(absl::string_view name);

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_GRAPH_OPS_TENSORFLOW_OP_DEFS_H_
