// Writes a checkpoint in TensorFlow's V2 format: "<prefix>.index" (a table
// of tensor entries) and "<prefix>.data-00000-of-00001" (their bytes).
//
//   MG_ASSIGN_OR_RETURN(auto writer, BundleWriter::Create(env, "/ckpt/model-5"));
//   MG_RETURN_IF_ERROR(writer->Add("layer1/weight", w));
//   MG_RETURN_IF_ERROR(writer->Finish());
//
// Crash-safe: both files are written under temporary names
// ("<name>.tempstate<random>", locked while written: CreateLockedTempFile in
// temp_files.h), synced, renamed into place (data first, index last) and the
// directory synced, so a checkpoint is visible (has an index) only when
// complete. Several writers of one prefix (threads or
// processes) each write their own temporary files and commit one at a time
// under the directory's lock (Env::LockFile): the checkpoint left is one
// writer's whole, never a mix. One writer is not thread-safe.
//
// Tensors below 1 MiB are copied into a staging buffer with their crc32c
// computed in the same pass (crc32c::CopyAndExtend) and reach the file a
// buffer at a time; larger ones are written from the tensor's own memory.

#ifndef MINIGRAPH_CHECKPOINT_BUNDLE_WRITER_H_
#define MINIGRAPH_CHECKPOINT_BUNDLE_WRITER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "checkpoint/saved_slices.h"
#include "core/env.h"
#include "core/tensor.h"

namespace minigraph {

struct BundleWriterOptions {
  // Where each tensor's bytes start in the data file: a multiple of this
  // (a power of two), zeros filling the gaps. 1 (the default) writes them
  // back to back, as TensorFlow does, byte for byte. 64 or the page size
  // lets a reader use the bytes in place (BundleReader::ReadInPlace), and
  // TensorFlow reads such a checkpoint all the same: entries say where
  // their bytes are.
  size_t alignment = 1;
};

class BundleWriter {
 public:
  // Creates the prefix's directory if missing and opens the temporary data
  // file. `env` (not owned) must outlive the writer.
  // InvalidArgument for an alignment that is not a power of two.
  static absl::StatusOr<std::unique_ptr<BundleWriter>> Create(
      Env* env, std::string prefix, const BundleWriterOptions& options = BundleWriterOptions());
  // Deletes the temporary files unless Finish() succeeded.
  ~BundleWriter();

  // Appends `t`'s bytes to the data file. Returns InvalidArgument for an
  // empty or duplicate key or a dtype that cannot be saved (resource,
  // variant), or the file's error. Errors are sticky.
  absl::Status Add(absl::string_view key, const Tensor& t);

  // Adds `t` as slice `slice` of the tensor `key` of shape `full_shape`, as
  // a partitioned variable's part saves (TensorFlow's BundleWriter::AddSlice):
  // a slice that covers the whole tensor is added as the tensor; otherwise
  // the slice's bytes go under EncodeTensorNameSlice(key, slice) and the
  // entry of `key` lists the slice. InvalidArgument when `t` is not the
  // slice's shape, the slice does not fit `full_shape`, or `key` was added
  // whole or with another dtype or full shape.
  absl::Status AddSlice(absl::string_view key, const TensorShape& full_shape,
                        const TensorSlice& slice, const Tensor& t);
  // Writes the index and moves both files into place. FailedPrecondition
  // when called twice.
  absl::Status Finish();

  const std::string& prefix() const;

 private:
  class Impl;
  explicit BundleWriter(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

}  // namespace minigraph

#endif  // MINIGRAPH_CHECKPOINT_BUNDLE_WRITER_H_
