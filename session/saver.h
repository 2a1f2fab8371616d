// TensorFlow 1.x's Saver: adds save and restore ops to a graph and manages
// the checkpoints it writes (retention, the `checkpoint` state file).
//
//   MG_ASSIGN_OR_RETURN(auto saver, Saver::Create(root));     // all global variables
//   ... create the session from root's graph ...
//   MG_ASSIGN_OR_RETURN(std::string path,
//                       saver->Save(session, "/logs/model.ckpt", {.global_step = 300}));
//   // -> "/logs/model.ckpt-300", state file updated, older ones evicted
//   MG_RETURN_IF_ERROR(saver->Restore(session, path));
//
// The graph nodes carry TensorFlow's names: "save/Const" (the filename),
// "save/SaveV2", "save/control_dependency" (the save tensor), "save/RestoreV2",
// "save/Assign", "save/Assign_1", ... and "save/restore_all". A sharded saver
// writes its shards in parallel under "<prefix>_temp/part-*" and merges them
// ("save/MergeV2Checkpoints", save tensor "save/Identity").
//
// Beyond TensorFlow, SaveAsync saves without making the training loop wait
// for the disk:
//   MG_RETURN_IF_ERROR(saver->SaveAsync(session, "/logs/model.ckpt", {.global_step = s})
//                          .status());   // returns once the snapshot is taken
//   ... more steps ...
//   MG_RETURN_IF_ERROR(saver->Wait().status());  // before closing the session
//
// Thread-compatible: call it from one thread at a time (the background save
// of SaveAsync is the Saver's own business).

#ifndef MINIGRAPH_SESSION_SAVER_H_
#define MINIGRAPH_SESSION_SAVER_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/env.h"
#include "core/proto/meta_graph.pb.h"
#include "core/proto/saver_def.pb.h"
#include "runtime/cc/scope.h"
#include "runtime/cc/variables.h"
#include "session/session.h"

namespace minigraph {

struct SaverOptions {
  // Saved under their op names; empty = every global variable.
  std::vector<Variable> var_list = {};
  // Mutable lookup tables (the handles of MutableHashTableV2,
  // MutableHashTableOfTensorsV2 and MutableDenseHashTableV2 nodes), saved as
  // TensorFlow's Saver saves them: their keys and values under "<node>-keys"
  // and "<node>-values", restored by LookupTableImportV2. Empty with an
  // empty var_list = every mutable table of the graph (TensorFlow's default
  // Saver saves the tables its Python classes made).
  std::vector<Output> tables = {};
  int max_to_keep = 5;  // 0 keeps everything and tracks nothing
  float keep_checkpoint_every_n_hours = 10000.0f;
  // Shards written in parallel and merged; 0 = one unsharded bundle.
  int num_shards = 0;
  // TensorFlow's Saver(sharded=True): one shard per device the variables are
  // placed on, each saved and restored by ops on that device (in a cluster,
  // by the ps task that holds them), merged into one checkpoint by the
  // session's own task. The tasks must see the same file system. Overrides
  // num_shards.
  bool shard_by_device = false;
  bool allow_empty = false;
  // The state file lists checkpoints relative to its directory
  // ("model-2"), so a copied directory refers to its own files.
  bool save_relative_paths = false;
  // Checkpoint names carry the step as 8 digits ("model-00000003").
  bool pad_step_number = false;
  std::string name = "save";
  // What saves of this Saver's checkpoints killed part-way left in their
  // directory goes on the first save to a path and on each restore:
  // temporary files no live writer holds (whatever their age), and
  // incomplete checkpoints it marked (CheckpointManager in
  // checkpoint/checkpoint_manager.h; the count and bytes are logged). A
  // sharded save's parts, which no lock protects, go after each save once
  // untouched for this long. InfiniteDuration() keeps everything.
  absl::Duration delete_stale_temp_files_after = absl::Hours(1);
  // Beyond TensorFlow: each checkpoint gets a lease file (LeaseFilename in
  // checkpoint/naming.h). Readers (BundleReader, so every restore) hold a
  // shared lock on it while they read, and retention leaves a checkpoint in
  // place while any reader does, deleting it at a later save once none does:
  // an evaluator restoring while the trainer saves with max_to_keep = 1 never
  // has its checkpoint deleted under it.
  bool lease_checkpoints = false;
  // Beyond TensorFlow: every tensor starts at a multiple of 64 bytes in the
  // data file (zeros between them; the SaveV2 ops get the internal attr
  // "_tensor_alignment", which TensorFlow ignores). A restore then uses the
  // file's pages in place for tensors of fixed-size dtypes instead of
  // copying them (BundleReader::ReadInPlace), and processes restoring the
  // same checkpoint share those pages. TensorFlow reads such checkpoints.
  // Off, the files are byte for byte TensorFlow's.
  bool align_tensors = false;
};

struct SaveOptions {
  std::optional<int64_t> global_step = {};
  std::string latest_filename = "checkpoint";
  bool write_state = true;
  // Written to "<checkpoint>.meta" when set.
  const MetaGraphDef* meta_graph = nullptr;
};

class Saver {
 public:
  // Waits for an in-flight SaveAsync (its error, if any, is logged).
  ~Saver();
  Saver(const Saver&) = delete;
  Saver& operator=(const Saver&) = delete;

  // Adds the save/restore subgraph to `scope`'s graph. Returns
  // InvalidArgument "No variables to save" for an empty list unless
  // allow_empty, or the builder's error. `env` (not owned) must outlive the
  // saver; it is the Env of the sessions the saver will be used with.
  static absl::StatusOr<std::unique_ptr<Saver>> Create(const Scope& scope,
                                                        SaverOptions options = {},
                                                        Env* env = Env::Default());
  // A saver for a graph that already has its save/restore ops (for instance
  // one loaded from a MetaGraphDef). Of `options`, only what is not in a
  // SaverDef is used: save_relative_paths, pad_step_number,
  // delete_stale_temp_files_after and lease_checkpoints (as TensorFlow's
  // Saver(saver_def=...)).
  static std::unique_ptr<Saver> FromSaverDef(const SaverDef& def, Env* env = Env::Default(),
                                             const SaverOptions& options = {});

  const SaverDef& saver_def() const;
  // The Env the saver reads and writes checkpoint files through.
  Env* env() const;

  // Saves to `save_path` ("-<global_step>" appended when given, as 8 digits
  // with pad_step_number) and returns
  // the checkpoint prefix. With write_state, records it in the state file of
  // its directory (before deleting any evicted checkpoint). Returns
  // InvalidArgument when the directory does not exist or latest_filename
  // has a path component, or the save op's error.
  // First returns the error of an earlier SaveAsync not yet reported, if
  // any, without saving (and waits for one still in flight).
  absl::StatusOr<std::string> Save(Session* session, const std::string& save_path,
                                   const SaveOptions& options = {});

  // Beyond TensorFlow: Save without the wait for the disk. Takes a snapshot
  // of the saved variables now, in one Run that fetches them: the snapshot
  // shares their buffers, and a step that updates a variable afterwards
  // copies the buffer first (Var::mutable_value), so the snapshot keeps
  // this step's values at the cost of one copy of each variable updated
  // while the save runs. The snapshot is then written and committed (all
  // that Save does: state file, retention, meta graph) on a background
  // thread, by the same save ops with the snapshot fed in place of the
  // variables, so the files are those Save would write. Returns the
  // checkpoint prefix it will write.
  //
  // At most one save is in flight: a call while one is waits for it first.
  // The error of a failed background save is returned once, by the next
  // call to SaveAsync or Save (which then do not save) or by Wait(). Until
  // Wait() returns, `session` must stay open; the `checkpoint` state file
  // names the new checkpoint only once it is complete, so a crash during
  // the background save leaves the previous one the newest. Returns
  // FailedPrecondition for a Saver made by FromSaverDef (its variables are
  // not known; use Save), or Save's errors for bad arguments, at once.
  absl::StatusOr<std::string> SaveAsync(Session* session, const std::string& save_path,
                                        const SaveOptions& options = {});
  // Waits for the in-flight SaveAsync, if any, and returns the prefix it
  // wrote or its error (reported once); "" when there is nothing to report.
  absl::StatusOr<std::string> Wait();

  // Restores every saved variable from `save_path`. Returns InvalidArgument
  // "The passed save_path is not a valid checkpoint: P" when P does not
  // exist; NotFound naming the missing key and the checkpoint; or
  // InvalidArgument naming the variable and both dtypes or shapes.
  absl::Status Restore(Session* session, const std::string& save_path);

  // Tracked checkpoints, oldest first.
  std::vector<std::string> last_checkpoints() const;
  // Tracks the existing ones among `paths`, with their files' times (after
  // a restart, from GetCheckpointState().all_model_checkpoint_paths, oldest
  // first). Beyond TensorFlow, which never deletes them: also tracks the
  // complete checkpoints of that name in the directory of `paths` that a
  // process killed between a save and the state file, or between the state
  // file and retention, left behind (marked: UnrecordedMarkerFilename in
  // checkpoint/naming.h); retention deletes them in turn, oldest first.
  // Unmarked ones (kept for good, copied in, TensorFlow's) stay.
  void RecoverLastCheckpoints(const std::vector<std::string>& paths);
  void SetLastCheckpointsWithTime(std::vector<std::pair<std::string, double>> checkpoints);

 private:
  class Impl;
  explicit Saver(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_SAVER_H_
