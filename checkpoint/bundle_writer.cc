#include "checkpoint/bundle_writer.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <thread>

#include "absl/strings/str_cat.h"
#include "checkpoint/naming.h"
#include "checkpoint/proto/tensor_bundle.pb.h"
#include "checkpoint/table.h"
#include "checkpoint/temp_files.h"
#include "core/coding.h"
#include "core/crc32c.h"
#include "core/path.h"
#include "core/status_macros.h"

namespace minigraph {
namespace {

// Tensors at least this large have their crc32c computed on a second
// thread while they are written (below it, starting a thread costs more
// than the crc: 1 MiB takes about 40 µs at ISA-L's speed here).
constexpr size_t kParallelCrcBytes = size_t{4} << 20;

// Tensors below this size go through the staging buffer, which holds as
// much: a write of it goes past the file's own 64 KiB buffer.
constexpr size_t kStagingBytes = size_t{1} << 20;

// TensorFlow's string tensor encoding (format doc §7.2): varint lengths, the
// masked crc32c of the lengths (each as uint32, or uint64 past 4 GiB), then
// the bytes. Returns the payload; `crc` is the entry's unmasked crc.
std::string EncodeStrings(const Tensor& t, uint32_t* crc) {
  const std::string* strings = t.data<std::string>();
  std::string out;
  uint32_t length_crc = 0;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const uint64_t len = strings[i].size();
    PutVarint64(&out, len);
    if (len <= 0xFFFFFFFFu) {
      char buf[4];
      EncodeFixed32(buf, static_cast<uint32_t>(len));
      length_crc = crc32c::Extend(length_crc, buf, 4);
    } else {
      char buf[8];
      EncodeFixed64(buf, len);
      length_crc = crc32c::Extend(length_crc, buf, 8);
    }
  }
  char masked[4];
  EncodeFixed32(masked, crc32c::Mask(length_crc));
  out.append(masked, 4);
  uint32_t c = crc32c::Extend(length_crc, masked, 4);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    out.append(strings[i]);
    c = crc32c::Extend(c, strings[i].data(), strings[i].size());
  }
  *crc = c;
  return out;
}

}  // namespace

// The writer's files and entries, behind the header's interface.
class BundleWriter::Impl {
 public:
  Impl(Env* env, std::string prefix, const BundleWriterOptions& options)
      : env_(env), prefix_(std::move(prefix)), alignment_(options.alignment) {}
  // Deletes the temporary files unless Finish succeeded.
  ~Impl();

  // The temporary data file, created.
  absl::Status Open();
  absl::Status Add(absl::string_view key, const Tensor& t);
  absl::Status AddSlice(absl::string_view key, const TensorShape& full_shape,
                        const TensorSlice& slice, const Tensor& t);
  absl::Status Finish();
  const std::string& prefix() const { return prefix_; }

 private:
  // Appends `t`'s bytes and adds its entry under `key` (not yet present).
  absl::Status AddData(absl::string_view key, const Tensor& t);
  // Appends `bytes` to the data file, through the staging buffer when they
  // are small, and returns their crc32c (computed as they are staged).
  absl::StatusOr<uint32_t> AppendWithCrc(absl::string_view bytes);
  // The same without the crc (padding; strings, whose crc comes with them).
  absl::Status Append(absl::string_view bytes);
  // Zeros up to the next multiple of the alignment.
  absl::Status Pad();
  // Writes what is staged to the file.
  absl::Status FlushStaging();

  Env* const env_;  // Not owned.
  const std::string prefix_;
  const size_t alignment_;
  std::unique_ptr<char[]> staging_;  // kStagingBytes, made on first use
  size_t staged_ = 0;
  std::string data_tmp_, index_tmp_;
  std::unique_ptr<WritableFile> data_;
  // Held until the data file is renamed or deleted (CreateLockedTempFile).
  std::unique_ptr<FileLock> data_lock_;
  int64_t offset_ = 0;
  std::map<std::string, BundleEntryProto> entries_;
  absl::Status status_;
  bool finished_ = false;
};

absl::Status BundleWriter::Impl::Open() {
  const std::string dir(Dirname(prefix_));
  if (!dir.empty()) MG_RETURN_IF_ERROR(env_->CreateDir(dir));
  MG_ASSIGN_OR_RETURN(LockedTempFile data,
                      CreateLockedTempFile(env_, DataFilename(prefix_, 0, 1), kTempStateSuffix));
  data_tmp_ = std::move(data.path);
  data_ = std::move(data.file);
  data_lock_ = std::move(data.lock);
  return absl::OkStatus();
}

BundleWriter::Impl::~Impl() {
  if (finished_ && status_.ok()) return;
  data_.reset();
  env_->DeleteFile(data_tmp_).IgnoreError();
  if (!index_tmp_.empty()) env_->DeleteFile(index_tmp_).IgnoreError();
}

absl::Status BundleWriter::Impl::Add(absl::string_view key, const Tensor& t) {
  MG_RETURN_IF_ERROR(status_);
  if (finished_) {
    return absl::FailedPreconditionError(absl::StrCat("checkpoint ", prefix_, " is finished"));
  }
  if (key.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("checkpoint ", prefix_, ": the empty key is reserved for the header"));
  }
  if (entries_.count(std::string(key))) {
    return absl::InvalidArgumentError(
        absl::StrCat("checkpoint ", prefix_, ": tensor \"", key, "\" is added twice"));
  }
  return AddData(key, t);
}

absl::Status BundleWriter::Impl::AddSlice(absl::string_view key, const TensorShape& full_shape,
                                          const TensorSlice& slice, const Tensor& t) {
  MG_RETURN_IF_ERROR(status_);
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("checkpoint ", prefix_, ": slice \"",
                                                   slice.DebugString(), "\" of tensor \"", key,
                                                   "\" ", why));
  };
  if (absl::Status s = slice.CheckWithin(full_shape); !s.ok()) return bad(s.message());
  if (t.shape() != slice.SliceShape(full_shape)) {
    return bad(absl::StrCat("has shape ", slice.SliceShape(full_shape).DebugString(),
                            " but the tensor given for it ", t.shape().DebugString()));
  }
  if (slice.Covers(full_shape)) return Add(key, t);
  if (key.empty()) return Add(key, t);  // the error a whole tensor of that key gets
  auto it = entries_.find(std::string(key));
  if (it != entries_.end()) {
    const BundleEntryProto& full = it->second;
    if (full.slices_size() == 0) return bad("follows the whole tensor");
    if (full.dtype() != t.dtype() || *TensorShape::FromProto(full.shape()) != full_shape) {
      return bad(absl::StrCat("is ", DataTypeName(t.dtype()), " of ", full_shape.DebugString(),
                              ", but earlier slices were ", DataTypeName(full.dtype()), " of ",
                              TensorShape::FromProto(full.shape())->DebugString()));
    }
  }
  const std::string slice_key = EncodeTensorNameSlice(key, slice);
  if (entries_.count(slice_key)) return bad("is added twice");
  MG_RETURN_IF_ERROR(AddData(slice_key, t));
  // The full tensor's entry: dtype, shape and its slices, no data (shard
  // id, offset, size and crc stay unset, as TensorFlow leaves them).
  BundleEntryProto& full = entries_[std::string(key)];
  if (full.slices_size() == 0) {
    full.set_dtype(t.dtype());
    full_shape.AsProto(full.mutable_shape());
  }
  slice.AsProto(full.add_slices());
  return absl::OkStatus();
}

absl::Status BundleWriter::Impl::AddData(absl::string_view key, const Tensor& t) {
  if (!DataTypeCanUseMemcpy(t.dtype()) && t.dtype() != DT_STRING) {
    return absl::InvalidArgumentError(absl::StrCat("checkpoint ", prefix_, ": tensor \"", key,
                                                   "\" has dtype ", DataTypeName(t.dtype()),
                                                   ", which checkpoints cannot hold"));
  }
  BundleEntryProto entry;
  entry.set_dtype(t.dtype());
  t.shape().AsProto(entry.mutable_shape());
  if (absl::Status s = Pad(); !s.ok()) {
    status_ = AddContext(s, absl::StrCat("writing tensor \"", key, "\" of checkpoint ", prefix_));
    return status_;
  }
  entry.set_offset(offset_);
  uint32_t crc = 0;
  if (t.dtype() == DT_STRING) {
    const std::string payload = EncodeStrings(t, &crc);
    status_ = Append(payload);
    entry.set_size(static_cast<int64_t>(payload.size()));
  } else {
    const absl::string_view bytes = t.tensor_data();
    absl::StatusOr<uint32_t> appended = AppendWithCrc(bytes);
    status_ = appended.status();
    if (appended.ok()) crc = *appended;
    entry.set_size(static_cast<int64_t>(bytes.size()));
  }
  entry.set_crc32c(crc32c::Mask(crc));
  if (!status_.ok()) {
    status_ =
        AddContext(status_, absl::StrCat("writing tensor \"", key, "\" of checkpoint ", prefix_));
    return status_;
  }
  offset_ += entry.size();
  entries_.emplace(std::string(key), std::move(entry));
  return absl::OkStatus();
}

absl::StatusOr<uint32_t> BundleWriter::Impl::AppendWithCrc(absl::string_view bytes) {
  const size_t n = bytes.size();
  if (n < kStagingBytes) {
    if (staged_ + n > kStagingBytes) MG_RETURN_IF_ERROR(FlushStaging());
    if (staging_ == nullptr) staging_.reset(new char[kStagingBytes]);
    const uint32_t crc = crc32c::CopyAndExtend(0, staging_.get() + staged_, bytes.data(), n);
    staged_ += n;
    return crc;
  }
  MG_RETURN_IF_ERROR(FlushStaging());
  uint32_t crc = 0;
  absl::Status written;
  if (n >= kParallelCrcBytes) {
    // The crc on a second thread while this one writes the same bytes:
    // both only read the tensor, and each is about as fast as the other,
    // so a large tensor costs the longer of the two instead of the sum.
    std::thread crc_thread([&] { crc = crc32c::Value(bytes.data(), n); });
    written = data_->Append(bytes);
    crc_thread.join();
  } else {
    crc = crc32c::Value(bytes.data(), n);
    written = data_->Append(bytes);
  }
  MG_RETURN_IF_ERROR(written);
  return crc;
}

absl::Status BundleWriter::Impl::Append(absl::string_view bytes) {
  const size_t n = bytes.size();
  if (n >= kStagingBytes) {
    MG_RETURN_IF_ERROR(FlushStaging());
    return data_->Append(bytes);
  }
  if (staged_ + n > kStagingBytes) MG_RETURN_IF_ERROR(FlushStaging());
  if (staging_ == nullptr) staging_.reset(new char[kStagingBytes]);
  if (n > 0) std::memcpy(staging_.get() + staged_, bytes.data(), n);
  staged_ += n;
  return absl::OkStatus();
}

absl::Status BundleWriter::Impl::Pad() {
  const size_t pad = static_cast<size_t>(-offset_) & (alignment_ - 1);
  if (pad == 0) return absl::OkStatus();
  static constexpr char kZeros[4096] = {};
  for (size_t left = pad; left > 0;) {
    const size_t n = std::min(left, sizeof(kZeros));
    MG_RETURN_IF_ERROR(Append(absl::string_view(kZeros, n)));
    left -= n;
  }
  offset_ += static_cast<int64_t>(pad);
  return absl::OkStatus();
}

absl::Status BundleWriter::Impl::FlushStaging() {
  if (staged_ == 0) return absl::OkStatus();
  const size_t n = staged_;
  staged_ = 0;
  return data_->Append(absl::string_view(staging_.get(), n));
}

absl::Status BundleWriter::Impl::Finish() {
  if (finished_) {
    return absl::FailedPreconditionError(
        absl::StrCat("checkpoint ", prefix_, ": Finish() called twice"));
  }
  finished_ = true;
  auto fail = [this](const absl::Status& s) {
    status_ = AddContext(s, absl::StrCat("finishing checkpoint ", prefix_));
    return status_;
  };
  MG_RETURN_IF_ERROR(status_);
  if (absl::Status s = FlushStaging(); !s.ok()) return fail(s);
  if (absl::Status s = data_->Sync(); !s.ok()) return fail(s);
  if (absl::Status s = data_->Close(); !s.ok()) return fail(s);
  data_.reset();

  absl::StatusOr<LockedTempFile> index =
      CreateLockedTempFile(env_, MetaFilename(prefix_), kTempStateSuffix);
  if (!index.ok()) return fail(index.status());
  index_tmp_ = index->path;
  auto table = table::TableWriter::Create(index->file.get(), MetaFilename(prefix_));
  BundleHeaderProto header;
  header.set_num_shards(1);
  header.set_endianness(BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(1);
  if (absl::Status s = table->Add("", header.SerializeAsString()); !s.ok()) return fail(s);
  for (const auto& [key, entry] : entries_) {
    if (absl::Status s = table->Add(key, entry.SerializeAsString()); !s.ok()) return fail(s);
  }
  if (absl::Status s = table->Finish(); !s.ok()) return fail(s);
  if (absl::Status s = index->file->Sync(); !s.ok()) return fail(s);
  if (absl::Status s = index->file->Close(); !s.ok()) return fail(s);
  // Writers of one prefix commit one at a time (under the directory's
  // lock), so the files in place always come from a single writer: the last.
  const std::string dir = Dirname(prefix_).empty() ? "." : std::string(Dirname(prefix_));
  auto lock = env_->LockFile(dir);
  if (!lock.ok()) return fail(lock.status());
  // Data first: an index never names a data file that is not in place.
  if (absl::Status s = env_->RenameFile(data_tmp_, DataFilename(prefix_, 0, 1)); !s.ok()) {
    return fail(s);
  }
  if (absl::Status s = env_->RenameFile(index_tmp_, MetaFilename(prefix_)); !s.ok()) {
    return fail(s);
  }
  if (absl::Status s = env_->SyncDir(dir); !s.ok()) return fail(s);
  return absl::OkStatus();
}

BundleWriter::BundleWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

BundleWriter::~BundleWriter() = default;

absl::StatusOr<std::unique_ptr<BundleWriter>> BundleWriter::Create(
    Env* env, std::string prefix, const BundleWriterOptions& options) {
  if (options.alignment == 0 || (options.alignment & (options.alignment - 1)) != 0) {
    return absl::InvalidArgumentError(absl::StrCat("checkpoint ", prefix, ": alignment ",
                                                   options.alignment,
                                                   " is not a power of two"));
  }
  auto impl = std::make_unique<Impl>(env, std::move(prefix), options);
  MG_RETURN_IF_ERROR(impl->Open());
  return std::unique_ptr<BundleWriter>(new BundleWriter(std::move(impl)));
}

absl::Status BundleWriter::Add(absl::string_view key, const Tensor& t) {
  return impl_->Add(key, t);
}

absl::Status BundleWriter::AddSlice(absl::string_view key, const TensorShape& full_shape,
                                    const TensorSlice& slice, const Tensor& t) {
  return impl_->AddSlice(key, full_shape, slice, t);
}

absl::Status BundleWriter::Finish() { return impl_->Finish(); }

const std::string& BundleWriter::prefix() const { return impl_->prefix(); }

}  // namespace minigraph
