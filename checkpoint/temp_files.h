// Temporary files of checkpoint saves: written under a temporary name that
// the writer holds locked until the file is renamed into place, and swept
// after a process was killed part-way, without touching a live writer's.
//
//   MG_ASSIGN_OR_RETURN(LockedTempFile tmp,
//                       CreateLockedTempFile(env, "/logs/model-5.index", kTempStateSuffix));
//   ... write tmp.file, Sync, Close, RenameFile(tmp.path, "/logs/model-5.index") ...
//
//   // After a restart: what killed saves of "/logs/model-*" left.
//   MG_ASSIGN_OR_RETURN(SweptFiles swept, DeleteLeftoverTempFiles(env, "/logs", "model",
//                                                                 "checkpoint", absl::Hours(1)));
//
// Thread safety: the functions keep no state; a sweep may run while other
// threads or processes write temporary files, which their locks protect.

#ifndef MINIGRAPH_CHECKPOINT_TEMP_FILES_H_
#define MINIGRAPH_CHECKPOINT_TEMP_FILES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "core/env.h"

namespace minigraph {

// A file being written under a temporary name, locked (Env::TryLockFile)
// by its writer until the writer renames or deletes it: a sweep then tells
// a live writer's file, locked, from one a killed process left, whose lock
// the kernel released with the process.
struct LockedTempFile {
  std::string path;
  std::unique_ptr<WritableFile> file;
  std::unique_ptr<FileLock> lock;
};

// Creates "<final_name><marker><random>" (marker: kTempStateSuffix for bundle
// files, ".tmp" for AtomicWriteFile) and locks it. When a sweep deleted the
// file between its creation and its lock, tries another name; the Env's
// error otherwise.
absl::StatusOr<LockedTempFile> CreateLockedTempFile(Env* env, absl::string_view final_name,
                                                    absl::string_view marker);

struct SweptFiles {
  std::vector<std::string> paths;  // deleted, in the order deleted
  uint64_t bytes = 0;              // their sizes added up
};

// Deletes what saves of the checkpoints named `base` (IsCheckpointOf in
// naming.h; "" for every name), killed part-way, left in `dir`:
// - "<name>.index.tempstate*", "<name>.data-*.tempstate*",
//   "<name>.tempstate*" (a V1 checkpoint's one file) and
//   "<name>.meta.tmp<digits>", and the state file's
//   "<latest_filename>.tmp<digits>", each only when nobody holds its lock
//   (CreateLockedTempFile): a live writer's file is never touched, however
//   old;
// - "<name>_temp_<hex>" directories holding only a sharded save's "part-*"
//   files, once none of them has changed for `parts_min_age` by the Env's
//   clock: the parts are complete files that a later op of the same step
//   merges, so no lock tells whether that op is still to come.
// Every other file is left alone. Files that vanish meanwhile or cannot be
// deleted are skipped. The Env's error when `dir` cannot be listed.
absl::StatusOr<SweptFiles> DeleteLeftoverTempFiles(Env* env, const std::string& dir,
                                                   absl::string_view base,
                                                   absl::string_view latest_filename,
                                                   absl::Duration parts_min_age);

}  // namespace minigraph

#endif  // MINIGRAPH_CHECKPOINT_TEMP_FILES_H_
