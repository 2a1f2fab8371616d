// tf.data sources: datasets made from files (TextLineDataset,
// TFRecordDataset), from tensors (TensorSliceDataset, TensorDataset) and
// from a range of numbers (RangeDataset). Files are read through the
// session's Env, a chunk at a time, and decompressed on the way when their
// compression_type is "ZLIB" or "GZIP".
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/allocator.h"
#include "core/env.h"
#include "core/record_io.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/dataset.h"
#include "runtime/engine/kernels/internal/inflater.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"

namespace minigraph {
namespace kernels_internal {
namespace {

using data::Dataset;
using data::DatasetIterator;
using data::DatasetOpKernel;
using data::Element;
using data::ElementSpec;

// The inputs every file dataset takes: filenames (a scalar or a vector of
// strings), compression_type ("", "ZLIB" or "GZIP", as TensorFlow's) and
// buffer_size (the read size; 0 for the default, 256 KiB as in TensorFlow).
struct FileSource {
  std::vector<std::string> names;
  Compression compression = Compression::kNone;
  size_t chunk = 0;
};

absl::StatusOr<FileSource> FileSourceInputs(const OpKernelContext* ctx, const std::string& where) {
  const Tensor& names = ctx->input(0);
  if (names.dtype() != DT_STRING || names.dims() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": filenames must be a string scalar or vector, got ",
                     DataTypeString(names.dtype()), " ", names.shape().DebugString()));
  }
  const Tensor& compression = ctx->input(1);
  if (compression.dtype() != DT_STRING || compression.NumElements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": compression_type must be a scalar"));
  }
  const std::string& kind = *compression.data<std::string>();
  FileSource s;
  if (kind == "ZLIB") {
    s.compression = Compression::kZlib;
  } else if (kind == "GZIP") {
    s.compression = Compression::kGzip;
  } else if (!kind.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": compression_type '", kind,
                                                   "' is not one of \"\", \"ZLIB\" and \"GZIP\""));
  }
  const Tensor& size = ctx->input(2);
  if (size.dims() != 0 || size.dtype() != DT_INT64) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": buffer_size must be an int64 scalar"));
  }
  // -1 is what TensorFlow 2's Python passes for "the default" (256 KiB).
  const int64_t buffer_size = *size.data<int64_t>();
  if (buffer_size < -1) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": buffer_size must be >= 0 or -1 (the default), got ", buffer_size));
  }
  s.names.assign(names.data<std::string>(), names.data<std::string>() + names.NumElements());
  s.chunk = buffer_size <= 0 ? 256 << 10 : std::min<int64_t>(buffer_size, 16 << 20);
  return s;
}

// An iterator over the elements of files, one file after the other;
// subclasses read one file's elements.
class FileIterator : public DatasetIterator {
 public:
  explicit FileIterator(const std::vector<std::string>* files) : files_(files) {}

  absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end) final {
    for (;;) {
      if (!open_) {
        if (next_file_ == files_->size()) {
          *end = true;
          return absl::OkStatus();
        }
        MG_RETURN_IF_ERROR(OpenFile(ctx, path()));
        open_ = true;
      }
      bool file_done = false;
      MG_RETURN_IF_ERROR(NextInFile(out, &file_done));
      if (!file_done) {
        *end = false;
        return absl::OkStatus();
      }
      CloseFile();
      open_ = false;
      ++next_file_;
    }
  }

 protected:
  // The file being read.
  const std::string& path() const { return (*files_)[next_file_]; }
  virtual absl::Status OpenFile(OpKernelContext* ctx, const std::string& path) = 0;
  // The next element of the open file, or `done` at its end.
  virtual absl::Status NextInFile(Element* out, bool* done) = 0;
  virtual void CloseFile() = 0;

 private:
  const std::vector<std::string>* const files_;  // owned by the dataset
  size_t next_file_ = 0;
  bool open_ = false;
};

// The lines of text files, in order, without their line ends ("\n" or
// "\r\n"); a last line without one is a line too.
class TextLineDataset final : public Dataset {
 public:
  TextLineDataset(std::string node, std::vector<std::string> files, Compression compression,
                  size_t buffer_size)
      : Dataset(std::move(node), {DT_STRING}, {PartialShape::Scalar()}),
        files_(std::move(files)),
        compression_(compression),
        buffer_size_(buffer_size) {}
  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    return std::make_unique<Iterator>(self<TextLineDataset>());
  }

 private:
  class Iterator final : public FileIterator {
   public:
    explicit Iterator(std::shared_ptr<const TextLineDataset> d)
        : FileIterator(&d->files_), d_(std::move(d)) {}

   private:
    absl::Status OpenFile(OpKernelContext* ctx, const std::string& path) override {
      if (d_->compression_ == Compression::kNone) {
        MG_ASSIGN_OR_RETURN(file_, ctx->env()->NewSequentialFile(path));
      } else {
        MG_ASSIGN_OR_RETURN(inflater_,
                            OpenInflater(ctx->env(), path, d_->compression_, d_->buffer_size_));
      }
      buf_.clear();
      pos_ = 0;
      eof_ = false;
      return absl::OkStatus();
    }
    void CloseFile() override {
      file_.reset();
      inflater_.reset();
    }

    // The next bytes of the file (decompressed); none at its end.
    absl::StatusOr<absl::string_view> ReadChunk() {
      scratch_.resize(d_->buffer_size_);
      if (inflater_ == nullptr) return file_->Read(scratch_.size(), scratch_.data());
      MG_ASSIGN_OR_RETURN(size_t n, inflater_->Read(scratch_.size(), scratch_.data()));
      return absl::string_view(scratch_.data(), n);
    }

    absl::Status NextInFile(Element* out, bool* done) override {
      for (;;) {
        const size_t nl = buf_.find('\n', pos_);
        if (nl != std::string::npos || (eof_ && pos_ < buf_.size())) {
          const size_t stop = nl != std::string::npos ? nl : buf_.size();
          size_t len = stop - pos_;
          if (nl != std::string::npos && len > 0 && buf_[stop - 1] == '\r') --len;
          out->assign(1, Tensor::Scalar<std::string>(buf_.substr(pos_, len)));
          pos_ = stop + (nl != std::string::npos ? 1 : 0);
          *done = false;
          return absl::OkStatus();
        }
        if (eof_) {
          *done = true;
          return absl::OkStatus();
        }
        buf_.erase(0, pos_);
        pos_ = 0;
        // A file without line ends (a device, a binary file) must not grow
        // the buffer without bound.
        if (buf_.size() > MaxTensorBytes()) {
          return absl::ResourceExhaustedError(
              absl::StrCat("dataset '", d_->node(), "': a line of ", path(), " is longer than ",
                           MaxTensorBytes(), " bytes (max_tensor_bytes)"));
        }
        absl::StatusOr<absl::string_view> got = ReadChunk();
        if (!got.ok()) {
          return absl::Status(got.status().code(),
                              absl::StrCat("dataset '", d_->node(), "': reading ", path(), ": ",
                                           got.status().message()));
        }
        if (got->empty()) {
          eof_ = true;
        } else {
          buf_.append(got->data(), got->size());
        }
      }
    }

    const std::shared_ptr<const TextLineDataset> d_;
    std::unique_ptr<SequentialFile> file_;
    std::unique_ptr<Inflater> inflater_;  // instead of file_ when compressed
    std::string buf_, scratch_;
    size_t pos_ = 0;
    bool eof_ = false;
  };

  const std::vector<std::string> files_;
  const Compression compression_;
  const size_t buffer_size_;
};

class TextLineDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  absl::StatusOr<std::shared_ptr<const Dataset>> MakeDataset(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(FileSource files, FileSourceInputs(ctx, Where()));
    return std::shared_ptr<const Dataset>(std::make_shared<TextLineDataset>(
        name(), std::move(files.names), files.compression, files.chunk));
  }
};

// TensorSliceDataset: the components' rows, one per element.
// TensorDataset: the components, as the one element.
class TensorsDataset final : public Dataset {
 public:
  TensorsDataset(std::string node, std::vector<DataType> dtypes, std::vector<PartialShape> shapes,
                 Element components, bool slice)
      : Dataset(std::move(node), std::move(dtypes), std::move(shapes)),
        components_(std::move(components)),
        slice_(slice),
        count_(slice ? components_[0].dim_size(0) : 1) {}
  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    return std::make_unique<Iterator>(self<TensorsDataset>());
  }

 private:
  class Iterator final : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const TensorsDataset> d) : d_(std::move(d)) {}
    absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end) override {
      *end = next_ >= d_->count_;
      if (*end) return absl::OkStatus();
      const int64_t row = next_++;
      if (!d_->slice_) {
        *out = d_->components_;
        return absl::OkStatus();
      }
      out->clear();
      for (const Tensor& c : d_->components_) {
        TensorShape shape(c.shape().dim_sizes().subspan(1));
        MG_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(c.dtype(), shape));
        CopyElements(c, row * shape.num_elements(), &t, 0, shape.num_elements());
        out->push_back(std::move(t));
      }
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const TensorsDataset> d_;
    int64_t next_ = 0;
  };

  const Element components_;
  const bool slice_;
  const int64_t count_;
};

class TensorsDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    slice_ = c->def().op() == "TensorSliceDataset";
    return ElementSpec(c, "Toutput_types", &dtypes_, &shapes_);
  }

 protected:
  absl::StatusOr<std::shared_ptr<const Dataset>> MakeDataset(OpKernelContext* ctx) const override {
    Element components;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const Tensor& t = ctx->input(i);
      if (slice_) {
        if (t.dims() == 0) {
          return absl::InvalidArgumentError(
              absl::StrCat(Where(), ": component ", i, " is a scalar; slicing needs rank >= 1"));
        }
        if (t.dim_size(0) != ctx->input(0).dim_size(0)) {
          return absl::InvalidArgumentError(absl::StrCat(
              Where(),
              ": all components must have the same size in the 0th dimension; "
              "component 0 has ",
              ctx->input(0).dim_size(0), " rows and component ", i, " has ", t.dim_size(0)));
        }
      }
      components.push_back(t);
    }
    return std::shared_ptr<const Dataset>(
        std::make_shared<TensorsDataset>(name(), dtypes_, shapes_, std::move(components), slice_));
  }

 private:
  bool slice_ = false;
};

// The records of TFRecord files, in order (TensorFlow's record framing,
// parsed by core/record_io.h's ReadRecordFrom). A record that ends early or
// fails a checksum is DataLoss naming the file and the offset.
class TFRecordDataset final : public Dataset {
 public:
  TFRecordDataset(std::string node, std::vector<std::string> files, Compression compression,
                  size_t chunk)
      : Dataset(std::move(node), {DT_STRING}, {PartialShape::Scalar()}),
        files_(std::move(files)),
        compression_(compression),
        chunk_(chunk) {}
  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    return std::make_unique<Iterator>(self<TFRecordDataset>());
  }

 private:
  // Also the RecordSource of the open file's bytes from offset_ on.
  class Iterator final : public FileIterator, private RecordSource {
   public:
    explicit Iterator(std::shared_ptr<const TFRecordDataset> d)
        : FileIterator(&d->files_), d_(std::move(d)) {}

   private:
    absl::Status OpenFile(OpKernelContext* ctx, const std::string& path) override {
      offset_ = 0;
      if (d_->compression_ != Compression::kNone) {
        // The decompressed size is known only at the end.
        size_ = std::numeric_limits<uint64_t>::max();
        MG_ASSIGN_OR_RETURN(inflater_,
                            OpenInflater(ctx->env(), path, d_->compression_, d_->chunk_));
        return absl::OkStatus();
      }
      MG_ASSIGN_OR_RETURN(size_, ctx->env()->GetFileSize(path));
      MG_ASSIGN_OR_RETURN(file_, ctx->env()->NewRandomAccessFile(path));
      return absl::OkStatus();
    }
    void CloseFile() override {
      file_.reset();
      inflater_.reset();
    }

    absl::Status NextInFile(Element* out, bool* done) override {
      if (inflater_ != nullptr) {
        absl::StatusOr<bool> end = inflater_->AtEnd();
        if (!end.ok()) return Reading(end.status());
        *done = *end;
      } else {
        *done = offset_ == size_;
      }
      if (*done) return absl::OkStatus();
      std::string record;
      absl::Status s =
          ReadRecordFrom(this, path(), offset_, &record, MaxTensorBytes(), d_->chunk_);
      if (absl::IsResourceExhausted(s)) {
        return absl::ResourceExhaustedError(
            absl::StrCat("dataset '", d_->node(), "': ", s.message(), " (max_tensor_bytes)"));
      }
      if (!s.ok()) {
        return absl::Status(s.code(), absl::StrCat("dataset '", d_->node(), "': ", s.message()));
      }
      out->assign(1, Tensor::Scalar<std::string>(std::move(record)));
      return absl::OkStatus();
    }

    absl::Status Reading(const absl::Status& s) const {
      return absl::Status(s.code(), absl::StrCat("dataset '", d_->node(), "': reading ", path(),
                                                 " at ", offset_, ": ", s.message()));
    }

    // RecordSource: what is left of a plain file (a compressed one's
    // decompressed size is known only at its end).
    std::optional<uint64_t> Remaining() const override {
      if (inflater_ != nullptr) return std::nullopt;
      return size_ - offset_;
    }

    // RecordSource: up to `n` bytes at offset_ (of the decompressed data)
    // into `dst`, read `chunk_` bytes at a time.
    absl::StatusOr<size_t> Read(size_t n, char* dst) override {
      if (inflater_ != nullptr) {
        absl::StatusOr<size_t> got = inflater_->Read(n, dst);
        if (!got.ok()) return Reading(got.status());
        offset_ += *got;
        return got;
      }
      size_t done = 0;
      while (done < n) {
        const size_t want = std::min(n - done, d_->chunk_);
        absl::StatusOr<absl::string_view> got = file_->Read(offset_, want, dst + done);
        if (!got.ok()) return Reading(got.status());
        if (got->data() != dst + done) std::memmove(dst + done, got->data(), got->size());
        done += got->size();
        offset_ += got->size();
        if (got->size() < want) break;
      }
      return done;
    }

    const std::shared_ptr<const TFRecordDataset> d_;
    std::unique_ptr<RandomAccessFile> file_;
    std::unique_ptr<Inflater> inflater_;  // instead of file_ when compressed
    // size_ is the largest uint64 for compressed data, whose checks are
    // made when its bytes are read.
    uint64_t size_ = 0, offset_ = 0;
  };

  const std::vector<std::string> files_;
  const Compression compression_;
  const size_t chunk_;
};

class TFRecordDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  absl::StatusOr<std::shared_ptr<const Dataset>> MakeDataset(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(FileSource files, FileSourceInputs(ctx, Where()));
    return std::shared_ptr<const Dataset>(std::make_shared<TFRecordDataset>(
        name(), std::move(files.names), files.compression, files.chunk));
  }
};

// start, start + step, ... up to (not including) stop, as the op's one
// output type (int64 in TensorFlow 1.x graphs; any real type in later ones).
class RangeDataset final : public Dataset {
 public:
  RangeDataset(std::string node, DataType dtype, int64_t start, int64_t stop, int64_t step)
      : Dataset(std::move(node), {dtype}, {PartialShape::Scalar()}),
        start_(start),
        stop_(stop),
        step_(step) {}
  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    return std::make_unique<Iterator>(self<RangeDataset>());
  }

 private:
  class Iterator final : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const RangeDataset> d)
        : d_(std::move(d)), next_(d_->start_) {}
    absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end) override {
      *end = d_->step_ > 0 ? next_ >= d_->stop_ : next_ <= d_->stop_;
      if (*end) return absl::OkStatus();
      MG_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(d_->dtypes()[0], TensorShape({})));
      switch (t.dtype()) {
        case DT_INT64:
          *t.data<int64_t>() = next_;
          break;
        case DT_INT32:
          *t.data<int32_t>() = static_cast<int32_t>(next_);
          break;
        case DT_FLOAT:
          *t.data<float>() = static_cast<float>(next_);
          break;
        case DT_DOUBLE:
          *t.data<double>() = static_cast<double>(next_);
          break;
        default:
          break;  // RangeDatasetOp allows only the four above.
      }
      out->assign(1, std::move(t));
      // Past the end without overflowing: the next call ends.
      if (__builtin_add_overflow(next_, d_->step_, &next_)) next_ = d_->stop_;
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const RangeDataset> d_;
    int64_t next_;
  };

  const int64_t start_, stop_, step_;
};

class RangeDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(DatasetOpKernel::Init(c));
    if (dtypes_.size() != 1 || (dtypes_[0] != DT_INT64 && dtypes_[0] != DT_INT32 &&
                                dtypes_[0] != DT_FLOAT && dtypes_[0] != DT_DOUBLE)) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": output_types must be one of int64, int32, float and double, got ",
          data::TypesString(dtypes_)));
    }
    return absl::OkStatus();
  }

 protected:
  absl::StatusOr<std::shared_ptr<const Dataset>> MakeDataset(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(int64_t start, ScalarInput(ctx, 0, "start"));
    MG_ASSIGN_OR_RETURN(int64_t stop, ScalarInput(ctx, 1, "stop"));
    MG_ASSIGN_OR_RETURN(int64_t step, ScalarInput(ctx, 2, "step"));
    if (step == 0) {
      return absl::InvalidArgumentError(absl::StrCat(Where(), ": step must be a non-zero integer"));
    }
    return std::shared_ptr<const Dataset>(
        std::make_shared<RangeDataset>(name(), dtypes_[0], start, stop, step));
  }
};

}  // namespace

void RegisterDatasetSourceKernels(KernelRegistry* r) {
  r->Register("TextLineDataset", MakeFactory<TextLineDatasetOp>());
  r->Register("TFRecordDataset", MakeFactory<TFRecordDatasetOp>());
  r->Register("TensorSliceDataset", MakeFactory<TensorsDatasetOp>());
  r->Register("TensorDataset", MakeFactory<TensorsDatasetOp>());
  r->Register("RangeDataset", MakeFactory<RangeDatasetOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
