// Registration helper for the op definition files in runtime/graph/ops.

#ifndef MINIGRAPH_RUNTIME_GRAPH_OPS_INTERNAL_OP_MACROS_H_
#define MINIGRAPH_RUNTIME_GRAPH_OPS_INTERNAL_OP_MACROS_H_

#include "core/logging.h"
#include "runtime/graph/op_registry.h"

// Registers `builder` into `registry`; a malformed definition is a
// programming error and aborts at startup with the builder's message.
#define MG_REGISTER_OP(registry, builder)              \
  do {                                                 \
    const ::absl::Status mg_s_ = (registry)->Register(builder); \
    MG_CHECK(mg_s_.ok()) << mg_s_.message();           \
  } while (0)

#endif  // MINIGRAPH_RUNTIME_GRAPH_OPS_INTERNAL_OP_MACROS_H_
