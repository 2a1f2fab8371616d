// tf.data on the CPU: a dataset is an immutable object in a DT_VARIANT
// scalar, made by its op from its inputs (another dataset, files, tensors,
// a function); an iterator resource walks one. Elements are made when
// IteratorGetNext asks for them, inside that step: a map function runs in
// the step's context, reads and writes the session's state, and its errors
// name the function. Nothing runs in the background (TensorFlow's
// prefetching and parallel map calls overlap the pipeline with training;
// here they produce the same elements in the same order, one at a time).
#include <algorithm>
#include <atomic>
#include <memory>
#include <random>
#include <string>
#include <thread>  // NOLINT(build/c++11): std::this_thread::get_id
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "core/allocator.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/function_runner.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/kernels/standard_kernels.h"
#include "runtime/engine/resource_mgr.h"
#include "runtime/graph/node_def_util.h"
#include "runtime/graph/partial_shape.h"

namespace minigraph {
namespace {

using Element = std::vector<Tensor>;

// Walks a dataset once. Not thread-safe: the iterator resource serializes.
class DatasetIterator {
 public:
  virtual ~DatasetIterator() = default;
  // The next element into `out`, or `*end` = true after the last (and on
  // every later call).
  virtual absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end) = 0;
};

class Dataset : public VariantValue, public std::enable_shared_from_this<Dataset> {
 public:
  Dataset(std::string node, std::vector<DataType> dtypes, std::vector<PartialShape> shapes)
      : node_(std::move(node)), dtypes_(std::move(dtypes)), shapes_(std::move(shapes)) {}

  // TensorFlow's name for the wrapper its dataset variants hold.
  std::string TypeName() const override { return "tensorflow::DatasetVariantWrapper"; }
  std::string DebugString() const override { return absl::StrCat("<dataset '", node_, "'>"); }

  // The node that made the dataset, for messages.
  const std::string& node() const { return node_; }
  const std::vector<DataType>& dtypes() const { return dtypes_; }
  const std::vector<PartialShape>& shapes() const { return shapes_; }

  // A new iterator at the first element. It keeps the dataset alive.
  virtual std::unique_ptr<DatasetIterator> MakeIterator() const = 0;

 protected:
  template <typename T>
  std::shared_ptr<const T> self() const {
    return std::static_pointer_cast<const T>(shared_from_this());
  }

 private:
  const std::string node_;
  const std::vector<DataType> dtypes_;
  const std::vector<PartialShape> shapes_;
};

std::string TypesString(const std::vector<DataType>& types) {
  return absl::StrCat(
      "[",
      absl::StrJoin(types, ", ",
                    [](std::string* out, DataType t) { absl::StrAppend(out, DataTypeString(t)); }),
      "]");
}

std::string ShapesString(const std::vector<PartialShape>& shapes) {
  return absl::StrCat("[",
                      absl::StrJoin(shapes, ", ",
                                    [](std::string* out, const PartialShape& s) {
                                      absl::StrAppend(out, s.DebugString());
                                    }),
                      "]");
}

// Between elements of a loop that pulls many (a batch, a shuffle buffer,
// skipped elements): a cancelled or timed-out step stops, as While does.
absl::Status CheckStep(const OpKernelContext* ctx, const std::string& dataset) {
  if (ctx->cancelled()) return absl::CancelledError("the step was cancelled");
  if (absl::Now() > ctx->step_context().deadline) {
    return absl::DeadlineExceededError(absl::StrCat("step timed out in dataset '", dataset, "'"));
  }
  return absl::OkStatus();
}

// The bytes an element holds (strings: their sizes; each tensor: its
// object and buffer header too), for the limits on what a batch or a
// shuffle buffer gathers.
size_t ElementBytes(const Element& e) {
  size_t bytes = 0;
  for (const Tensor& t : e) {
    bytes += sizeof(Tensor) + 64 + t.TotalBytes();
    if (t.dtype() == DT_STRING) {
      for (int64_t i = 0; i < t.NumElements(); ++i) bytes += t.data<std::string>()[i].size();
    }
  }
  return bytes;
}

// ResourceExhausted when `bytes` gathered by `dataset` pass max_tensor_bytes.
absl::Status CheckGathered(size_t bytes, const std::string& dataset, absl::string_view what) {
  if (bytes <= MaxTensorBytes()) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat("dataset '", dataset, "': its ", what,
                                                   " holds more than ", MaxTensorBytes(),
                                                   " bytes (max_tensor_bytes)"));
}

// The element's dtypes and shapes against what `what` declares.
absl::Status CheckElement(const Element& e, const std::vector<DataType>& dtypes,
                          const std::vector<PartialShape>& shapes, absl::string_view what) {
  if (e.size() != dtypes.size()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " produced ", e.size(),
                                                   " components; its output_types list ",
                                                   dtypes.size(), ": ", TypesString(dtypes)));
  }
  for (size_t i = 0; i < e.size(); ++i) {
    if (e[i].dtype() != dtypes[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " produced ", DataTypeString(e[i].dtype()), " for component ", i,
                       ", which output_types declares ", DataTypeString(dtypes[i])));
    }
    if (i < shapes.size() && !shapes[i].IsCompatibleWith(e[i].shape())) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " produced shape ", e[i].shape().DebugString(), " for component ", i,
                       ", which output_shapes declares ", shapes[i].DebugString()));
    }
  }
  return absl::OkStatus();
}

// Reads the node's output_types and output_shapes attrs; for an op
// without them (TextLineDataset), `dtypes` and `shapes` stay as given.
absl::Status ElementSpec(OpKernelConstruction* c, const char* types_attr,
                         std::vector<DataType>* dtypes, std::vector<PartialShape>* shapes) {
  const auto& attrs = c->def().attr();
  if (attrs.count(types_attr) == 0) return absl::OkStatus();
  MG_RETURN_IF_ERROR(c->GetAttr(types_attr, dtypes));
  shapes->clear();
  auto it = attrs.find("output_shapes");
  if (it != attrs.end()) {
    for (const TensorShapeProto& s : it->second.list().shape()) {
      shapes->push_back(PartialShape::FromProto(s));
    }
  }
  if (!shapes->empty() && shapes->size() != dtypes->size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(c->def().op(), " '", c->def().name(), "': ", types_attr, " lists ",
                     dtypes->size(), " types but output_shapes ", shapes->size(), " shapes"));
  }
  shapes->resize(dtypes->size());
  return absl::OkStatus();
}

// The dataset `t` holds, or null when it is not a variant scalar holding one.
std::shared_ptr<const Dataset> DatasetIn(const Tensor& t) {
  if (t.dtype() != DT_VARIANT || t.dims() != 0) return nullptr;
  return std::dynamic_pointer_cast<const Dataset>(t.data<Variant>()->value());
}

// The base of every *Dataset kernel: reads the element spec, and outputs
// the dataset MakeDataset returns as a variant scalar.
class DatasetOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    return ElementSpec(c, "output_types", &dtypes_, &shapes_);
  }
  absl::Status Compute(OpKernelContext* ctx) const final {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> d, MakeDataset(ctx));
    ctx->set_output(0, Tensor::Scalar<Variant>(Variant(std::move(d))));
    return absl::OkStatus();
  }

 protected:
  virtual absl::StatusOr<std::shared_ptr<const Dataset>> MakeDataset(
      OpKernelContext* ctx) const = 0;

  // "ShuffleDataset 'shuffle'", for messages.
  std::string Where() const { return absl::StrCat(type_string(), " '", name(), "'"); }

  // The dataset input `i` holds, checked against this node's element spec
  // when `same_spec` (transformations that pass elements through).
  absl::StatusOr<std::shared_ptr<const Dataset>> InputDataset(const OpKernelContext* ctx, int i,
                                                              bool same_spec) const {
    const Tensor& t = ctx->input(i);
    std::shared_ptr<const Dataset> d = DatasetIn(t);
    if (d == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": input ", i, " must be a dataset (a variant scalar), got ",
                       DataTypeString(t.dtype()), " ", t.shape().DebugString(),
                       t.dtype() == DT_VARIANT && t.dims() == 0
                           ? absl::StrCat(" holding ", t.data<Variant>()->DebugString())
                           : ""));
    }
    if (same_spec && d->dtypes() != dtypes_) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": its output_types ", TypesString(dtypes_), " differ from its input's ",
          TypesString(d->dtypes()), " (dataset '", d->node(), "')"));
    }
    return d;
  }

  // A scalar int64 (or int32) input.
  absl::StatusOr<int64_t> ScalarInput(const OpKernelContext* ctx, int i,
                                      absl::string_view what) const {
    const Tensor& t = ctx->input(i);
    if (t.dims() != 0 || (t.dtype() != DT_INT64 && t.dtype() != DT_INT32)) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": ", what, " must be an integer scalar, got shape ", t.shape().DebugString()));
    }
    return t.dtype() == DT_INT64 ? *t.data<int64_t>() : *t.data<int32_t>();
  }

  std::vector<DataType> dtypes_;
  std::vector<PartialShape> shapes_;
};

// ---- Sources ---------------------------------------------------------------

// The lines of text files, in order, without their line ends ("\n" or
// "\r\n"); a last line without one is a line too.
class TextLineDataset final : public Dataset {
 public:
  TextLineDataset(std::string node, std::vector<std::string> files, size_t buffer_size)
      : Dataset(std::move(node), {DT_STRING}, {PartialShape::Scalar()}),
        files_(std::move(files)),
        buffer_size_(buffer_size) {}
  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    return std::make_unique<Iterator>(self<TextLineDataset>());
  }

 private:
  class Iterator final : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const TextLineDataset> d) : d_(std::move(d)) {}
    absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end) override {
      for (;;) {
        if (file_ == nullptr) {
          if (next_file_ == d_->files_.size()) {
            *end = true;
            return absl::OkStatus();
          }
          MG_ASSIGN_OR_RETURN(file_, ctx->env()->NewSequentialFile(d_->files_[next_file_]));
          buf_.clear();
          pos_ = 0;
          eof_ = false;
        }
        const size_t nl = buf_.find('\n', pos_);
        if (nl != std::string::npos || (eof_ && pos_ < buf_.size())) {
          const size_t stop = nl != std::string::npos ? nl : buf_.size();
          size_t len = stop - pos_;
          if (nl != std::string::npos && len > 0 && buf_[stop - 1] == '\r') --len;
          out->assign(1, Tensor::Scalar<std::string>(buf_.substr(pos_, len)));
          pos_ = stop + (nl != std::string::npos ? 1 : 0);
          *end = false;
          return absl::OkStatus();
        }
        if (eof_) {
          file_.reset();
          ++next_file_;
          continue;
        }
        buf_.erase(0, pos_);
        pos_ = 0;
        // A file without line ends (a device, a binary file) must not grow
        // the buffer without bound.
        if (buf_.size() > MaxTensorBytes()) {
          return absl::ResourceExhaustedError(
              absl::StrCat("dataset '", d_->node(), "': a line of ", d_->files_[next_file_],
                           " is longer than ", MaxTensorBytes(), " bytes (max_tensor_bytes)"));
        }
        scratch_.resize(d_->buffer_size_);
        absl::StatusOr<absl::string_view> got = file_->Read(scratch_.size(), scratch_.data());
        if (!got.ok()) {
          return absl::Status(got.status().code(),
                              absl::StrCat("dataset '", d_->node(), "': reading ",
                                           d_->files_[next_file_], ": ", got.status().message()));
        }
        if (got->empty()) {
          eof_ = true;
        } else {
          buf_.append(got->data(), got->size());
        }
      }
    }

   private:
    const std::shared_ptr<const TextLineDataset> d_;
    size_t next_file_ = 0;
    std::unique_ptr<SequentialFile> file_;
    std::string buf_, scratch_;
    size_t pos_ = 0;
    bool eof_ = false;
  };

  const std::vector<std::string> files_;
  const size_t buffer_size_;
};

class TextLineDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  absl::StatusOr<std::shared_ptr<const Dataset>> MakeDataset(OpKernelContext* ctx) const override {
    const Tensor& names = ctx->input(0);
    if (names.dims() > 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": filenames must be a scalar or a vector, got shape ",
                       names.shape().DebugString()));
    }
    const Tensor& compression = ctx->input(1);
    if (compression.NumElements() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": compression_type must be a scalar"));
    }
    const std::string& kind = *compression.data<std::string>();
    if (!kind.empty()) {
      return absl::UnimplementedError(absl::StrCat(Where(), ": compression_type '", kind,
                                                   "' is not supported (only uncompressed files)"));
    }
    MG_ASSIGN_OR_RETURN(int64_t buffer_size, ScalarInput(ctx, 2, "buffer_size"));
    if (buffer_size < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": buffer_size must be >= 0, got ", buffer_size));
    }
    // 0 asks for the default, 256 KiB as in TensorFlow.
    const size_t chunk = buffer_size == 0 ? 256 << 10 : std::min<int64_t>(buffer_size, 16 << 20);
    std::vector<std::string> files(names.data<std::string>(),
                                   names.data<std::string>() + names.NumElements());
    return std::shared_ptr<const Dataset>(
        std::make_shared<TextLineDataset>(name(), std::move(files), chunk));
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

// ---- Transformations -------------------------------------------------------

// Elements drawn at random from a buffer of the next `buffer_size` elements
// of the input. Seeds (0, 0) mean a random order each run; otherwise the
// order is fixed by the seeds (and, with reshuffle_each_iteration, differs
// between iterators, in a fixed sequence).
class ShuffleDataset final : public Dataset {
 public:
  ShuffleDataset(std::string node, std::shared_ptr<const Dataset> input, int64_t buffer_size,
                 uint64_t seed, uint64_t seed2, bool reshuffle)
      : Dataset(std::move(node), input->dtypes(), input->shapes()),
        input_(std::move(input)),
        buffer_size_(buffer_size),
        seed_(seed),
        seed2_(seed2),
        reshuffle_(reshuffle) {}
  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    const uint64_t epoch = reshuffle_ ? epochs_.fetch_add(1) : 0;
    std::seed_seq seq{static_cast<uint32_t>(seed_),  static_cast<uint32_t>(seed_ >> 32),
                      static_cast<uint32_t>(seed2_), static_cast<uint32_t>(seed2_ >> 32),
                      static_cast<uint32_t>(epoch),  static_cast<uint32_t>(epoch >> 32)};
    return std::make_unique<Iterator>(self<ShuffleDataset>(), std::mt19937_64(seq));
  }

 private:
  class Iterator final : public DatasetIterator {
   public:
    Iterator(std::shared_ptr<const ShuffleDataset> d, std::mt19937_64 rng)
        : d_(std::move(d)), input_(d_->input_->MakeIterator()), rng_(rng) {}
    absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end) override {
      while (!input_end_ && static_cast<int64_t>(buffer_.size()) < d_->buffer_size_) {
        MG_RETURN_IF_ERROR(CheckStep(ctx, d_->node()));
        Element e;
        MG_RETURN_IF_ERROR(input_->GetNext(ctx, &e, &input_end_));
        if (input_end_) break;
        bytes_ += ElementBytes(e);
        MG_RETURN_IF_ERROR(CheckGathered(bytes_, d_->node(), "shuffle buffer"));
        buffer_.push_back(std::move(e));
      }
      *end = buffer_.empty();
      if (*end) return absl::OkStatus();
      const size_t i = std::uniform_int_distribution<size_t>(0, buffer_.size() - 1)(rng_);
      *out = std::move(buffer_[i]);
      bytes_ -= ElementBytes(*out);
      buffer_[i] = std::move(buffer_.back());
      buffer_.pop_back();
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const ShuffleDataset> d_;
    std::unique_ptr<DatasetIterator> input_;
    std::vector<Element> buffer_;
    size_t bytes_ = 0;  // what buffer_ holds
    bool input_end_ = false;
    std::mt19937_64 rng_;
  };

  const std::shared_ptr<const Dataset> input_;
  const int64_t buffer_size_;
  const uint64_t seed_, seed2_;
  const bool reshuffle_;
  mutable std::atomic<uint64_t> epochs_{0};
};

class ShuffleDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(DatasetOpKernel::Init(c));
    return c->GetAttr("reshuffle_each_iteration", &reshuffle_);
  }

 protected:
  absl::StatusOr<std::shared_ptr<const Dataset>> MakeDataset(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> input, InputDataset(ctx, 0, true));
    MG_ASSIGN_OR_RETURN(int64_t buffer_size, ScalarInput(ctx, 1, "buffer_size"));
    if (buffer_size <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": buffer_size must be greater than zero, got ", buffer_size));
    }
    MG_ASSIGN_OR_RETURN(int64_t seed, ScalarInput(ctx, 2, "seed"));
    MG_ASSIGN_OR_RETURN(int64_t seed2, ScalarInput(ctx, 3, "seed2"));
    if (seed == 0 && seed2 == 0) {
      std::random_device rd;
      seed = (static_cast<int64_t>(rd()) << 32) | rd();
      seed2 = (static_cast<int64_t>(rd()) << 32) | rd();
    }
    return std::shared_ptr<const Dataset>(std::make_shared<ShuffleDataset>(
        name(), std::move(input), buffer_size, seed, seed2, reshuffle_));
  }

 private:
  bool reshuffle_ = true;
};

// f(element..., captured...) for each element of the input.
class MapDataset final : public Dataset {
 public:
  MapDataset(std::string node, std::vector<DataType> dtypes, std::vector<PartialShape> shapes,
             std::shared_ptr<const Dataset> input, std::shared_ptr<const FunctionRunner> f,
             Element captured)
      : Dataset(std::move(node), std::move(dtypes), std::move(shapes)),
        input_(std::move(input)),
        f_(std::move(f)),
        captured_(std::move(captured)) {}
  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    return std::make_unique<Iterator>(self<MapDataset>());
  }

 private:
  class Iterator final : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const MapDataset> d)
        : d_(std::move(d)), input_(d_->input_->MakeIterator()) {}
    absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end) override {
      Element args;
      MG_RETURN_IF_ERROR(input_->GetNext(ctx, &args, end));
      if (*end) return absl::OkStatus();
      args.insert(args.end(), d_->captured_.begin(), d_->captured_.end());
      out->clear();
      MG_RETURN_IF_ERROR(d_->f_->Run(ctx, std::move(args), out));
      return CheckElement(*out, d_->dtypes(), d_->shapes(),
                          absl::StrCat("map function '", d_->f_->function().name, "' of dataset '",
                                       d_->node(), "'"));
    }

   private:
    const std::shared_ptr<const MapDataset> d_;
    std::unique_ptr<DatasetIterator> input_;
  };

  const std::shared_ptr<const Dataset> input_;
  const std::shared_ptr<const FunctionRunner> f_;
  const Element captured_;
};

class MapDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(DatasetOpKernel::Init(c));
    absl::StatusOr<std::unique_ptr<FunctionRunner>> f = RunnerFor(c, "f");
    if (!f.ok()) {
      return absl::Status(f.status().code(), absl::StrCat(c->def().op(), " '", c->def().name(),
                                                          "': ", f.status().message()));
    }
    f_ = *std::move(f);
    parallel_ = c->def().op() != "MapDataset";
    return absl::OkStatus();
  }

 protected:
  absl::StatusOr<std::shared_ptr<const Dataset>> MakeDataset(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> input, InputDataset(ctx, 0, false));
    const int captured_end = parallel_ ? ctx->num_inputs() - 1 : ctx->num_inputs();
    if (parallel_) {
      MG_ASSIGN_OR_RETURN(int64_t calls, ScalarInput(ctx, captured_end, "num_parallel_calls"));
      // -1 is tf.data.AUTOTUNE.
      if (calls <= 0 && calls != -1) {
        return absl::InvalidArgumentError(absl::StrCat(
            Where(), ": num_parallel_calls must be greater than zero (or AUTOTUNE), got ", calls));
      }
    }
    const size_t arity = f_->function().arg_types.size();
    const size_t given = input->dtypes().size() + (captured_end - 1);
    if (arity != given) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": map function '", f_->function().name, "' takes ", arity,
                       " arguments; the input's elements have ", input->dtypes().size(),
                       " components and ", captured_end - 1, " values are captured"));
    }
    Element captured;
    for (int i = 1; i < captured_end; ++i) captured.push_back(ctx->input(i));
    return std::shared_ptr<const Dataset>(std::make_shared<MapDataset>(
        name(), dtypes_, shapes_, std::move(input), f_, std::move(captured)));
  }

 private:
  std::shared_ptr<const FunctionRunner> f_;
  bool parallel_ = false;
};

// RepeatDataset (the input `count` times; forever when negative), TakeDataset
// (its first `count` elements; all when negative), SkipDataset (all but the
// first `count`; none when negative). (The kernels of PrefetchDataset,
// ModelDataset and OptimizeDataset(V2) output their input dataset itself.)
class CountDataset final : public Dataset {
 public:
  enum Kind { kRepeat, kTake, kSkip };
  CountDataset(std::string node, std::shared_ptr<const Dataset> input, Kind kind, int64_t count)
      : Dataset(std::move(node), input->dtypes(), input->shapes()),
        input_(std::move(input)),
        kind_(kind),
        count_(count) {}
  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    return std::make_unique<Iterator>(self<CountDataset>());
  }

 private:
  class Iterator final : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const CountDataset> d) : d_(std::move(d)) {}
    absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end) override {
      switch (d_->kind_) {
        case kRepeat:
          return Repeat(ctx, out, end);
        case kTake:
          if (done_ || (d_->count_ >= 0 && seen_ >= d_->count_)) {
            *end = true;
            return absl::OkStatus();
          }
          break;
        case kSkip:
          if (d_->count_ < 0) {
            *end = true;
            return absl::OkStatus();
          }
          while (!done_ && seen_ < d_->count_) {
            MG_RETURN_IF_ERROR(CheckStep(ctx, d_->node()));
            Element skipped;
            MG_RETURN_IF_ERROR(Input()->GetNext(ctx, &skipped, &done_));
            if (!done_) ++seen_;
          }
          break;
      }
      if (done_) {
        *end = true;
        return absl::OkStatus();
      }
      MG_RETURN_IF_ERROR(Input()->GetNext(ctx, out, end));
      done_ = *end;
      if (!*end && d_->kind_ == kTake) ++seen_;
      return absl::OkStatus();
    }

   private:
    DatasetIterator* Input() {
      if (input_ == nullptr) input_ = d_->input_->MakeIterator();
      return input_.get();
    }

    // `seen_` counts the finished passes over the input.
    absl::Status Repeat(OpKernelContext* ctx, Element* out, bool* end) {
      for (;;) {
        MG_RETURN_IF_ERROR(CheckStep(ctx, d_->node()));
        if (done_ || (d_->count_ >= 0 && seen_ >= d_->count_)) {
          *end = true;
          return absl::OkStatus();
        }
        MG_RETURN_IF_ERROR(Input()->GetNext(ctx, out, end));
        if (!*end) {
          produced_ = true;
          return absl::OkStatus();
        }
        input_.reset();
        ++seen_;
        // An input with no elements would make "forever" a hang.
        if (!produced_) done_ = true;
        produced_ = false;
      }
    }

    const std::shared_ptr<const CountDataset> d_;
    std::unique_ptr<DatasetIterator> input_;
    int64_t seen_ = 0;
    bool produced_ = false;
    bool done_ = false;
  };

  const std::shared_ptr<const Dataset> input_;
  const Kind kind_;
  const int64_t count_;
};

class CountDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(DatasetOpKernel::Init(c));
    const std::string& op = c->def().op();
    kind_ = op == "TakeDataset"   ? CountDataset::kTake
            : op == "SkipDataset" ? CountDataset::kSkip
                                  : CountDataset::kRepeat;
    prefetch_ = op == "PrefetchDataset";
    passthrough_ = op == "ModelDataset" || absl::StartsWith(op, "OptimizeDataset");
    return absl::OkStatus();
  }

 protected:
  absl::StatusOr<std::shared_ptr<const Dataset>> MakeDataset(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> input, InputDataset(ctx, 0, true));
    if (passthrough_) return input;
    MG_ASSIGN_OR_RETURN(int64_t count, ScalarInput(ctx, 1, prefetch_ ? "buffer_size" : "count"));
    if (prefetch_) {
      if (count < -1) {
        return absl::InvalidArgumentError(
            absl::StrCat(Where(), ": buffer_size must be >= 0 or AUTOTUNE (-1), got ", count));
      }
      return input;
    }
    return std::shared_ptr<const Dataset>(
        std::make_shared<CountDataset>(name(), std::move(input), kind_, count));
  }

 private:
  CountDataset::Kind kind_ = CountDataset::kRepeat;
  bool prefetch_ = false;
  bool passthrough_ = false;  // ModelDataset, OptimizeDataset(V2)
};

// Consecutive elements stacked into batches of `batch_size` (the last one
// smaller, unless drop_remainder).
class BatchDataset final : public Dataset {
 public:
  BatchDataset(std::string node, std::vector<PartialShape> shapes,
               std::shared_ptr<const Dataset> input, int64_t batch_size, bool drop_remainder)
      : Dataset(std::move(node), input->dtypes(), std::move(shapes)),
        input_(std::move(input)),
        batch_size_(batch_size),
        drop_remainder_(drop_remainder) {}
  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    return std::make_unique<Iterator>(self<BatchDataset>());
  }

 private:
  class Iterator final : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const BatchDataset> d)
        : d_(std::move(d)), input_(d_->input_->MakeIterator()) {}
    absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end) override {
      std::vector<Element> rows;
      size_t bytes = 0;
      while (!input_end_ && static_cast<int64_t>(rows.size()) < d_->batch_size_) {
        MG_RETURN_IF_ERROR(CheckStep(ctx, d_->node()));
        Element e;
        MG_RETURN_IF_ERROR(input_->GetNext(ctx, &e, &input_end_));
        if (input_end_) break;
        bytes += ElementBytes(e);
        MG_RETURN_IF_ERROR(CheckGathered(bytes, d_->node(), "batch"));
        rows.push_back(std::move(e));
      }
      *end = rows.empty() ||
             (d_->drop_remainder_ && static_cast<int64_t>(rows.size()) < d_->batch_size_);
      if (*end) return absl::OkStatus();
      out->clear();
      for (size_t c = 0; c < rows[0].size(); ++c) {
        const Tensor& first = rows[0][c];
        TensorShape shape;
        MG_RETURN_IF_ERROR(shape.AddDim(static_cast<int64_t>(rows.size())));
        for (int64_t dim : first.shape().dim_sizes()) MG_RETURN_IF_ERROR(shape.AddDim(dim));
        MG_ASSIGN_OR_RETURN(Tensor batch, Tensor::Create(first.dtype(), shape));
        const int64_t n = first.NumElements();
        for (size_t r = 0; r < rows.size(); ++r) {
          const Tensor& t = rows[r][c];
          if (t.shape() != first.shape()) {
            return absl::InvalidArgumentError(
                absl::StrCat("dataset '", d_->node(),
                             "': cannot batch tensors with different shapes in "
                             "component ",
                             c, ": the first element had shape ", first.shape().DebugString(),
                             " and element ", r, " had shape ", t.shape().DebugString()));
          }
          CopyElements(t, 0, &batch, static_cast<int64_t>(r) * n, n);
        }
        out->push_back(std::move(batch));
      }
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const BatchDataset> d_;
    std::unique_ptr<DatasetIterator> input_;
    bool input_end_ = false;
  };

  const std::shared_ptr<const Dataset> input_;
  const int64_t batch_size_;
  const bool drop_remainder_;
};

class BatchDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  absl::StatusOr<std::shared_ptr<const Dataset>> MakeDataset(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> input, InputDataset(ctx, 0, true));
    MG_ASSIGN_OR_RETURN(int64_t batch_size, ScalarInput(ctx, 1, "batch_size"));
    if (batch_size <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": batch_size must be greater than zero, got ", batch_size));
    }
    bool drop_remainder = false;
    if (ctx->num_inputs() > 2) {
      const Tensor& t = ctx->input(2);
      if (t.dims() != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(Where(), ": drop_remainder must be a scalar"));
      }
      drop_remainder = *t.data<bool>();
    }
    return std::shared_ptr<const Dataset>(std::make_shared<BatchDataset>(
        name(), shapes_, std::move(input), batch_size, drop_remainder));
  }
};

// ---- Iterators -------------------------------------------------------------

constexpr char kIteratorTypeName[] = "tensorflow::data::IteratorResource";

class IteratorResource final : public Resource {
 public:
  IteratorResource(std::vector<DataType> dtypes, std::vector<PartialShape> shapes)
      : dtypes_(std::move(dtypes)), shapes_(std::move(shapes)) {}
  std::string TypeName() const override { return kIteratorTypeName; }
  const std::vector<DataType>& dtypes() const { return dtypes_; }
  const std::vector<PartialShape>& shapes() const { return shapes_; }

  // Starts over at the first element of `d`.
  absl::Status Reset(const Dataset& d, absl::string_view iterator) {
    if (d.dtypes() != dtypes_) {
      return absl::InvalidArgumentError(
          absl::StrCat("dataset '", d.node(), "' has elements of types ", TypesString(d.dtypes()),
                       " but iterator '", iterator, "' was made for ", TypesString(dtypes_)));
    }
    for (size_t i = 0; i < dtypes_.size(); ++i) {
      if (!Compatible(d.shapes()[i], shapes_[i])) {
        return absl::InvalidArgumentError(absl::StrCat(
            "dataset '", d.node(), "' has elements of shapes ", ShapesString(d.shapes()),
            " but iterator '", iterator, "' was made for ", ShapesString(shapes_)));
      }
    }
    std::unique_ptr<DatasetIterator> it = d.MakeIterator();
    absl::MutexLock l(&mu_);
    it_ = std::move(it);
    return absl::OkStatus();
  }

  bool initialized() {
    absl::MutexLock l(&mu_);
    return it_ != nullptr;
  }

  absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end, absl::string_view iterator) {
    // A map function that reads this same iterator would wait for itself.
    if (reader_.load() == std::this_thread::get_id()) {
      return absl::InvalidArgumentError(
          absl::StrCat("iterator '", iterator,
                       "' is read from inside its own pipeline (a map function reads "
                       "the iterator that is calling it)"));
    }
    absl::MutexLock l(&mu_);
    reader_.store(std::this_thread::get_id());
    absl::Cleanup done = [this] { reader_.store(std::thread::id()); };
    if (it_ == nullptr) {
      return absl::FailedPreconditionError(
          "GetNext() failed because the iterator has not been initialized. Ensure that you have "
          "run the initializer operation for this iterator before getting the next element.");
    }
    return it_->GetNext(ctx, out, end);
  }

 private:
  static bool Compatible(const PartialShape& a, const PartialShape& b) {
    if (!a.rank_known() || !b.rank_known()) return true;
    if (a.rank() != b.rank()) return false;
    for (int i = 0; i < a.rank(); ++i) {
      if (a.dim(i) >= 0 && b.dim(i) >= 0 && a.dim(i) != b.dim(i)) return false;
    }
    return true;
  }

  const std::vector<DataType> dtypes_;
  const std::vector<PartialShape> shapes_;
  absl::Mutex mu_;
  std::unique_ptr<DatasetIterator> it_ ABSL_GUARDED_BY(mu_);
  // The thread inside GetNext, if any.
  std::atomic<std::thread::id> reader_{std::thread::id()};
};

// The iterator `h` names, or TensorFlow's NotFound.
absl::StatusOr<std::shared_ptr<IteratorResource>> FindIterator(const OpKernelContext* ctx,
                                                               const ResourceHandle& h) {
  auto it = std::dynamic_pointer_cast<IteratorResource>(
      ctx->resource_manager()->FindResource(h.container(), h.name()));
  if (it == nullptr) {
    return absl::NotFoundError(absl::StrCat("Resource ", h.container(), "/", h.name(), "/",
                                            kIteratorTypeName, " does not exist."));
  }
  return it;
}

// The iterator input `i` names.
absl::StatusOr<std::shared_ptr<IteratorResource>> IteratorInput(const OpKernelContext* ctx, int i) {
  const Tensor& t = ctx->input(i);
  if (t.dtype() != DT_RESOURCE || t.NumElements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(ctx->kernel().type_string(), " '",
                                                   ctx->kernel().name(), "': input ", i,
                                                   " must be a scalar iterator handle"));
  }
  return FindIterator(ctx, *t.data<ResourceHandle>());
}

// Iterator and IteratorV2: the handle of the iterator named by shared_name
// (or, without one, by the node), made on the first run.
class IteratorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("container", &container_));
    MG_RETURN_IF_ERROR(c->GetAttr("shared_name", &name_));
    if (container_.empty()) container_ = ResourceMgr::kDefaultContainer;
    if (name_.empty()) name_ = c->def().name();
    return ElementSpec(c, "output_types", &dtypes_, &shapes_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<Resource> r,
                        ctx->resource_manager()->LookupOrCreateResource(container_, name_, [&] {
                          return std::make_unique<IteratorResource>(dtypes_, shapes_);
                        }));
    auto* it = dynamic_cast<IteratorResource*>(r.get());
    if (it == nullptr || it->dtypes() != dtypes_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "resource ", container_, "/", name_, " exists and is not an iterator of ",
          TypesString(dtypes_),
          it == nullptr ? "" : absl::StrCat(" (it yields ", TypesString(it->dtypes()), ")")));
    }
    MG_RETURN_IF_ERROR(Prepare(ctx, it));
    Tensor t = Tensor::Scalar<ResourceHandle>(ResourceHandle());
    ResourceHandle& h = *t.data<ResourceHandle>();
    h.set_device("/job:localhost/replica:0/task:0/device:CPU:0");
    h.set_container(container_);
    h.set_name(name_);
    h.set_maybe_type_name(kIteratorTypeName);
    ctx->set_output(0, std::move(t));
    return absl::OkStatus();
  }

 protected:
  // Runs before the handle is output.
  virtual absl::Status Prepare(OpKernelContext* ctx, IteratorResource* it) const {
    return absl::OkStatus();
  }

  const std::string& iterator_name() const { return name_; }

 private:
  std::string container_, name_;
  std::vector<DataType> dtypes_;
  std::vector<PartialShape> shapes_;
};

// OneShotIterator: an Iterator whose dataset dataset_factory makes, when the
// iterator is first used (and again if its container was cleared).
class OneShotIteratorOp final : public IteratorOp {
 public:
  using IteratorOp::IteratorOp;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(IteratorOp::Init(c));
    absl::StatusOr<std::unique_ptr<FunctionRunner>> f = RunnerFor(c, "dataset_factory");
    if (!f.ok()) {
      return absl::Status(f.status().code(), absl::StrCat("OneShotIterator '", c->def().name(),
                                                          "': ", f.status().message()));
    }
    factory_ = *std::move(f);
    return absl::OkStatus();
  }

 protected:
  absl::Status Prepare(OpKernelContext* ctx, IteratorResource* it) const override {
    absl::MutexLock l(&mu_);
    if (it->initialized()) return absl::OkStatus();
    std::vector<Tensor> rets;
    MG_RETURN_IF_ERROR(factory_->Run(ctx, {}, &rets));
    std::shared_ptr<const Dataset> d = rets.size() == 1 ? DatasetIn(rets[0]) : nullptr;
    if (d == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("OneShotIterator '", name(), "': dataset_factory '",
                       factory_->function().name, "' must return one dataset"));
    }
    return it->Reset(*d, iterator_name());
  }

 private:
  std::unique_ptr<FunctionRunner> factory_;
  mutable absl::Mutex mu_;  // one factory call at a time
};

class MakeIteratorOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::shared_ptr<const Dataset> d = DatasetIn(ctx->input(0));
    if (d == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "MakeIterator '", name(), "': input 0 must be a dataset (a variant scalar)"));
    }
    MG_ASSIGN_OR_RETURN(std::shared_ptr<IteratorResource> it, IteratorInput(ctx, 1));
    return it->Reset(*d, ctx->input(1).data<ResourceHandle>()->name());
  }
};

class IteratorGetNextOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    return ElementSpec(c, "output_types", &dtypes_, &shapes_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<IteratorResource> it, IteratorInput(ctx, 0));
    Element e;
    bool end = false;
    MG_RETURN_IF_ERROR(it->GetNext(ctx, &e, &end, ctx->input(0).data<ResourceHandle>()->name()));
    if (end) return absl::OutOfRangeError("End of sequence");
    MG_RETURN_IF_ERROR(
        CheckElement(e, dtypes_, shapes_, absl::StrCat("IteratorGetNext '", name(), "'")));
    for (size_t i = 0; i < e.size(); ++i) ctx->set_output(static_cast<int>(i), std::move(e[i]));
    return absl::OkStatus();
  }

 private:
  std::vector<DataType> dtypes_;
  std::vector<PartialShape> shapes_;
};

// The handle as a string (its serialized ResourceHandleProto, as in
// TensorFlow), to feed to IteratorFromStringHandle.
class IteratorToStringHandleOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_RETURN_IF_ERROR(IteratorInput(ctx, 0).status());
    ctx->set_output(
        0, Tensor::Scalar<std::string>(ctx->input(0).data<ResourceHandle>()->SerializeAsString()));
    return absl::OkStatus();
  }
};

class IteratorFromStringHandleOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    return ElementSpec(c, "output_types", &dtypes_, &shapes_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& s = ctx->input(0);
    ResourceHandle h;
    if (s.dims() != 0 || !h.ParseFromString(*s.data<std::string>())) {
      return absl::InvalidArgumentError(
          absl::StrCat("IteratorFromStringHandle '", name(),
                       "': could not parse string_handle as a valid ResourceHandle"));
    }
    MG_ASSIGN_OR_RETURN(std::shared_ptr<IteratorResource> it, FindIterator(ctx, h));
    if (!dtypes_.empty() && it->dtypes() != dtypes_) {
      return absl::InvalidArgumentError(
          absl::StrCat("IteratorFromStringHandle '", name(), "': the iterator yields ",
                       TypesString(it->dtypes()), " but output_types is ", TypesString(dtypes_)));
    }
    ctx->set_output(0, Tensor::Scalar<ResourceHandle>(h));
    return absl::OkStatus();
  }

 private:
  std::vector<DataType> dtypes_;
  std::vector<PartialShape> shapes_;
};

}  // namespace

void RegisterDatasetKernels(KernelRegistry* r) {
  r->Register("TextLineDataset", MakeFactory<TextLineDatasetOp>());
  r->Register("TensorSliceDataset", MakeFactory<TensorsDatasetOp>());
  r->Register("TensorDataset", MakeFactory<TensorsDatasetOp>());
  r->Register("ShuffleDataset", MakeFactory<ShuffleDatasetOp>());
  r->Register("MapDataset", MakeFactory<MapDatasetOp>());
  r->Register("ParallelMapDataset", MakeFactory<MapDatasetOp>());
  r->Register("ParallelMapDatasetV2", MakeFactory<MapDatasetOp>());
  r->Register("RepeatDataset", MakeFactory<CountDatasetOp>());
  r->Register("TakeDataset", MakeFactory<CountDatasetOp>());
  r->Register("SkipDataset", MakeFactory<CountDatasetOp>());
  r->Register("PrefetchDataset", MakeFactory<CountDatasetOp>());
  r->Register("ModelDataset", MakeFactory<CountDatasetOp>());
  r->Register("OptimizeDataset", MakeFactory<CountDatasetOp>());
  r->Register("OptimizeDatasetV2", MakeFactory<CountDatasetOp>());
  r->Register("OneShotIterator", MakeFactory<OneShotIteratorOp>());
  r->Register("BatchDataset", MakeFactory<BatchDatasetOp>());
  r->Register("BatchDatasetV2", MakeFactory<BatchDatasetOp>());
  r->Register("Iterator", MakeFactory<IteratorOp>());
  r->Register("IteratorV2", MakeFactory<IteratorOp>());
  r->Register("MakeIterator", MakeFactory<MakeIteratorOp>());
  r->Register("IteratorGetNext", MakeFactory<IteratorGetNextOp>());
  r->Register("IteratorToStringHandle", MakeFactory<IteratorToStringHandleOp>());
  r->Register("IteratorFromStringHandle", MakeFactory<IteratorFromStringHandleOp>());
  r->Register("IteratorFromStringHandleV2", MakeFactory<IteratorFromStringHandleOp>());
}

}  // namespace minigraph
