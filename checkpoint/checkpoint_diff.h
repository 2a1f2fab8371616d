// What restoring a checkpoint into a model would find, before restoring:
// the tensors the model expects that the checkpoint lacks, the checkpoint's
// keys nothing expects, and dtype or shape mismatches, with a rename hint for
// a missing tensor when an unused key of the same dtype and shape has a
// similar name ("dense/kernel" for "model/dense/kernel").
//
//   MG_ASSIGN_OR_RETURN(auto reader, BundleReader::Open(env, prefix));
//   CheckpointDiff d = DiffCheckpoint(*reader, {{"w", DT_FLOAT, TensorShape({4})}});
//   if (!d.compatible()) std::cout << d.ToString();
//
// The checkpoint side knows tensors, not graphs: callers list what the model
// expects (tools/inspect_checkpoint reads a graph's variables for it).
//
// Every function opens its own readers: safe to call from several threads
// at once.

#ifndef MINIGRAPH_CHECKPOINT_CHECKPOINT_DIFF_H_
#define MINIGRAPH_CHECKPOINT_CHECKPOINT_DIFF_H_

#include <optional>
#include <string>
#include <vector>

#include "checkpoint/bundle_reader.h"
#include "core/tensor_shape.h"
#include "core/types.h"

namespace minigraph {

struct ExpectedTensor {
  std::string key;
  DataType dtype = DT_INVALID;
  std::optional<TensorShape> shape;  // nullopt: any shape will do
};

struct CheckpointDiff {
  struct Missing {
    ExpectedTensor expected;
    std::string renamed_from;  // an unused key that may be it, or ""
  };
  struct Mismatch {
    ExpectedTensor expected;
    DataType dtype = DT_INVALID;  // the checkpoint's
    TensorShape shape;
  };
  struct Unused {
    std::string key;  // a checkpoint key nothing expects
    DataType dtype = DT_INVALID;
    std::optional<TensorShape> shape;
  };
  std::vector<Missing> missing;
  std::vector<Unused> unused;
  std::vector<Mismatch> mismatched;
  int expected = 0, keys = 0;

  // Restoring would succeed: nothing missing or mismatched (unused keys are
  // fine, as TensorFlow's restore ignores them).
  bool compatible() const { return missing.empty() && mismatched.empty(); }
  // One line per finding (tab-separated: missing|unused|mismatch, key,
  // details), then a summary line.
  std::string ToString() const;
};

CheckpointDiff DiffCheckpoint(const BundleReader& reader,
                              const std::vector<ExpectedTensor>& expected);

}  // namespace minigraph

#endif  // MINIGRAPH_CHECKPOINT_CHECKPOINT_DIFF_H_
