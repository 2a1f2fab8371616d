// A checkpoint directory as a restarting reader sees it: which checkpoint
// to restore, and what the directory says when none will do. The protocol
// of the files themselves (the state file, `.unrecorded` marks, leases,
// temporary files) is in checkpoint/FORMAT.md ("A directory's life").
//
//   CheckpointDirectory dir("/logs", {.env = env, .recover_state = true, .strict = true});
//   MG_ASSIGN_OR_RETURN(std::optional<CheckpointState> state, dir.ReadState());
//   ... wait and read again while there is none, if asked ...
//   MG_ASSIGN_OR_RETURN(std::optional<CheckpointDirectory::Restore> r, dir.ChooseRestore(state));
//   if (!r) { /* a fresh start: nothing here to restore, nothing to lose */ }
//   MG_ASSIGN_OR_RETURN(std::unique_ptr<FileLock> lease, dir.LeaseForRestore(&*r));
//   for (const std::string& p : CheckpointDirectory::RestoreCandidates(r->state, fallback)) {
//     ... restore p; on success: ...
//     retention = dir.Restored(*r, p);   // the checkpoints a Saver takes over
//   }
//
// TensorFlow's SessionManager follows the state file and nothing else.
// Beyond it, with `recover_state`, a state file that is missing,
// unreadable, names no checkpoint, names one that does not exist or names
// one outside the directory (another run's) gives way to the directory's
// own newest complete checkpoint (RebuildCheckpointState), and the state
// file is rewritten once that checkpoint is restored; with `strict`, a
// fresh start over checkpoint files that nothing would restore is refused.
//
// Reads and writes only through `env`. Thread-compatible: the methods are
// const and keep no state, so one directory may be shared by threads that
// do not write it.

#ifndef MINIGRAPH_CHECKPOINT_CHECKPOINT_DIRECTORY_H_
#define MINIGRAPH_CHECKPOINT_CHECKPOINT_DIRECTORY_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/env.h"
#include "checkpoint/proto/checkpoint_state.pb.h"

namespace minigraph {

class CheckpointDirectory {
 public:
  struct Options {
    Env* env = Env::Default();  // not owned
    // Recover from the directory's complete checkpoints when the state file
    // does not lead to one of them (above).
    bool recover_state = false;
    // Refuse a fresh start while the directory holds checkpoint files.
    bool strict = false;
  };

  // A checkpoint to restore: the state it comes from, and whether that
  // state was rebuilt from the directory (its file is rewritten once
  // restored: Restored).
  struct Restore {
    CheckpointState state;
    bool rebuilt = false;
  };

  CheckpointDirectory(std::string dir, Options options);

  const std::string& dir() const { return dir_; }

  // The state file, when it names a newest checkpoint; nullopt when it is
  // missing or names none. Its read or parse error, or InvalidArgument
  // when it names no checkpoint, except with recover_state (then nullopt,
  // with a warning).
  absl::StatusOr<std::optional<CheckpointState>> ReadState() const;

  // What to restore given `state` (ReadState's last answer, once waiting
  // is over): `state` itself, or with recover_state the directory's newest
  // complete checkpoint when the state names one outside the directory or
  // one that does not exist, or when there is no state. nullopt: a fresh
  // start (with strict, FailedPrecondition listing the checkpoint files
  // that would be overwritten, when there are any). FailedPrecondition too
  // when the state names another run's checkpoint and the directory holds
  // none of its own (recover_state).
  absl::StatusOr<std::optional<Restore>> ChooseRestore(
      std::optional<CheckpointState> state) const;

  // When the directory's writer leases its checkpoints (a directory lease
  // file exists): a shared lease on the directory, which keeps its Saver
  // from deleting any checkpoint until the caller drops it, and
  // `restore`'s state read again under it (a newer checkpoint may have
  // been saved meanwhile; a rebuilt state stays while the file names the
  // same newest checkpoint). Null when there is no lease file or it cannot
  // be taken. ReadState's errors.
  absl::StatusOr<std::unique_ptr<FileLock>> LeaseForRestore(Restore* restore) const;

  // The checkpoints to try, newest first: the state's newest, then (with
  // `fallback`) the older ones it lists.
  static std::vector<std::string> RestoreCandidates(const CheckpointState& state, bool fallback);

  // After `restored` (one of `restore`'s candidates) was restored: with a
  // rebuilt state, rewrites the state file to name it and the older
  // checkpoints (a warning when it cannot). Returns the checkpoints the
  // directory's writer now keeps, oldest first (Saver::RecoverLastCheckpoints).
  std::vector<std::string> Restored(const Restore& restore, const std::string& restored) const;

  // The state file the directory's complete checkpoints make
  // (RebuildCheckpointState: what `inspect_checkpoint --repair_state`
  // shows); `skipped` (may be null) receives each index that did not open.
  absl::StatusOr<CheckpointState> RebuildState(std::vector<std::string>* skipped) const;

  // Writes a rebuilt `state` as the directory's state file: its checkpoints
  // up to `newest` (newer ones are dropped), paths relative to the
  // directory so that a copy of it works. Returns those checkpoints,
  // oldest first, or the Env's error.
  absl::StatusOr<std::vector<std::string>> WriteRebuiltState(const CheckpointState& state,
                                                             const std::string& newest) const;

  // OK unless the directory holds a state file or checkpoint files (data
  // or index; not temporary files, nor the data of a first save killed
  // before its index, which its Saver's next save deletes):
  // FailedPrecondition naming a few of them.
  absl::Status CheckNothingToRestore() const;

 private:
  // The state rebuilt from the directory's complete checkpoints, logged
  // with `why` the state file did not do; nullopt when there is none (a
  // warning with `warn_if_none`, or when some index did not open).
  std::optional<CheckpointState> Recover(absl::string_view why, bool warn_if_none) const;

  const std::string dir_;
  const Options options_;
};

}  // namespace minigraph

#endif  // MINIGRAPH_CHECKPOINT_CHECKPOINT_DIRECTORY_H_
