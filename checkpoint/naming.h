// File names of a checkpoint (tensor bundle) with prefix P, as TensorFlow
// spells them.
//
//   MetaFilename("/ckpt/model-5")            // "/ckpt/model-5.index"
//   DataFilename("/ckpt/model-5", 0, 1)      // "/ckpt/model-5.data-00000-of-00001"
//
// Thread safety: functions of their arguments only.

#ifndef MINIGRAPH_CHECKPOINT_NAMING_H_
#define MINIGRAPH_CHECKPOINT_NAMING_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace minigraph {

std::string MetaFilename(absl::string_view prefix);
std::string DataFilename(absl::string_view prefix, int shard, int num_shards);
// TensorFlow's temporary-file marker: files being written are named
// "<final name>.tempstate<random>" until they are renamed into place.
inline constexpr char kTempStateSuffix[] = ".tempstate";
// True for a data file name of `prefix` ("<prefix>.data-NNNNN-of-NNNNN").
bool IsDataFilenameOf(absl::string_view prefix, absl::string_view filename);

// "<prefix>.lease", written beside a checkpoint by a Saver with
// SaverOptions::lease_checkpoints: readers hold a shared lock on it while
// they read, and retention deletes the checkpoint only when it can take the
// exclusive lock (minigraph's, not TensorFlow's: TensorFlow has no leases).
std::string LeaseFilename(absl::string_view prefix);

// "<prefix>.unrecorded", minigraph's mark of a checkpoint that the state
// file does not name and that a Saver of its name owns (TensorFlow has no
// such file, and never deletes a checkpoint its state file forgot). A Saver
// writes it before it saves a checkpoint and deletes it once the state file
// names that checkpoint; it writes it again before a state file that drops
// a checkpoint retention evicts, and deletes it last with the checkpoint's
// files. So a marked checkpoint was left by a process killed between
// those steps, and is deleted in turn after a restart (Saver); one without
// a mark was copied in, written by TensorFlow, or kept for good.
std::string UnrecordedMarkerFilename(absl::string_view prefix);

// The step a checkpoint's name ends with ("model.ckpt-300" -> 300), or -1.
int64_t CheckpointStep(absl::string_view prefix);

// The checkpoint a file of a directory belongs to: "model-5" for
// "model-5.index", "model-5.data-00000-of-00001", "model-5.meta",
// "model-5.lease" and "model-5.unrecorded"; "" for any other name.
std::string CheckpointNameOfFile(absl::string_view filename);

// True when `name` ("model.ckpt-300", without a directory) is `base` or
// "<base>-<digits>". An empty `base` matches every name.
bool IsCheckpointOf(absl::string_view base, absl::string_view name);

// "<dir>/checkpoint.lease", written by such a Saver beside its state file.
// A restore holds a shared lock on it from reading the state file until it
// has read the checkpoint the state names, and retention deletes only while
// it holds the exclusive lock: a checkpoint cannot go between a reader
// choosing it and the reader taking its lease.
std::string DirectoryLeaseFilename(absl::string_view dir);

}  // namespace minigraph

#endif  // MINIGRAPH_CHECKPOINT_NAMING_H_
