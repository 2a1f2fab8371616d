// Writes V1 checkpoints as TensorFlow's TensorSliceWriter did (before 2016),
// for tests of the V1 reader: minigraph itself writes only V2. The records
// follow tensorflow/core/util/tensor_slice_writer.h: the table of contents
// under "" with versions {producer: 1}, and each slice under its
// EncodeTensorNameSlice key with its elements in the dtype's typed field.
//
//   ASSERT_OK(WriteV1Checkpoint(&env, "/ckpt/model", {{"w", w.shape(), Full(2), w}}));

#ifndef MINIGRAPH_CHECKPOINT_V1_TEST_WRITER_H_
#define MINIGRAPH_CHECKPOINT_V1_TEST_WRITER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "checkpoint/tensor_slice.h"
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
// each) to the single file `path`.
absl::Status WriteV1Checkpoint(Env* env, const std::string& path,
                               const std::vector<V1Slice>& slices);

}  // namespace minigraph

#endif  // MINIGRAPH_CHECKPOINT_V1_TEST_WRITER_H_
