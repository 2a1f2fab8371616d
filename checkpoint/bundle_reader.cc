#include "checkpoint/bundle_reader.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "checkpoint/format_version.h"
#include "checkpoint/naming.h"
#include "checkpoint/proto/tensor_bundle.pb.h"
#include "checkpoint/table.h"
#include "checkpoint/v1_checkpoint.h"
#include "core/bus_errors.h"
#include "core/coding.h"
#include "core/crc32c.h"
#include "core/status_macros.h"

namespace minigraph {
namespace {

// One tensor's bytes where they lie in a mapped data file: the allocator
// of that tensor alone, which keeps the mapping alive while the tensor's
// buffer lives and deletes itself when it is freed.
class InPlace final : public Allocator {
 public:
  // `tensor` of checkpoint data file `path`, at `data` in its mapping.
  InPlace(std::shared_ptr<const MappedFile> file, char* data, std::string tensor,
          std::string path)
      : file_(std::move(file)), data_(data), tensor_(std::move(tensor)), path_(std::move(path)) {}
  std::string Name() const override { return "checkpoint mapping"; }
  void* Allocate(size_t bytes) override { return data_; }
  void Deallocate(void* p, size_t bytes) override { delete this; }
  absl::Status CheckIntact() const override {
    if (!file_->lease_revoked()) return absl::OkStatus();
    return absl::DataLossError(absl::StrCat(
        "tensor \"", tensor_, "\", read in place from ", path_,
        ", may have been changed by another process: the file's lease was revoked while this "
        "process did not answer (stopped longer than /proc/sys/fs/lease-break-time), so the "
        "bytes it had not written are no longer the checkpoint's; restore it again"));
  }

 private:
  const std::shared_ptr<const MappedFile> file_;
  char* const data_;
  const std::string tensor_;
  const std::string path_;
};

// Dtypes whose tensors can sit on a file's bytes as they are: nothing to
// construct (a Tensor of complex or half numbers zeroes its elements when
// made) or to normalize (bools).
bool UsableInPlace(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
    case DT_DOUBLE:
    case DT_INT8:
    case DT_INT16:
    case DT_INT32:
    case DT_INT64:
    case DT_UINT8:
    case DT_UINT16:
    case DT_UINT32:
    case DT_UINT64:
      return true;
    default:
      return false;
  }
}

// Reads run in chunks so each chunk's crc is computed while it is in cache.
// From a cold page cache, a chunk no larger than the kernel's readahead
// window keeps the disk busy while the chunk before is checked: 1 MiB
// against 8 MiB, interleaved, restored 256 MiB at 0.93-0.97 of the best
// plain cold read instead of 0.85-0.87, and 64 MiB at 0.80-0.88 instead of
// 0.54-0.61; warm restores did not change (512 KiB was no better).
constexpr size_t kReadChunk = size_t{1} << 20;

// TensorFlow's reader version (kTensorBundleVersion = 1 consumes producers
// >= kTensorBundleMinProducer = 0).
constexpr int kConsumerVersion = 1;

// "P.index", "P.data-00000-of-00001" or "P.meta" -> "P".
std::optional<std::string> PrefixOfCheckpointFile(absl::string_view path) {
  for (absl::string_view suffix : {".index", ".meta"}) {
    if (absl::EndsWith(path, suffix))
      return std::string(path.substr(0, path.size() - suffix.size()));
  }
  const size_t dot = path.rfind(".data-");
  if (dot != absl::string_view::npos && IsDataFilenameOf(path.substr(0, dot), path)) {
    return std::string(path.substr(0, dot));
  }
  return std::nullopt;
}

}  // namespace

// The reader's state and its work, behind the header's interface.
class BundleReader::Impl {
 public:
  Impl(Env* env, std::string prefix) : env_(env), prefix_(std::move(prefix)) {}
  absl::Status Init();
  const std::string& prefix() const { return prefix_; }
  int format_version() const { return v1_ == nullptr ? 2 : 1; }
  int num_shards() const { return num_shards_; }
  const std::vector<std::string>& keys() const { return keys_; }
  std::vector<std::string> tensor_names() const;
  bool Contains(absl::string_view key) const { return entries_.find(key) != entries_.end(); }
  absl::StatusOr<const BundleEntryProto*> GetEntry(absl::string_view key) const;
  absl::StatusOr<TensorShape> GetShape(absl::string_view key) const;
  absl::StatusOr<Tensor> Lookup(absl::string_view key, Allocator* allocator) const;
  bool ClaimInPlace(absl::string_view key) const;
  absl::StatusOr<Tensor> ReadInPlace(absl::string_view key) const;
  void ReadAhead(absl::Span<const absl::string_view> keys) const;
  absl::StatusOr<Tensor> LookupSlice(absl::string_view key, const TensorSlice& slice,
                                     Allocator* allocator) const;
  absl::Status ReadInto(absl::string_view key, Tensor* dst) const;
  void ReadRunInto(absl::Span<const absl::string_view> keys, absl::Span<Tensor* const> dsts,
                   absl::Span<absl::Status> status) const;

 private:
  // Init's steps: a checkpoint without an index (a file of one given
  // instead of its prefix, V1, or none); the index's header and entries,
  // each checked against the header and its dtype and shape; the data
  // files; every entry within its file.
  absl::Status InitWithoutIndex(const std::string& index);
  absl::Status ReadIndex(const std::string& index);
  absl::Status ReadHeader(const std::string& index, absl::string_view value);
  absl::Status CheckEntry(const std::string& index, absl::string_view key,
                          const BundleEntryProto& entry) const;
  absl::Status OpenDataFiles();
  absl::Status CheckEntriesInFiles() const;
  // When the checkpoint has a lease file (LeaseFilename: its Saver was asked
  // for leases), a shared lock on it for the reader's life, so retention
  // leaves the checkpoint in place meanwhile. Readers never create files.
  absl::Status TakeLease();
  // The entry of `key` if this reader can read it (not sliced, a supported
  // dtype), else NotFound or Unimplemented naming the key.
  absl::StatusOr<const BundleEntryProto*> ReadableEntry(absl::string_view key) const;
  absl::Status ReadBytes(const BundleEntryProto& e, absl::string_view key, char* dst,
                         bool verify_crc) const;
  // DataLoss naming `key`: its data file is shorter than when Init checked.
  absl::Status Shrank(const BundleEntryProto& e, absl::string_view key) const;
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
  // Each data file mapped (Env::MapFile), or null where the Env cannot map:
  // a mapped file's tensors are copied and checksummed in one pass
  // (crc32c::CopyAndExtend) straight from the page cache.
  std::vector<std::shared_ptr<const MappedFile>> maps_;
  // The keys ClaimInPlace gave out.
  mutable absl::Mutex claimed_mu_;
  mutable absl::flat_hash_set<std::string> claimed_ ABSL_GUARDED_BY(claimed_mu_);
  std::vector<uint64_t> data_sizes_;
  std::unique_ptr<FileLock> lease_;
  std::unique_ptr<V1Checkpoint> v1_;  // set for a V1 checkpoint
};


absl::Status BundleReader::Impl::Init() {
  const std::string index = MetaFilename(prefix_);
  if (!env_->FileExists(index).ok()) return InitWithoutIndex(index);
  MG_RETURN_IF_ERROR(TakeLease());
  MG_RETURN_IF_ERROR(ReadIndex(index));
  MG_RETURN_IF_ERROR(OpenDataFiles());
  return CheckEntriesInFiles();
}

absl::Status BundleReader::Impl::InitWithoutIndex(const std::string& index) {
  // A file of the checkpoint given instead of its prefix.
  if (std::optional<std::string> stripped = PrefixOfCheckpointFile(prefix_);
      stripped.has_value() && env_->FileExists(MetaFilename(*stripped)).ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        prefix_, " is a file of checkpoint ", *stripped,
        "; pass the checkpoint's prefix (without .index, .data-* or .meta): ", *stripped));
  }
  MG_ASSIGN_OR_RETURN(std::vector<std::string> v1_files, V1CheckpointFiles(env_, prefix_));
  if (!v1_files.empty()) {
    MG_ASSIGN_OR_RETURN(v1_, V1Checkpoint::Open(env_, v1_files));
    num_shards_ = static_cast<int>(v1_files.size());
    entries_ = v1_->entries();
    for (const auto& [key, e] : entries_) keys_.push_back(key);
    return absl::OkStatus();
  }
  return absl::NotFoundError(absl::StrCat("checkpoint index ", index, " not found",
                                          prefix_.find_first_of("*?[") == std::string::npos
                                              ? ""
                                              : ", and no file matches the pattern"));
}

absl::Status BundleReader::Impl::ReadHeader(const std::string& index, absl::string_view value) {
  BundleHeaderProto header;
  if (!header.ParseFromArray(value.data(), static_cast<int>(value.size()))) {
    return absl::DataLossError(
        absl::StrCat("checkpoint ", index, ": the header entry does not parse"));
  }
  MG_RETURN_IF_ERROR(CheckFormatVersion(header.version(), kConsumerVersion,
                                        absl::StrCat("checkpoint ", index)));
  if (header.endianness() != BundleHeaderProto::LITTLE) {
    return absl::UnimplementedError(absl::StrCat(
        "checkpoint ", index, " was written on a big-endian machine; not supported"));
  }
  if (header.num_shards() <= 0) {
    return absl::DataLossError(
        absl::StrCat("checkpoint ", index, " has ", header.num_shards(), " shards"));
  }
  num_shards_ = header.num_shards();
  return absl::OkStatus();
}

absl::Status BundleReader::Impl::CheckEntry(const std::string& index, absl::string_view key,
                                            const BundleEntryProto& entry) const {
  auto bad = [&](absl::string_view why) {
    return absl::DataLossError(
        absl::StrCat("checkpoint ", index, ": entry for tensor \"", key, "\" ", why));
  };
  if (entry.slices_size() > 0) return absl::OkStatus();  // CheckSlices, once all are read
  if (entry.shard_id() < 0 || entry.shard_id() >= num_shards_) {
    return bad(absl::StrCat("has shard id ", entry.shard_id(), ", out of range [0, ", num_shards_,
                            ")"));
  }
  if (entry.offset() < 0 || entry.size() < 0) return bad("has a negative offset or size");
  auto shape = TensorShape::FromProto(entry.shape());
  if (!shape.ok()) return bad(absl::StrCat("has an invalid shape: ", shape.status().message()));
  if (DataTypeCanUseMemcpy(entry.dtype())) {
    uint64_t want;
    if (__builtin_mul_overflow(static_cast<uint64_t>(shape->num_elements()),
                               DataTypeSize(entry.dtype()), &want) ||
        want != static_cast<uint64_t>(entry.size())) {
      return bad(absl::StrCat("has size ", entry.size(), ", but ", DataTypeName(entry.dtype()),
                              " ", shape->DebugString(), " needs ", want));
    }
  } else if (entry.dtype() == DT_STRING) {
    // At least one length byte per string plus the length checksum.
    if (entry.size() < shape->num_elements() + 4) {
      return bad(absl::StrCat("has size ", entry.size(), ", too small for ",
                              shape->num_elements(), " strings"));
    }
  }
  return absl::OkStatus();
}

absl::Status BundleReader::Impl::ReadIndex(const std::string& index) {
  bool have_header = false;
  MG_RETURN_IF_ERROR(table::ReadTable(
      env_, index, [&](absl::string_view key, absl::string_view value) -> absl::Status {
        if (key.empty()) {
          MG_RETURN_IF_ERROR(ReadHeader(index, value));
          have_header = true;
          return absl::OkStatus();
        }
        if (!have_header) {
          return absl::DataLossError(
              absl::StrCat("checkpoint ", index, " has no header entry before \"", key, "\""));
        }
        BundleEntryProto entry;
        if (!entry.ParseFromArray(value.data(), static_cast<int>(value.size()))) {
          return absl::DataLossError(absl::StrCat("checkpoint ", index, ": entry for tensor \"",
                                                  key, "\" does not parse"));
        }
        MG_RETURN_IF_ERROR(CheckEntry(index, key, entry));
        keys_.push_back(std::string(key));
        entries_.emplace(std::string(key), std::move(entry));
        return absl::OkStatus();
      }));
  if (!have_header) {
    return absl::DataLossError(absl::StrCat("checkpoint ", index, " has no header entry"));
  }
  return absl::OkStatus();
}

absl::Status BundleReader::Impl::OpenDataFiles() {
  for (int s = 0; s < num_shards_; ++s) {
    const std::string path = DataFilename(prefix_, s, num_shards_);
    auto size = env_->GetFileSize(path);
    if (!size.ok()) {
      return absl::NotFoundError(absl::StrCat("data file ", path, " of checkpoint ", prefix_,
                                              " is missing: ", size.status().message()));
    }
    MG_ASSIGN_OR_RETURN(auto file, env_->NewRandomAccessFile(path));
    data_files_.push_back(std::move(file));
    // Where mapping fails (an Env of in-memory files, a file system without
    // mmap, a ThreadSanitizer build), reads go through the file.
    absl::StatusOr<std::unique_ptr<MappedFile>> map = env_->MapFile(path);
    maps_.push_back(map.ok() ? *std::move(map) : nullptr);
    data_sizes_.push_back(maps_.back() != nullptr ? maps_.back()->size() : *size);
  }
  return absl::OkStatus();
}

absl::Status BundleReader::Impl::CheckEntriesInFiles() const {
  for (const auto& [key, e] : entries_) {
    if (e.slices_size() > 0) {
      MG_RETURN_IF_ERROR(CheckSlices(key, e));
      continue;
    }
    const uint64_t end = static_cast<uint64_t>(e.offset()) + static_cast<uint64_t>(e.size());
    if (end > data_sizes_[e.shard_id()]) {
      return absl::DataLossError(
          absl::StrCat("checkpoint ", prefix_, ": tensor \"", key, "\" spans bytes [", e.offset(),
                       ", ", end, ") but ", DataFilename(prefix_, e.shard_id(), num_shards_),
                       " has only ", data_sizes_[e.shard_id()], " bytes (truncated?)"));
    }
  }
  return absl::OkStatus();
}

absl::Status BundleReader::Impl::TakeLease() {
  const std::string path = LeaseFilename(prefix_);
  if (!env_->FileExists(path).ok()) return absl::OkStatus();  // not a leased checkpoint
  absl::StatusOr<std::unique_ptr<FileLock>> lock = env_->LockFileShared(path);
  if (!lock.ok()) return absl::OkStatus();  // deleted meanwhile: the index check below says
  lease_ = *std::move(lock);
  // Retention may have deleted the checkpoint while this waited for the lock.
  if (!env_->FileExists(MetaFilename(prefix_)).ok()) {
    lease_.reset();
    return absl::NotFoundError(absl::StrCat("checkpoint index ", MetaFilename(prefix_),
                                            " not found (deleted by retention just now)"));
  }
  return absl::OkStatus();
}

std::vector<std::string> BundleReader::Impl::tensor_names() const {
  std::vector<std::string> names;
  for (const std::string& key : keys_) {
    if (!IsSliceKey(key)) names.push_back(key);
  }
  return names;
}

absl::StatusOr<const BundleEntryProto*> BundleReader::Impl::GetEntry(absl::string_view key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    return absl::NotFoundError(absl::StrCat("Key ", key, " not found in checkpoint ", prefix_));
  }
  return &it->second;
}

absl::StatusOr<TensorShape> BundleReader::Impl::GetShape(absl::string_view key) const {
  MG_ASSIGN_OR_RETURN(const BundleEntryProto* e, GetEntry(key));
  return TensorShape::FromProto(e->shape());
}

absl::Status BundleReader::Impl::ReadBytes(const BundleEntryProto& e, absl::string_view key,
                                           char* dst, bool verify_crc) const {
  uint32_t crc = 0;
  const uint64_t n = static_cast<uint64_t>(e.size());
  if (const MappedFile* map = maps_[e.shard_id()].get(); map != nullptr) {
    // Within the mapping: Init checked every entry against the file's size.
    const char* src = map->data() + e.offset();
    const bool read = RunCatchingBusErrors([&] {
      if (verify_crc) {
        crc = crc32c::CopyAndExtend(0, dst, src, n);
      } else if (n > 0) {
        std::memcpy(dst, src, n);
      }
    });
    if (!read) return Shrank(e, key);
    return verify_crc ? CheckCrc(e, key, crc) : absl::OkStatus();
  }
  const RandomAccessFile& file = *data_files_[e.shard_id()];
  uint64_t done = 0;
  while (done < n) {
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(kReadChunk, n - done));
    MG_ASSIGN_OR_RETURN(absl::string_view got, file.Read(e.offset() + done, chunk, dst + done));
    if (got.size() != chunk) return Shrank(e, key);
    if (verify_crc) crc = crc32c::Extend(crc, dst + done, chunk);
    done += chunk;
  }
  return verify_crc ? CheckCrc(e, key, crc) : absl::OkStatus();
}

absl::Status BundleReader::Impl::Shrank(const BundleEntryProto& e, absl::string_view key) const {
  return absl::DataLossError(absl::StrCat(
      "checkpoint ", prefix_, ": tensor \"", key, "\" is truncated in ",
      DataFilename(prefix_, e.shard_id(), num_shards_), " (the file shrank below ",
      data_sizes_[e.shard_id()], " bytes after the checkpoint was opened)"));
}

absl::Status BundleReader::Impl::CheckCrc(const BundleEntryProto& e, absl::string_view key,
                                          uint32_t crc) const {
  if (crc32c::Unmask(e.crc32c()) == crc) return absl::OkStatus();
  return absl::DataLossError(absl::StrCat("Checksum does not match for tensor \"", key, "\" in ",
                                          DataFilename(prefix_, e.shard_id(), num_shards_),
                                          ": stored ", e.crc32c(), ", computed ",
                                          crc32c::Mask(crc)));
}

absl::Status BundleReader::Impl::CheckDestination(const BundleEntryProto& e, absl::string_view key,
                                                  const Tensor& dst) const {
  MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromProto(e.shape()));
  if (dst.dtype() == e.dtype() && dst.shape() == shape) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("tensor \"", key, "\" in checkpoint ", prefix_, " is ",
                   DataTypeString(e.dtype()), " ", shape.DebugString(), ", but the destination is ",
                   DataTypeString(dst.dtype()), " ", dst.shape().DebugString()));
}

absl::StatusOr<std::string> BundleReader::Impl::ReadStrings(const BundleEntryProto& e,
                                                            absl::string_view key,
                                                            int64_t n) const {
  // The entry's crc covers the lengths (as fixed-width integers), their
  // masked crc and the string bytes, not the varint bytes: checked below.
  // Nothing per string is allocated until every check has passed, so a
  // corrupt entry costs its own bytes once, not a std::string per element.
  std::string buf(static_cast<size_t>(e.size()), '\0');
  MG_RETURN_IF_ERROR(ReadBytes(e, key, buf.data(), /*verify_crc=*/false));
  const std::string file = DataFilename(prefix_, e.shard_id(), num_shards_);
  auto corrupt = [&](absl::string_view why) {
    return absl::DataLossError(
        absl::StrCat("checkpoint ", prefix_, ": string tensor \"", key, "\" in ", file, " ", why));
  };
  absl::string_view in(buf);
  uint32_t length_crc = 0;
  uint64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t length;
    if (!GetVarint64(&in, &length)) return corrupt("has a malformed length");
    char le[8];
    if (length <= 0xFFFFFFFFu) {
      EncodeFixed32(le, static_cast<uint32_t>(length));
      length_crc = crc32c::Extend(length_crc, le, 4);
    } else {
      EncodeFixed64(le, length);
      length_crc = crc32c::Extend(length_crc, le, 8);
    }
    if (__builtin_add_overflow(total, length, &total)) return corrupt("has bad lengths");
  }
  uint32_t stored;
  if (!GetFixed32(&in, &stored)) return corrupt("is truncated");
  if (crc32c::Unmask(stored) != length_crc) return corrupt("fails its length checksum");
  if (total != in.size()) {
    return corrupt(absl::StrCat("holds ", in.size(), " string bytes, lengths say ", total));
  }
  uint32_t crc = crc32c::Extend(length_crc, in.data() - 4, 4);
  crc = crc32c::Extend(crc, in.data(), in.size());
  if (crc32c::Unmask(e.crc32c()) != crc) {
    return absl::DataLossError(absl::StrCat("Checksum does not match for tensor \"", key, "\" in ",
                                            file, ": stored ", e.crc32c(), ", computed ",
                                            crc32c::Mask(crc)));
  }
  return buf;
}

// `buf` is what ReadStrings returned for `n` strings: decodes the lengths a
// second time rather than keeping them (8 bytes per element) from the first.
static void DecodeStrings(absl::string_view buf, int64_t n, std::string* out) {
  absl::string_view bytes = buf;
  uint64_t length;
  for (int64_t i = 0; i < n; ++i) GetVarint64(&bytes, &length);
  bytes.remove_prefix(4);  // the lengths' checksum
  absl::string_view lengths = buf;
  for (int64_t i = 0; i < n; ++i) {
    GetVarint64(&lengths, &length);
    out[i].assign(bytes.data(), length);
    bytes.remove_prefix(length);
  }
}

absl::StatusOr<const BundleEntryProto*> BundleReader::Impl::ReadableEntry(
    absl::string_view key) const {
  MG_ASSIGN_OR_RETURN(const BundleEntryProto* e, GetEntry(key));
  if (!DataTypeCanUseMemcpy(e->dtype()) && e->dtype() != DT_STRING) {
    return absl::UnimplementedError(absl::StrCat("tensor \"", key, "\" in checkpoint ", prefix_,
                                                 " has dtype ", DataTypeName(e->dtype()),
                                                 ", which minigraph does not read"));
  }
  return e;
}

absl::Status BundleReader::Impl::ReadInto(absl::string_view key, Tensor* dst) const {
  MG_ASSIGN_OR_RETURN(const BundleEntryProto* e, ReadableEntry(key));
  MG_RETURN_IF_ERROR(CheckDestination(*e, key, *dst));
  if (e->slices_size() > 0) {
    return ReadSliceInto(*e, key, TensorSlice::Full(dst->dims()), dst);
  }
  if (DataTypeCanUseMemcpy(e->dtype())) {
    if (e->size() == 0) return absl::OkStatus();
    MG_RETURN_IF_ERROR(
        ReadBytes(*e, key, static_cast<char*>(dst->raw_data()), /*verify_crc=*/true));
    tensor::NormalizeBools(dst);
    return absl::OkStatus();
  }
  MG_ASSIGN_OR_RETURN(std::string buf, ReadStrings(*e, key, dst->NumElements()));
  DecodeStrings(buf, dst->NumElements(), dst->data<std::string>());
  return absl::OkStatus();
}

void BundleReader::Impl::ReadRunInto(absl::Span<const absl::string_view> keys,
                                     absl::Span<Tensor* const> dsts,
                                     absl::Span<absl::Status> status) const {
  const size_t n = keys.size();
  // The entries, if they form one run: fixed-size dtypes, one shard, each
  // starting where the previous one ends.
  std::vector<const BundleEntryProto*> entries(n);
  bool run = n > 1;
  for (size_t i = 0; run && i < n; ++i) {
    absl::StatusOr<const BundleEntryProto*> e = ReadableEntry(keys[i]);
    run = e.ok() && DataTypeCanUseMemcpy((*e)->dtype()) && (*e)->slices_size() == 0 &&
          (i == 0 || ((*e)->shard_id() == entries[0]->shard_id() &&
                      (*e)->offset() == entries[i - 1]->offset() + entries[i - 1]->size()));
    if (run) entries[i] = *e;
  }
  // A mapped file's tensors cost no system call each to begin with: each is
  // copied and checksummed in one pass from the mapping.
  if (run && maps_[entries[0]->shard_id()] != nullptr) run = false;
  if (!run) {
    for (size_t i = 0; i < n; ++i) status[i] = ReadInto(keys[i], dsts[i]);
    return;
  }
  const uint64_t begin = entries[0]->offset();
  const uint64_t size = entries[n - 1]->offset() + entries[n - 1]->size() - begin;
  std::unique_ptr<char[]> buf(new char[size]);
  absl::Status read = [&]() -> absl::Status {
    const RandomAccessFile& file = *data_files_[entries[0]->shard_id()];
    MG_ASSIGN_OR_RETURN(absl::string_view got, file.Read(begin, size, buf.get()));
    if (got.size() != size) {
      return absl::DataLossError(absl::StrCat(
          "checkpoint ", prefix_, ": tensors \"", keys[0], "\" to \"", keys[n - 1],
          "\" are truncated in ", DataFilename(prefix_, entries[0]->shard_id(), num_shards_)));
    }
    if (got.data() != buf.get()) std::memcpy(buf.get(), got.data(), size);
    return absl::OkStatus();
  }();
  for (size_t i = 0; i < n; ++i) {
    if (!read.ok()) {
      status[i] = read;
      continue;
    }
    const BundleEntryProto& e = *entries[i];
    status[i] = [&]() -> absl::Status {
      MG_RETURN_IF_ERROR(CheckDestination(e, keys[i], *dsts[i]));
      const char* src = buf.get() + (e.offset() - begin);
      MG_RETURN_IF_ERROR(CheckCrc(e, keys[i], crc32c::Value(src, e.size())));
      if (e.size() > 0) std::memcpy(dsts[i]->raw_data(), src, e.size());
      tensor::NormalizeBools(dsts[i]);
      return absl::OkStatus();
    }();
  }
}

absl::StatusOr<Tensor> BundleReader::Impl::Lookup(absl::string_view key,
                                                  Allocator* allocator) const {
  MG_ASSIGN_OR_RETURN(const BundleEntryProto* e, ReadableEntry(key));
  MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromProto(e->shape()));
  auto create = [&]() -> absl::StatusOr<Tensor> {
    absl::StatusOr<Tensor> t = Tensor::Create(e->dtype(), shape, allocator);
    if (!t.ok()) {
      return absl::Status(t.status().code(), absl::StrCat("tensor \"", key, "\" in checkpoint ",
                                                          prefix_, ": ", t.status().message()));
    }
    return t;
  };
  if (e->dtype() == DT_STRING && e->slices_size() == 0) {  // verified before allocation
    MG_ASSIGN_OR_RETURN(std::string buf, ReadStrings(*e, key, shape.num_elements()));
    MG_ASSIGN_OR_RETURN(Tensor t, create());
    DecodeStrings(buf, t.NumElements(), t.data<std::string>());
    return t;
  }
  MG_ASSIGN_OR_RETURN(Tensor t, create());
  MG_RETURN_IF_ERROR(ReadInto(key, &t));
  return t;
}

bool BundleReader::Impl::ClaimInPlace(absl::string_view key) const {
  absl::StatusOr<const BundleEntryProto*> entry = ReadableEntry(key);
  if (!entry.ok()) return false;
  const BundleEntryProto& e = **entry;
  const MappedFile* map = maps_[e.shard_id()].get();
  if (map == nullptr || !map->guarded() || !UsableInPlace(e.dtype()) || e.size() == 0 ||
      e.offset() % kTensorAlignment != 0) {
    return false;
  }
  absl::MutexLock l(&claimed_mu_);
  return claimed_.emplace(key).second;
}

absl::StatusOr<Tensor> BundleReader::Impl::ReadInPlace(absl::string_view key) const {
  MG_ASSIGN_OR_RETURN(const BundleEntryProto* entry, ReadableEntry(key));
  const BundleEntryProto& e = *entry;
  {
    absl::MutexLock l(&claimed_mu_);
    if (!claimed_.contains(key)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "checkpoint ", prefix_, ": tensor \"", key, "\" was not claimed for reading in place"));
    }
  }
  MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromProto(e.shape()));
  const std::shared_ptr<const MappedFile>& map = maps_[e.shard_id()];
  char* data = map->mutable_data() + e.offset();
  uint32_t crc = 0;
  if (!RunCatchingBusErrors([&] { crc = crc32c::Value(data, e.size()); })) return Shrank(e, key);
  MG_RETURN_IF_ERROR(CheckCrc(e, key, crc));
  auto in_place = std::make_unique<InPlace>(map, data, std::string(key),
                                            DataFilename(prefix_, e.shard_id(), num_shards_));
  absl::StatusOr<Tensor> t = Tensor::Create(e.dtype(), shape, in_place.get());
  if (!t.ok()) {
    return absl::Status(t.status().code(), absl::StrCat("tensor \"", key, "\" in checkpoint ",
                                                        prefix_, ": ", t.status().message()));
  }
  in_place.release();  // the tensor's buffer frees it (InPlace::Deallocate)
  return t;
}

void BundleReader::Impl::ReadAhead(absl::Span<const absl::string_view> keys) const {
  std::vector<const BundleEntryProto*> entries;
  for (absl::string_view key : keys) {
    absl::StatusOr<const BundleEntryProto*> e = ReadableEntry(key);
    if (e.ok() && maps_[(*e)->shard_id()] != nullptr) entries.push_back(*e);
  }
  std::sort(entries.begin(), entries.end(),
            [](const BundleEntryProto* a, const BundleEntryProto* b) {
              return std::make_pair(a->shard_id(), a->offset()) <
                     std::make_pair(b->shard_id(), b->offset());
            });
  for (const BundleEntryProto* e : entries) {
    maps_[e->shard_id()]->ReadAhead(static_cast<uint64_t>(e->offset()),
                                    static_cast<uint64_t>(e->size()));
  }
}

absl::StatusOr<Tensor> BundleReader::Impl::LookupSlice(absl::string_view key,
                                                       const TensorSlice& slice,
                                                       Allocator* allocator) const {
  MG_ASSIGN_OR_RETURN(const BundleEntryProto* e, ReadableEntry(key));
  MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromProto(e->shape()));
  if (absl::Status s = slice.CheckWithin(shape); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor \"", key, "\" in checkpoint ", prefix_, ": ", s.message()));
  }
  if (e->slices_size() == 0 && slice.Covers(shape)) return Lookup(key, allocator);
  absl::StatusOr<Tensor> t = Tensor::Create(e->dtype(), slice.SliceShape(shape), allocator);
  if (!t.ok()) {
    return absl::Status(t.status().code(), absl::StrCat("tensor \"", key, "\" in checkpoint ",
                                                        prefix_, ": ", t.status().message()));
  }
  if (e->slices_size() == 0) {
    // A part of a whole tensor (a partitioned variable restored from a
    // checkpoint of the unpartitioned one).
    MG_ASSIGN_OR_RETURN(Tensor whole, Lookup(key, allocator));
    TensorSlice region;
    slice.Intersect(TensorSlice::Full(shape.dims()), shape, &region);
    CopySliceRegion(whole, TensorSlice::Full(shape.dims()), region, shape, slice, &*t);
    return t;
  }
  MG_RETURN_IF_ERROR(ReadSliceInto(*e, key, slice, &*t));
  return t;
}

absl::Status BundleReader::Impl::CheckSlices(const std::string& key,
                                             const BundleEntryProto& e) const {
  auto bad = [&](absl::string_view why) {
    return absl::DataLossError(
        absl::StrCat("checkpoint ", prefix_, ": partitioned tensor \"", key, "\" ", why));
  };
  absl::StatusOr<TensorShape> shape = TensorShape::FromProto(e.shape());
  if (!shape.ok()) return bad(absl::StrCat("has an invalid shape: ", shape.status().message()));
  std::vector<TensorSlice> slices;
  for (const TensorSliceProto& proto : e.slices()) {
    absl::StatusOr<TensorSlice> slice = TensorSlice::FromProto(proto);
    if (!slice.ok()) return bad(slice.status().message());
    if (std::string why = SlicePlacementError(*slice, *shape, slices); !why.empty()) {
      return bad(why);
    }
    const std::string slice_key = EncodeTensorNameSlice(key, *slice);
    auto it = entries_.find(slice_key);
    if (it == entries_.end()) {
      return bad(absl::StrCat("lists slice \"", slice->DebugString(), "\", which is missing"));
    }
    const BundleEntryProto& part = it->second;
    absl::StatusOr<TensorShape> part_shape = TensorShape::FromProto(part.shape());
    if (part.dtype() != e.dtype() || part.slices_size() > 0 || !part_shape.ok() ||
        *part_shape != slice->SliceShape(*shape)) {
      return bad(absl::StrCat(
          "has slice \"", slice->DebugString(), "\" stored as ", DataTypeString(part.dtype()), " ",
          part_shape.ok() ? part_shape->DebugString() : "(invalid shape)", ", not ",
          DataTypeString(e.dtype()), " ", slice->SliceShape(*shape).DebugString()));
    }
    slices.push_back(*std::move(slice));
  }
  return absl::OkStatus();
}

absl::Status BundleReader::Impl::ReadSliceInto(const BundleEntryProto& e, absl::string_view key,
                                               const TensorSlice& slice, Tensor* dst) const {
  const TensorShape shape = *TensorShape::FromProto(e.shape());  // checked by Open
  // Open checked that the stored slices do not overlap, so they cover the
  // request when their parts of it add up to it.
  std::vector<std::pair<TensorSlice, TensorSlice>> parts;  // stored slice, region
  int64_t covered = 0;
  for (const TensorSliceProto& proto : e.slices()) {
    TensorSlice stored = *TensorSlice::FromProto(proto), region;
    if (!stored.Intersect(slice, shape, &region)) continue;
    covered += region.SliceShape(shape).num_elements();
    parts.emplace_back(std::move(stored), std::move(region));
  }
  if (covered != dst->NumElements()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Does not have sufficient slices for partitioned tensor ", key,
        " to restore in slice_spec: ", slice.DebugString(), " (checkpoint ", prefix_, ")"));
  }
  for (const auto& [stored, region] : parts) {
    MG_ASSIGN_OR_RETURN(Tensor part, v1_ != nullptr ? v1_->ReadSlice(key, stored)
                                                    : Lookup(EncodeTensorNameSlice(key, stored),
                                                             DefaultAllocator()));
    CopySliceRegion(part, stored, region, shape, slice, dst);
  }
  return absl::OkStatus();
}

BundleReader::BundleReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

BundleReader::~BundleReader() = default;

absl::StatusOr<std::unique_ptr<BundleReader>> BundleReader::Open(Env* env, std::string prefix) {
  auto impl = std::make_unique<Impl>(env, std::move(prefix));
  MG_RETURN_IF_ERROR(impl->Init());
  return std::unique_ptr<BundleReader>(new BundleReader(std::move(impl)));
}

const std::string& BundleReader::prefix() const { return impl_->prefix(); }

int BundleReader::format_version() const { return impl_->format_version(); }

int BundleReader::num_shards() const { return impl_->num_shards(); }

const std::vector<std::string>& BundleReader::keys() const { return impl_->keys(); }

std::vector<std::string> BundleReader::tensor_names() const { return impl_->tensor_names(); }

bool BundleReader::Contains(absl::string_view key) const { return impl_->Contains(key); }

absl::StatusOr<const BundleEntryProto*> BundleReader::GetEntry(absl::string_view key) const {
  return impl_->GetEntry(key);
}

absl::StatusOr<TensorShape> BundleReader::GetShape(absl::string_view key) const {
  return impl_->GetShape(key);
}

absl::StatusOr<Tensor> BundleReader::Lookup(absl::string_view key, Allocator* allocator) const {
  return impl_->Lookup(key, allocator);
}

bool BundleReader::ClaimInPlace(absl::string_view key) const { return impl_->ClaimInPlace(key); }

void BundleReader::ReadAhead(absl::Span<const absl::string_view> keys) const {
  impl_->ReadAhead(keys);
}

absl::StatusOr<Tensor> BundleReader::ReadInPlace(absl::string_view key) const {
  return impl_->ReadInPlace(key);
}

absl::StatusOr<Tensor> BundleReader::LookupSlice(absl::string_view key, const TensorSlice& slice,
                                                 Allocator* allocator) const {
  return impl_->LookupSlice(key, slice, allocator);
}

absl::Status BundleReader::ReadInto(absl::string_view key, Tensor* dst) const {
  return impl_->ReadInto(key, dst);
}

void BundleReader::ReadRunInto(absl::Span<const absl::string_view> keys,
                               absl::Span<Tensor* const> dsts,
                               absl::Span<absl::Status> status) const {
  impl_->ReadRunInto(keys, dsts, status);
}

}  // namespace minigraph
