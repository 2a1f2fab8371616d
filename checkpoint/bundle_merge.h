// Merges checkpoints written separately (one per shard of a sharded save)
// into one checkpoint, as TensorFlow's MergeBundles / MergeV2Checkpoints:
// data files are renamed, not copied, and a new index lists every entry.
//
//   MG_RETURN_IF_ERROR(MergeBundles(env, {"/c/tmp/part-00000-of-00002",
//                                         "/c/tmp/part-00001-of-00002"}, "/c/model-5"));
//
// Thread safety: MergeBundles keeps no state of its own; merges running at once
// must write different prefixes.

#ifndef MINIGRAPH_CHECKPOINT_BUNDLE_MERGE_H_
#define MINIGRAPH_CHECKPOINT_BUNDLE_MERGE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/env.h"

namespace minigraph {

// Returns InvalidArgument when two inputs hold one key, or the readers' and
// Env's errors. With `delete_old_dirs`, the inputs' directories are removed
// when empty afterwards. Crash-safe like BundleWriter: the merged index is
// renamed into place last.
absl::Status MergeBundles(Env* env, const std::vector<std::string>& prefixes,
                          const std::string& merged_prefix, bool delete_old_dirs = true);

}  // namespace minigraph

#endif  // MINIGRAPH_CHECKPOINT_BUNDLE_MERGE_H_
