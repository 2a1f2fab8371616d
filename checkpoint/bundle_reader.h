// Reads a checkpoint in TensorFlow's V2 format, written by BundleWriter or by
// TensorFlow (SaveV2, tf.train.Saver, tf.train.Checkpoint, SavedModel), or
// in its V1 format (before 2016: a single file, or shard files named by a
// pattern, and no ".index"; v1_checkpoint.h).
//
//   MG_ASSIGN_OR_RETURN(auto reader, BundleReader::Open(env, "/ckpt/model-5"));
//   for (const std::string& key : reader->keys()) { ... }
//   MG_ASSIGN_OR_RETURN(Tensor w, reader->Lookup("layer1/weight"));
//   MG_RETURN_IF_ERROR(reader->ReadInto("layer1/weight", &existing));  // no copy
//   MG_ASSIGN_OR_RETURN(Tensor rows, reader->LookupSlice("emb", *TensorSlice::Parse("0,5:-")));
//
// Open() reads and checks the whole index (every block crc, the header, and
// every entry against its data file); tensor reads check the payload's
// crc32c. Errors name the file and the tensor key. After Open the reader is
// safe for concurrent reads of tensors.
//
// Where the Env maps files (Env::MapFile: the POSIX one), the data files are
// mapped and each tensor is copied and checksummed in one pass from the page
// cache (crc32c::CopyAndExtend); a data file deleted meanwhile stays
// readable, and one truncated in place meanwhile fails the read with
// DataLoss (RunCatchingBusErrors). Elsewhere tensors are read with pread.

#ifndef MINIGRAPH_CHECKPOINT_BUNDLE_READER_H_
#define MINIGRAPH_CHECKPOINT_BUNDLE_READER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "checkpoint/saved_slices.h"
#include "core/allocator.h"
#include "core/env.h"
#include "core/tensor.h"

namespace minigraph {

class BundleEntryProto;

class BundleReader {
 public:
  // A V2 checkpoint when "<prefix>.index" exists; else V1 when `prefix` is
  // a file, or a pattern (`*`, `?`, `[...]` in its last component) matching
  // files. Returns NotFound when there is neither, or a data file is
  // missing; DataLoss for a corrupt or truncated index, a header
  // or entry that does not parse, a shard id out of range, an entry whose
  // size does not fit its dtype and shape or whose bytes lie past the end of
  // its data file; Unimplemented for a version or byte order this reader
  // cannot read. `env` (not owned) must outlive the reader.
  static absl::StatusOr<std::unique_ptr<BundleReader>> Open(Env* env, std::string prefix);

  const std::string& prefix() const;
  // 2, or 1 for TensorFlow's V1 format.
  int format_version() const;
  // The data files (V2) or the files (V1).
  int num_shards() const;
  // Every tensor key, sorted bytewise. (For V1, and V2 tensors
  // saved in slices, their names; a V2 checkpoint also has a key per slice,
  // 0x00 and the name in OrderedCode.)
  const std::vector<std::string>& keys() const;
  // The tensors' names: keys() without the slice keys (what TensorFlow's
  // CheckpointReader and list_variables show).
  std::vector<std::string> tensor_names() const;
  bool Contains(absl::string_view key) const;

  // The entry of `key`, or NotFound naming the key and checkpoint
  // (checkpoint/proto/tensor_bundle.pb.h defines BundleEntryProto).
  absl::StatusOr<const BundleEntryProto*> GetEntry(absl::string_view key) const;
  absl::StatusOr<TensorShape> GetShape(absl::string_view key) const;

  // Reads `key` into a new tensor from `allocator`. Returns NotFound for an
  // unknown key, Unimplemented for a variant entry, DataLoss when the bytes
  // are short or their crc32c does not match. A partitioned tensor (saved
  // in slices) comes assembled from its slices.
  absl::StatusOr<Tensor> Lookup(absl::string_view key,
                                Allocator* allocator = DefaultAllocator()) const;

  // Reads `slice` of `key`'s tensor, from the slices it was saved in or
  // from the whole tensor. InvalidArgument when the slice does not fit the
  // tensor's shape, or when the saved slices do not cover it ("Does not
  // have sufficient slices for partitioned tensor ...", as TensorFlow says).
  absl::StatusOr<Tensor> LookupSlice(absl::string_view key, const TensorSlice& slice,
                                     Allocator* allocator = DefaultAllocator()) const;

  // Reads `key` straight into `dst`'s buffer. REQUIRES: `dst` has the
  // entry's dtype and shape (else InvalidArgument naming both).
  absl::Status ReadInto(absl::string_view key, Tensor* dst) const;

  // Claims `key` for ReadInPlace: true when its bytes can be used where
  // they lie, and no one claimed them from this reader before (two tensors
  // over the same memory would see each other's writes). They can when the
  // data file is mapped and guarded (Env::MapFile, MappedFile::guarded),
  // the dtype is a plain number (float, double, signed and unsigned
  // integers: nothing to construct or normalize) and the bytes start at a
  // multiple of kTensorAlignment (a checkpoint saved with
  // BundleWriterOptions::alignment, SaverOptions::align_tensors).
  bool ClaimInPlace(absl::string_view key) const;
  // `key` as a tensor over the mapped data file's pages: no copy and no new
  // memory, the crc32c checked (one read of every byte). The tensor keeps
  // the mapping alive; its pages are shared with every process that maps
  // the file until written: a write (an optimizer's update) copies the
  // page it lands on, and the file never changes. The bytes stay as they
  // were if the file is deleted, truncated or rewritten meanwhile (the
  // mapping's lease). FailedPrecondition unless ClaimInPlace(key) was true.
  absl::StatusOr<Tensor> ReadInPlace(absl::string_view key) const;

  // Starts reading the bytes of `keys` into the page cache in the
  // background, in file order, where they are not there yet (a cold
  // restore then reads each data file front to back at the disk's pace
  // while tensors are copied out, whatever order they are copied in).
  // Unknown keys are skipped. Nothing happens where files are not mapped.
  void ReadAhead(absl::Span<const absl::string_view> keys) const;

  // Reads keys[i] into dsts[i] for every i, as ReadInto does, and sets
  // (*status)[i] to each one's outcome. When the entries are of fixed-size
  // dtypes and lie back to back in one data file, in this order, their bytes
  // come in one file read (a checkpoint of many small tensors then costs a
  // system call per run of them, not per tensor), unless the file is mapped;
  // otherwise each is read by ReadInto. REQUIRES: the three have the same size.
  void ReadRunInto(absl::Span<const absl::string_view> keys, absl::Span<Tensor* const> dsts,
                   absl::Span<absl::Status> status) const;

  ~BundleReader();

 private:
  class Impl;
  explicit BundleReader(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

}  // namespace minigraph

#endif  // MINIGRAPH_CHECKPOINT_BUNDLE_READER_H_
