// What a checkpoint directory holds, read from its file names: the
// checkpoints of one name ("<base>-<step>", IsCheckpointOf in naming.h),
// and a state file rebuilt from the complete ones when the `checkpoint`
// file is lost or unreadable.
//
//   MG_ASSIGN_OR_RETURN(std::vector<CheckpointOnDisk> found,
//                       ListCheckpoints(env, "/logs", "model.ckpt"));
//   MG_ASSIGN_OR_RETURN(CheckpointState state, RebuildCheckpointState(env, "/logs"));
//
// Thread safety: the functions keep no state; each reads the directory as it is
// when called.

#ifndef MINIGRAPH_CHECKPOINT_CHECKPOINT_FILES_H_
#define MINIGRAPH_CHECKPOINT_CHECKPOINT_FILES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "checkpoint/proto/checkpoint_state.pb.h"
#include "core/env.h"

namespace minigraph {

// One checkpoint of a directory, as its file names tell it.
struct CheckpointOnDisk {
  std::string prefix;               // "<dir>/<name>"
  int64_t step = -1;                // CheckpointStep(prefix)
  bool has_index = false;           // "<prefix>.index": complete if its data files are
  bool has_marker = false;          // "<prefix>.unrecorded" (UnrecordedMarkerFilename)
  uint64_t mtime_micros = 0;        // of the index, or else of its newest file
  std::vector<std::string> files;   // every file of it, paths, sorted
};

// The checkpoints in `dir` whose names IsCheckpointOf(base), oldest first
// (by mtime_micros, then step, then name). Temporary files do not count.
// The Env's error when `dir` cannot be listed.
absl::StatusOr<std::vector<CheckpointOnDisk>> ListCheckpoints(Env* env, const std::string& dir,
                                                              absl::string_view base);

// The state file that `inspect_checkpoint --repair_state` and a recovering
// SessionManager write: the complete checkpoints in `dir` (their index reads
// and every data file is there and long enough: BundleReader::Open), of the
// newest one's name only ("model.ckpt-*" when that is "model.ckpt-300"),
// oldest first by step, then modification time, then name; paths joined with
// `dir` and timestamps from the index files. `skipped` (may be null)
// receives "<prefix>: <why>" for each index that does not open. NotFound
// "no complete checkpoint in DIR" when there is none.
absl::StatusOr<CheckpointState> RebuildCheckpointState(Env* env, const std::string& dir,
                                                       std::vector<std::string>* skipped = nullptr);

}  // namespace minigraph

#endif  // MINIGRAPH_CHECKPOINT_CHECKPOINT_FILES_H_
