// Reads TensorFlow's V1 checkpoints: the format of tf.train.Saver before
// 2016 (write_version=V1), one table file per shard and no ".index". The
// file is a LevelDB-format table (the container of the V2 ".index"); key ""
// holds the table of contents, every other key one slice of one tensor
// with its elements inline (proto/saved_tensor_slice.proto,
// checkpoint/FORMAT.md, "V1 checkpoints"). Minigraph reads V1 and
// writes only V2, as TensorFlow has done since 1.0.
//
// BundleReader::Open reads V1 through this; callers use BundleReader.

#ifndef MINIGRAPH_CHECKPOINT_V1_CHECKPOINT_H_
#define MINIGRAPH_CHECKPOINT_V1_CHECKPOINT_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "checkpoint/proto/tensor_bundle.pb.h"
#include "checkpoint/saved_slices.h"
#include "checkpoint/table.h"
#include "core/env.h"
#include "core/tensor.h"

namespace minigraph {

// The files of the V1 checkpoint `pattern`: the file itself, or the shard
// files a pattern with wildcards matches ("model.ckpt-?????-of-00002", as a
// sharded V1 Saver records it). Empty when it names no file.
absl::StatusOr<std::vector<std::string>> V1CheckpointFiles(Env* env, const std::string& pattern);

// Safe for concurrent reads after Open.
class V1Checkpoint {
 public:
  // Opens every file of `files` (their table footers and index blocks) and
  // reads and checks their tables of contents: the version, each tensor's
  // dtype and shape (the same in every file that holds part of it), its
  // slices within the shape and apart. DataLoss naming the file and tensor
  // when one of these fails; Unimplemented naming the tensor for a dtype V1
  // never stored.
  static absl::StatusOr<std::unique_ptr<V1Checkpoint>> Open(Env* env,
                                                            const std::vector<std::string>& files);

  // Per tensor name, as a V2 index entry: dtype, shape and the slices saved
  // (V1 saves every tensor as slices; a whole one as one slice).
  const std::map<std::string, BundleEntryProto, std::less<>>& entries() const { return entries_; }

  // Reads slice `slice`, one of those entries() lists, of tensor `name`.
  // DataLoss naming the file and tensor when its record is missing or
  // corrupt or holds another number of elements than the slice has.
  absl::StatusOr<Tensor> ReadSlice(absl::string_view name, const TensorSlice& slice) const;

  ~V1Checkpoint();

 private:
  V1Checkpoint() = default;

  std::vector<std::unique_ptr<table::TableReader>> files_;
  std::map<std::string, BundleEntryProto, std::less<>> entries_;
  std::map<std::string, int, std::less<>> slice_file_;  // slice key -> files_ index
};

}  // namespace minigraph

#endif  // MINIGRAPH_CHECKPOINT_V1_CHECKPOINT_H_
