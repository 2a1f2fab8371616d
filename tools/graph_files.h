// Graph files as users have them, for the tools: a MetaGraphDef (.meta), a
// GraphDef (binary, or text in .pbtxt), or a SavedModel directory
// (saved_model.pb, TensorFlow 1's layout: a MetaGraphDef with a SaverDef and
// variables/variables), and the variables such a graph restores.

#ifndef MINIGRAPH_TOOLS_GRAPH_FILES_H_
#define MINIGRAPH_TOOLS_GRAPH_FILES_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "checkpoint/checkpoint_diff.h"
#include "core/proto/graph.pb.h"
#include "core/proto/saver_def.pb.h"

namespace minigraph {

struct GraphFile {
  GraphDef graph;
  // The graph's Saver, when the file has one (a .meta, a SavedModel).
  std::optional<SaverDef> saver;
  // The checkpoint that goes with it, when the layout says: the prefix
  // beside a .meta, a SavedModel's variables/variables.
  std::string default_checkpoint;
};

// InvalidArgument naming `path` when it is none of the above; NotFound when
// it does not exist.
absl::StatusOr<GraphFile> LoadGraphFile(const std::string& path);

// What `graph` restores: the keys, dtypes and shapes its Saver's SaveV2
// nodes write (in the graph, or, for TensorFlow 2, in its save function),
// or, without a Saver, its variables under the names TensorFlow's default
// Saver gives them (the op names).
std::vector<ExpectedTensor> GraphVariables(const GraphDef& graph);

}  // namespace minigraph

#endif  // MINIGRAPH_TOOLS_GRAPH_FILES_H_
