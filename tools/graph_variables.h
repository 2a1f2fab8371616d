// The variables a graph restores, for the tools that compare a checkpoint
// with a graph (`inspect_checkpoint --diff`, `run_graph`). The graph comes
// from session/graph_files.h.

#ifndef MINIGRAPH_TOOLS_GRAPH_VARIABLES_H_
#define MINIGRAPH_TOOLS_GRAPH_VARIABLES_H_

#include <string>
#include <vector>

#include "checkpoint/checkpoint_diff.h"
#include "core/proto/graph.pb.h"

namespace minigraph {

// What `graph` restores: the keys, dtypes and shapes its Saver's SaveV2
// nodes write (in the graph, or, for TensorFlow 2, in its save function),
// or, without a Saver, its variables under the names TensorFlow's default
// Saver gives them (the op names).
std::vector<ExpectedTensor> GraphVariables(const GraphDef& graph);

}  // namespace minigraph

#endif  // MINIGRAPH_TOOLS_GRAPH_VARIABLES_H_
