// TensorFlow's tf.train.init_from_checkpoint: variables start from tensors
// of a checkpoint instead of their initial values. The way to warm-start
// or fine-tune from another model's checkpoint (BERT's run_classifier,
// Estimator's warm start) where the names differ.
//
//   // Every variable under "classifier/encoder/" from "bert/" of the
//   // pre-trained checkpoint, and one variable by name:
//   MG_RETURN_IF_ERROR(InitFromCheckpoint(root, "/models/bert/bert_model.ckpt",
//                                         {{"bert/", "classifier/encoder/"},
//                                          {"cls/squad/output_bias", "classifier/bias"}}));
//   Operation init = GlobalVariablesInitializer(root);  // now reads the checkpoint
//
// Each assigned variable's initial value becomes a RestoreV2
// ("checkpoint_initializer", "checkpoint_initializer_1", ... under `scope`)
// of its checkpoint tensor, so initializers built afterwards restore it, and
// a SessionManager's init_op, or a restore from the run's own checkpoints
// when there are some, take their usual course.
//
// Like Scope's, not thread-safe: build a graph on one thread (it reads
// the checkpoint through the Env as it builds).

#ifndef MINIGRAPH_SESSION_INIT_FROM_CHECKPOINT_H_
#define MINIGRAPH_SESSION_INIT_FROM_CHECKPOINT_H_

#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "checkpoint/bundle_reader.h"
#include "core/env.h"
#include "runtime/cc/scope.h"

namespace minigraph {

// `ckpt_dir_or_file`: a checkpoint prefix, or a directory whose
// `checkpoint` state file names the latest. `assignment_map`, from
// checkpoint names to the graph's variables (global and local), as
// TensorFlow reads it:
//   "old/w" -> "new/w"      one variable, by name;
//   "old/" -> "new/"        every variable under new/ from the tensor of the
//                           same name under old/;
//   "/" -> "new/"           ... from the tensor of the name without new/;
//   "old/" -> "/"           every variable, from old/ and its name.
// Errors, with TensorFlow's texts, before the graph is changed: NotFound for
// a directory without checkpoints or a checkpoint tensor that is missing
// ("Tensor ... is not found in ... checkpoint"), InvalidArgument for a shape
// the variable cannot take ("Shape of variable ... doesn't match with shape
// of tensor ...") or another dtype, and for a name that is no variable
// mapped from a checkpoint name that is no scope ("Assignment map with scope
// only name ... should map to scope only ...").
//
// The initializers read the checkpoint when they run, later. Beyond
// TensorFlow, `reader`, when given, receives an open reader of the chosen
// checkpoint, which holds its lease where its Saver leases checkpoints
// (SaverOptions::lease_checkpoints): keep it until the initializers have
// run, and the writer's retention cannot delete the checkpoint in between.
// A directory's latest checkpoint is chosen under the directory's lease, as
// SessionManager's restores choose theirs.
absl::Status InitFromCheckpoint(const Scope& scope, const std::string& ckpt_dir_or_file,
                                const std::map<std::string, std::string>& assignment_map,
                                Env* env = Env::Default(),
                                std::unique_ptr<BundleReader>* reader = nullptr);

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_INIT_FROM_CHECKPOINT_H_
