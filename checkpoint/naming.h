// File names of a checkpoint (tensor bundle) with prefix P, as TensorFlow
// spells them.
//
//   MetaFilename("/ckpt/model-5")            // "/ckpt/model-5.index"
//   DataFilename("/ckpt/model-5", 0, 1)      // "/ckpt/model-5.data-00000-of-00001"

#ifndef MINIGRAPH_CHECKPOINT_NAMING_H_
#define MINIGRAPH_CHECKPOINT_NAMING_H_

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

// "<prefix>.unrecorded", written by a Saver before it saves a checkpoint it
// will record in the state file and deleted once the state file names it: a
// complete checkpoint that still has one was saved by a process killed
// before it recorded it (minigraph's; TensorFlow never deletes those).
std::string UnrecordedMarkerFilename(absl::string_view prefix);

// "<dir>/checkpoint.lease", written by such a Saver beside its state file.
// A restore holds a shared lock on it from reading the state file until it
// has read the checkpoint the state names, and retention deletes only while
// it holds the exclusive lock: a checkpoint cannot go between a reader
// choosing it and the reader taking its lease.
std::string DirectoryLeaseFilename(absl::string_view dir);

}  // namespace minigraph

#endif  // MINIGRAPH_CHECKPOINT_NAMING_H_
