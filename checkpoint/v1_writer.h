// Writes checkpoints in TensorFlow's V1 format (one table file), as
// TensorFlow's TensorSliceWriter does for its Save and SaveSlices ops: the
// table of contents under "" with versions {producer: 1}, then each slice
// under its EncodeTensorNameSlice key with its elements in the dtype's
// typed TensorProto field. TensorFlow 1.0 made V2 the Saver's default;
// graphs from before it, and tf.compat.v1.train.Saver(write_version=V1),
// still run Save ops, and checkpoint/v1_checkpoint.h reads what they write.
//
//   MG_RETURN_IF_ERROR(WriteV1Checkpoint(env, "/ckpt/model",
//                                        {{"w", w.shape(), TensorSlice::Full(2), w}}));
//
// Thread safety: WriteV1Checkpoint keeps no state; writes of one path running
// at once each leave a whole file (the last rename wins).

#ifndef MINIGRAPH_CHECKPOINT_V1_WRITER_H_
#define MINIGRAPH_CHECKPOINT_V1_WRITER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "checkpoint/saved_slices.h"
#include "core/env.h"
#include "core/tensor.h"

namespace minigraph {

struct V1Slice {
  std::string name;
  TensorShape shape;  // the whole tensor's
  TensorSlice slice;
  Tensor data;  // the slice's elements
};

// Writes `slices` (in any order; a name may come several times, one slice
// each, with the same shape and dtype) to the single file `path`, through a
// locked "<path>.tempstate<random>" renamed into place once complete, so a
// reader never sees half a file. The same bytes as TensorFlow's Save.
// Errors, with TensorFlow's codes, name the tensor: uint32 and uint64
// (InvalidArgument) and bfloat16 (Unimplemented), which V1 cannot hold;
// data not of the slice's shape (InvalidArgument); a slice outside its
// shape, or a name saved before with another shape or dtype (Internal).
// Unlike TensorFlow, which writes them and then cannot restore the file,
// slices of one name that overlap are refused (InvalidArgument).
absl::Status WriteV1Checkpoint(Env* env, const std::string& path,
                               const std::vector<V1Slice>& slices);

}  // namespace minigraph

#endif  // MINIGRAPH_CHECKPOINT_V1_WRITER_H_
