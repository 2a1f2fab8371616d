// Graph files as TensorFlow writes them, read in one place: a SavedModel
// directory (saved_model.pb or saved_model.pbtxt), a MetaGraphDef file (.meta,
// binary or text) and a GraphDef file (binary, or text), with what goes with
// each. LoadSavedModel, `train --graph`, `run_graph`, `graph_bench` and
// `inspect_checkpoint --diff` read graphs through these.
//
//   MG_ASSIGN_OR_RETURN(SavedModel model, ReadSavedModel(env, "/models/mnist/1"));
//   MG_ASSIGN_OR_RETURN(MetaGraphDef meta, FindMetaGraph(model, {"serve"}, "/models/mnist/1"));
//
// Errors use TensorFlow's loader's codes: NotFound names a file or
// directory that is not there, or a tag set no meta graph of the SavedModel
// has (listing the ones it has); DataLoss names a file that does not parse
// as what it must be. Files are read through the Env given.
//
// Thread-safe: plain functions.

#ifndef MINIGRAPH_SESSION_GRAPH_FILES_H_
#define MINIGRAPH_SESSION_GRAPH_FILES_H_

#include <optional>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "core/env.h"
#include "core/proto/graph.pb.h"
#include "core/proto/meta_graph.pb.h"
#include "core/proto/saver_def.pb.h"

namespace minigraph {

// The SavedModel in `export_dir`: its saved_model.pb, else its
// saved_model.pbtxt.
absl::StatusOr<SavedModel> ReadSavedModel(Env* env, const std::string& export_dir);

// The meta graph of `model` whose tag set is exactly `tags` (TensorFlow's
// loader's rule: {"serve"} does not match {"serve", "gpu"}). `export_dir`
// is for the message.
absl::StatusOr<MetaGraphDef> FindMetaGraph(const SavedModel& model,
                                           const std::set<std::string>& tags,
                                           const std::string& export_dir);

// A MetaGraphDef file, binary or text.
absl::StatusOr<MetaGraphDef> ReadMetaGraphFile(Env* env, const std::string& path);

// TensorFlow's training_util.write_graph(graph, dir, name, as_text=True):
// `graph` in protobuf's text format at dir/name (dir made if needed), written
// to a temporary file renamed into place, which is removed on an error.
absl::Status WriteGraphText(Env* env, const GraphDef& graph, const std::string& dir,
                            const std::string& name = "graph.pbtxt");

// A graph file of any of the three kinds, with its Saver and checkpoint.
struct GraphFile {
  GraphDef graph;
  // The graph's Saver, when the file has one (a .meta, a SavedModel).
  std::optional<SaverDef> saver;
  // The checkpoint that goes with it, when the layout says: the prefix
  // beside a .meta, a SavedModel's variables/variables.
  std::string default_checkpoint;
};

// `path` as a SavedModel when it is a directory (its meta graph tagged
// "serve", else its first), as a MetaGraphDef when it ends in ".meta", else
// as a GraphDef, binary or text (text only when it ends in ".pbtxt" or
// ".txt"). DataLoss, naming `path` and the three kinds, when it is none.
absl::StatusOr<GraphFile> LoadGraphFile(Env* env, const std::string& path);

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_GRAPH_FILES_H_
