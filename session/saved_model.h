// TensorFlow's LoadSavedModel: a SavedModel directory (saved_model.pb and
// variables/variables) as a session with its variables restored, and its
// SignatureDefs run by their input and output keys.
//
//   MG_ASSIGN_OR_RETURN(SavedModelBundle model,
//                       LoadSavedModel(SessionOptions(), "/models/mnist/1", {"serve"}));
//   MG_ASSIGN_OR_RETURN(auto out, model.Run("serving_default", {{"images", batch}}));
//   const Tensor& scores = out.at("scores");
//
// The MetaGraphDef whose tags are exactly `tags` is loaded; its Saver (the
// SaverDef, in TensorFlow 1's and 2's layouts alike) restores the variables
// (without one, TensorFlow 2's object graph says which checkpoint value
// each variable handle of the graph gets),
// then its init op runs (TensorFlow 2's "__saved_model_init_op" signature,
// or TensorFlow 1's main_op or legacy_init_op collection, fed the asset
// files' paths). Every op of the graph and of its functions must have a
// kernel here (tools/run_graph lists what is missing).
//
// A SavedModelBundle's Run may be called from several threads at once, as
// its session's Run may.

#ifndef MINIGRAPH_SESSION_SAVED_MODEL_H_
#define MINIGRAPH_SESSION_SAVED_MODEL_H_

#include <map>
#include <memory>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "core/env.h"
#include "core/proto/meta_graph.pb.h"
#include "session/session.h"

namespace minigraph {

struct SavedModelBundle {
  std::unique_ptr<Session> session;
  MetaGraphDef meta_graph;

  // Runs signature `name` on `inputs` (by the signature's input keys) and
  // returns its outputs by key. NotFound naming the signature (and the
  // ones there are) or an input key; InvalidArgument for an input missing.
  absl::StatusOr<std::map<std::string, Tensor>> Run(
      const std::string& name, const std::map<std::string, Tensor>& inputs) const;
};

// NotFound when `export_dir` has no saved_model.pb (or .pbtxt), or no meta
// graph has exactly `tags` (TensorFlow's text, listing the tag sets there
// are); DataLoss for a file that does not parse; the session's errors for a
// graph that does not run here; the Saver's for a checkpoint that does not
// restore.
absl::StatusOr<SavedModelBundle> LoadSavedModel(const SessionOptions& options,
                                                const std::string& export_dir,
                                                const std::set<std::string>& tags);

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_SAVED_MODEL_H_
