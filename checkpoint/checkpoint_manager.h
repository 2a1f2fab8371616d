// The writer's half of a checkpoint directory's protocol (checkpoint/FORMAT.md,
// "A directory's life"; the reader's half is CheckpointDirectory): what a
// Saver does around the ops that write a checkpoint. Before a save it sweeps
// what killed saves left and marks the checkpoint; after, it leases it,
// records it in the state file, evicts the oldest beyond max_to_keep (one
// every keep_checkpoint_every_n_hours kept for good) and deletes them once no
// reader holds them. After a restart it takes over the checkpoints the state
// file lists and those a killed process left marked.
//
//   CheckpointManager manager({.env = env, .max_to_keep = 3});
//   CheckpointManager::Save save{.save_path = "/logs/model", .checkpoint = "/logs/model-300"};
//   MG_RETURN_IF_ERROR(manager.BeginSave(save));
//   if (absl::Status s = ... write /logs/model-300 ...; !s.ok()) {
//     manager.AbortSave(save);
//     return s;
//   }
//   MG_RETURN_IF_ERROR(manager.CommitSave(save));   // recorded; older ones evicted
//
//   // A restarted writer, once CheckpointDirectory::Restored said what it keeps:
//   manager.Adopt(kept);
//
// TensorFlow's Saver does the state file and retention (no marks, leases or
// sweeps: a checkpoint its state file forgot stays forever, and a reader may
// see its checkpoint deleted mid-read).
//
// Thread-safe, but saves must not overlap: one BeginSave..CommitSave (or
// AbortSave) at a time; Tracked() may be called meanwhile from any thread.

#ifndef MINIGRAPH_CHECKPOINT_CHECKPOINT_MANAGER_H_
#define MINIGRAPH_CHECKPOINT_CHECKPOINT_MANAGER_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "checkpoint/checkpoint_files.h"
#include "checkpoint/checkpoint_state.h"
#include "core/env.h"

namespace minigraph {

class CheckpointManager {
 public:
  struct Options {
    Env* env = Env::Default();  // not owned
    int max_to_keep = 5;        // 0 keeps everything and tracks nothing
    float keep_checkpoint_every_n_hours = 10000.0f;
    // What killed saves left goes on the first save to a save path and
    // before each restore: temporary files no live writer holds (whatever
    // their age), and incomplete checkpoints that were marked. A sharded
    // save's parts, which no lock protects, go after each save once
    // untouched for this long. InfiniteDuration() keeps everything.
    absl::Duration delete_stale_temp_files_after = absl::Hours(1);
    // Each checkpoint gets a lease file (LeaseFilename in naming.h), and the
    // directory one (DirectoryLeaseFilename): retention deletes a checkpoint
    // only when no reader holds either.
    bool lease_checkpoints = false;
    // The state file lists checkpoints relative to its directory.
    bool save_relative_paths = false;
  };

  // One save: the path it saves under ("/logs/model"), the checkpoint it
  // writes ("/logs/model-300"), and the state file that records it.
  struct Save {
    std::string save_path;
    std::string checkpoint;
    std::string latest_filename = kDefaultLatestFilename;
    bool write_state = true;  // false: not recorded, retention untouched
  };

  explicit CheckpointManager(Options options);
  CheckpointManager(const CheckpointManager&) = delete;
  CheckpointManager& operator=(const CheckpointManager&) = delete;

  // Before the save's ops run: on the first save to its save path, deletes
  // what killed saves of that name left (logging the files and bytes);
  // with write_state, marks the checkpoint (UnrecordedMarkerFilename), so
  // a crash from here until the state file names it leaves it for the next
  // writer to delete. The Env's error when the mark cannot be written.
  absl::Status BeginSave(const Save& save) ABSL_LOCKS_EXCLUDED(mu_);

  // The save's ops failed: its mark goes (their files are theirs to clean).
  void AbortSave(const Save& save);

  // The checkpoint is complete: with leases, its lease files; with
  // write_state, tracks it, marks the checkpoints retention evicts, writes
  // the state file (its error names the checkpoint, which is written but
  // will not be found by a restart), deletes the marks of what the state
  // file now records, and deletes the evicted checkpoints no reader holds
  // (the others at a later save). Then sweeps a sharded save's stale parts.
  absl::Status CommitSave(const Save& save) ABSL_LOCKS_EXCLUDED(mu_);

  // Before a restore of `checkpoint`: deletes what killed saves of its name
  // left in its directory (marked incomplete checkpoints, unlocked
  // temporary files).
  void SweepBeforeRestore(const std::string& checkpoint) ABSL_LOCKS_EXCLUDED(mu_);

  // The tracked checkpoints, oldest first: the ones retention deletes in turn.
  std::vector<std::string> Tracked() const ABSL_LOCKS_EXCLUDED(mu_);

  // Tracks the existing ones among `paths` (a state file's list, oldest
  // first), with their files' times, and the complete checkpoints of the
  // newest one's name in its directory that a process killed between a save
  // and the state file, or between the state file and retention, left marked
  // (ordered by time among them; retention deletes them in turn and the
  // next state file drops their marks). Unmarked ones (kept for good,
  // copied in, TensorFlow's) stay untracked. Deletes marks that stand alone
  // or mark a checkpoint the state file records.
  void Adopt(const std::vector<std::string>& paths) ABSL_LOCKS_EXCLUDED(mu_);

  // Replaces the tracked list (paths with times in seconds, oldest first).
  void SetTracked(std::vector<std::pair<std::string, double>> checkpoints)
      ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // Appends `path` to the tracked list and moves what it pushes out beyond
  // max_to_keep to to_delete_ (or keeps it for good).
  void Track(const std::string& path) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<std::string> TrackedPaths() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Writes the state file for `save` and settles the marks: the evicted
  // get one, the recorded lose theirs.
  absl::Status Record(const Save& save) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Deletes to_delete_ and leased_ in `save_dir`, leaving what a reader holds.
  void DeleteEvicted(absl::string_view save_dir) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The marked complete checkpoints Adopt tracks besides `recorded`.
  // REQUIRES: `recorded` is not empty.
  std::vector<CheckpointOnDisk> MarkedCheckpoints(const std::vector<std::string>& recorded) const;
  // Deletes what saves of `base` in `dir` killed part-way left: unlocked
  // temporary files and incomplete checkpoints (data without an index) that
  // are marked or, with `older_than_tracked`, older than every tracked one.
  void Sweep(const std::string& dir, const std::string& base, const std::string& latest_filename,
             bool older_than_tracked) ABSL_LOCKS_EXCLUDED(mu_);

  const Options options_;
  mutable absl::Mutex mu_;
  std::vector<std::pair<std::string, double>> tracked_ ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<std::string, double>> to_delete_ ABSL_GUARDED_BY(mu_);
  // Evicted checkpoints not deleted yet: a reader held them.
  std::vector<std::string> leased_ ABSL_GUARDED_BY(mu_);
  double next_keep_time_ ABSL_GUARDED_BY(mu_);
  // Marks of adopted checkpoints, which the next state file records.
  std::vector<std::string> adopted_marks_ ABSL_GUARDED_BY(mu_);
  // The save paths whose first save has swept.
  absl::flat_hash_set<std::string> swept_ ABSL_GUARDED_BY(mu_);
};

}  // namespace minigraph

#endif  // MINIGRAPH_CHECKPOINT_CHECKPOINT_MANAGER_H_
