// The `checkpoint` state file of a checkpoint directory: which checkpoint is
// the latest and which older ones are kept, in protobuf text format, as
// TensorFlow's checkpoint_management writes and reads it.
//
//   MG_RETURN_IF_ERROR(UpdateCheckpointState(env, "/logs", "/logs/model-300",
//                                            {"/logs/model-200", "/logs/model-300"}));
//   MG_ASSIGN_OR_RETURN(std::optional<std::string> latest, LatestCheckpoint(env, "/logs"));
//
// Relative paths in the file are relative to its directory. The file is
// replaced atomically (temporary file, sync, rename, directory sync).
//
// Thread safety: the functions keep no state; updates of one directory's file
// running at once each replace it whole (the last rename wins).

#ifndef MINIGRAPH_CHECKPOINT_CHECKPOINT_STATE_H_
#define MINIGRAPH_CHECKPOINT_CHECKPOINT_STATE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "checkpoint/proto/checkpoint_state.pb.h"
#include "core/env.h"

namespace minigraph {

inline constexpr char kDefaultLatestFilename[] = "checkpoint";

// TensorFlow's get_checkpoint_state: nullopt when the file is absent, or
// cannot be read or parsed (logged as warnings); InvalidArgument
// "Invalid checkpoint state loaded from DIR" when it names no checkpoint.
// Relative paths come back joined with `dir`.
absl::StatusOr<std::optional<CheckpointState>> GetCheckpointState(
    Env* env, const std::string& dir, const std::string& latest_filename = kDefaultLatestFilename);

// TensorFlow's update_checkpoint_state_internal. Appends
// `model_checkpoint_path` to `all_paths` when it is not last; with
// `save_relative_paths`, or when `save_dir` is relative, paths are stored
// relative to `save_dir`. Returns InvalidArgument when timestamps are given
// but do not match the paths, FailedPrecondition when the state file would
// be the checkpoint itself, or the Env's error.
absl::Status UpdateCheckpointState(Env* env, const std::string& save_dir,
                                   const std::string& model_checkpoint_path,
                                   std::vector<std::string> all_paths = {},
                                   std::vector<double> timestamps = {},
                                   std::optional<double> last_preserved_timestamp = std::nullopt,
                                   const std::string& latest_filename = kDefaultLatestFilename,
                                   bool save_relative_paths = false);

// True when `prefix` is a V2 checkpoint ("<prefix>.index" exists) or a V1
// one (a file `prefix` exists, or a pattern matching files).
bool CheckpointExists(Env* env, const std::string& prefix);

// TensorFlow's latest_checkpoint: the state's model_checkpoint_path if that
// checkpoint exists, else nullopt (logged as an error).
absl::StatusOr<std::optional<std::string>> LatestCheckpoint(
    Env* env, const std::string& dir, const std::string& latest_filename = kDefaultLatestFilename);

// "<prefix without -?????-of-NNNNN>.meta".
std::string MetaGraphFilename(const std::string& prefix, const std::string& suffix = "meta");

// Deletes a checkpoint's index, data files, meta graph and lease file;
// files already gone are skipped (logged). Returns false, deleting nothing,
// while a reader holds its lease (LeaseFilename): call again later.
bool RemoveCheckpoint(Env* env, const std::string& prefix);

// Writes `contents` to `path` through a temporary file, sync, rename and a
// sync of the directory.
absl::Status AtomicWriteFile(Env* env, const std::string& path, absl::string_view contents);

}  // namespace minigraph

#endif  // MINIGRAPH_CHECKPOINT_CHECKPOINT_STATE_H_
