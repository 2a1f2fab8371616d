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

#ifndef MINIGRAPH_CHECKPOINT_BUNDLE_READER_H_
#define MINIGRAPH_CHECKPOINT_BUNDLE_READER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "checkpoint/proto/tensor_bundle.pb.h"
#include "checkpoint/tensor_slice.h"
#include "checkpoint/v1_checkpoint.h"
#include "core/allocator.h"
#include "core/env.h"
#include "core/tensor.h"

namespace minigraph {

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

  const std::string& prefix() const { return prefix_; }
  // 2, or 1 for TensorFlow's V1 format.
  int format_version() const { return v1_ == nullptr ? 2 : 1; }
  // The data files (V2) or the files (V1).
  int num_shards() const { return num_shards_; }
  // Every tensor key, sorted bytewise. (For V1, and V2 tensors
  // saved in slices, their names; a V2 checkpoint also has a key per slice,
  // 0x00 and the name in OrderedCode.)
  const std::vector<std::string>& keys() const { return keys_; }
  // The tensors' names: keys() without the slice keys (what TensorFlow's
  // CheckpointReader and list_variables show).
  std::vector<std::string> tensor_names() const;
  bool Contains(absl::string_view key) const { return entries_.find(key) != entries_.end(); }

  // The entry of `key`, or NotFound naming the key and checkpoint.
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

  // Reads keys[i] into dsts[i] for every i, as ReadInto does, and sets
  // (*status)[i] to each one's outcome. When the entries are of fixed-size
  // dtypes and lie back to back in one data file, in this order, their bytes
  // come in one file read (a checkpoint of many small tensors then costs a
  // system call per run of them, not per tensor); otherwise each is read by
  // ReadInto. REQUIRES: the three have the same size.
  void ReadRunInto(absl::Span<const absl::string_view> keys, absl::Span<Tensor* const> dsts,
                   absl::Span<absl::Status> status) const;

  ~BundleReader();

 private:
  BundleReader(Env* env, std::string prefix) : env_(env), prefix_(std::move(prefix)) {}
  absl::Status Init();
  // When the checkpoint has a lease file (LeaseFilename: its Saver was asked
  // for leases), a shared lock on it for the reader's life, so retention
  // leaves the checkpoint in place meanwhile. Readers never create files.
  absl::Status TakeLease();
  // The entry of `key` if this reader can read it (not sliced, a supported
  // dtype), else NotFound or Unimplemented naming the key.
  absl::StatusOr<const BundleEntryProto*> ReadableEntry(absl::string_view key) const;
  absl::Status ReadBytes(const BundleEntryProto& e, absl::string_view key, char* dst,
                         bool verify_crc) const;
  // DataLoss naming `key` unless `crc` is the entry's.
  absl::Status CheckCrc(const BundleEntryProto& e, absl::string_view key, uint32_t crc) const;
  // InvalidArgument naming `key` unless `dst` has the entry's dtype and shape.
  absl::Status CheckDestination(const BundleEntryProto& e, absl::string_view key,
                                const Tensor& dst) const;
  // DataLoss naming `key` unless its slices are valid, apart and stored
  // (with the full tensor's dtype and each slice's shape).
  absl::Status CheckSlices(const std::string& key, const BundleEntryProto& e) const;
  // Assembles `slice` of the partitioned tensor `key` (entry `e`) into
  // `dst`, which has the slice's shape.
  absl::Status ReadSliceInto(const BundleEntryProto& e, absl::string_view key,
                             const TensorSlice& slice, Tensor* dst) const;
  // Reads and verifies a string entry of `n` elements; returns its bytes.
  absl::StatusOr<std::string> ReadStrings(const BundleEntryProto& e, absl::string_view key,
                                          int64_t n) const;

  Env* const env_;
  const std::string prefix_;
  int num_shards_ = 0;
  std::map<std::string, BundleEntryProto, std::less<>> entries_;
  std::vector<std::string> keys_;
  std::vector<std::unique_ptr<RandomAccessFile>> data_files_;
  std::vector<uint64_t> data_sizes_;
  std::unique_ptr<FileLock> lease_;
  std::unique_ptr<V1Checkpoint> v1_;  // set for a V1 checkpoint
};

}  // namespace minigraph

#endif  // MINIGRAPH_CHECKPOINT_BUNDLE_READER_H_
