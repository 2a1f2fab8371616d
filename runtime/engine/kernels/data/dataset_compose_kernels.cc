// tf.data transformations that combine datasets or make them from a
// function: FilterDataset, FlatMapDataset, InterleaveDataset, ZipDataset,
// ConcatenateDataset and CacheDataset (in memory or in a file), with
// TensorFlow's element orders, and ParallelInterleaveDataset (V1 to V4, and
// TensorFlow 2's LegacyParallelInterleaveDatasetV2), whose open inputs are
// read on threads of their own.
#include <algorithm>
#include <memory>
#include <string>
#include <thread>  // NOLINT(build/c++11): std::thread::hardware_concurrency
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "checkpoint/bundle_reader.h"
#include "checkpoint/bundle_writer.h"
#include "core/env.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/dataset.h"
#include "runtime/engine/kernels/internal/function_runner.h"
#include "runtime/engine/kernels/internal/kernel_families.h"

namespace minigraph {
namespace kernels_internal {
namespace {

using data::CheckElement;
using data::CheckGathered;
using data::CheckStep;
using data::Dataset;
using data::DatasetIterator;
using data::DatasetOpKernel;
using data::Element;

// The base of the kernels that call a library function on each input
// element (and values captured from the graph, inputs 1 .. 1 +
// Targuments): the function named by `attr`, made once with the kernel.
class FunctionDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::Status InitFunction(OpKernelConstruction* c, const char* attr) {
    MG_RETURN_IF_ERROR(DatasetOpKernel::Init(c));
    absl::StatusOr<std::unique_ptr<FunctionRunner>> f = RunnerFor(c, attr);
    if (!f.ok()) {
      return absl::Status(f.status().code(), absl::StrCat(c->def().op(), " '", c->def().name(),
                                                          "': ", f.status().message()));
    }
    f_ = *std::move(f);
    MG_RETURN_IF_ERROR(c->GetAttr("Targuments", &captured_types_));
    return absl::OkStatus();
  }

 protected:
  // The captured values, after checking that the function takes the input's
  // components and them.
  absl::StatusOr<Element> Captured(const OpKernelContext* ctx, const Dataset& input,
                                   const char* role) const {
    const size_t arity = f_->function().arg_types.size();
    const size_t captured = captured_types_.size();
    if (arity != input.dtypes().size() + captured) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": ", role, " '", f_->function().name, "' takes ", arity,
                       " arguments; the input's elements have ", input.dtypes().size(),
                       " components and ", captured, " values are captured"));
    }
    Element values;
    for (size_t i = 0; i < captured; ++i) values.push_back(ctx->input(1 + i));
    return values;
  }

  std::shared_ptr<const FunctionRunner> f_;
  std::vector<DataType> captured_types_;
};

// Calls `f` on an input element and the captured values; its one result
// must be a dataset (FlatMap, Interleave).
absl::StatusOr<std::shared_ptr<const Dataset>> DatasetOfElement(OpKernelContext* ctx,
                                                                const FunctionRunner& f,
                                                                Element args,
                                                                const Element& captured,
                                                                const std::string& node) {
  args.insert(args.end(), captured.begin(), captured.end());
  Element rets;
  MG_RETURN_IF_ERROR(f.Run(ctx, std::move(args), &rets));
  std::shared_ptr<const Dataset> d = rets.size() == 1 ? data::DatasetIn(rets[0]) : nullptr;
  if (d == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "function '", f.function().name, "' of dataset '", node,
        "' must return a single dataset (a variant scalar), got ", rets.size(), " values",
        rets.size() == 1 ? absl::StrCat(": ", DataTypeString(rets[0].dtype()), " ",
                                        rets[0].shape().DebugString())
                         : ""));
  }
  return d;
}

// ---- FilterDataset -----------------------------------------------------------

// The input's elements for which `predicate` returns true.
class FilterDataset final : public Dataset {
 public:
  FilterDataset(std::string node, std::shared_ptr<const Dataset> input,
                std::shared_ptr<const FunctionRunner> predicate, Element captured)
      : Dataset(std::move(node), input->dtypes(), input->shapes()),
        input_(std::move(input)),
        predicate_(std::move(predicate)),
        captured_(std::move(captured)) {}
  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    return std::make_unique<Iterator>(self<FilterDataset>());
  }

 private:
  class Iterator final : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const FilterDataset> d)
        : d_(std::move(d)), input_(d_->input_->MakeIterator()) {}
    absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end) override {
      for (bool first = true;; first = false) {
        if (!first) MG_RETURN_IF_ERROR(CheckStep(ctx, d_->node()));
        MG_RETURN_IF_ERROR(input_->GetNext(ctx, out, end));
        if (*end) return absl::OkStatus();
        Element args = *out;
        args.insert(args.end(), d_->captured_.begin(), d_->captured_.end());
        Element rets;
        MG_RETURN_IF_ERROR(d_->predicate_->Run(ctx, std::move(args), &rets));
        if (rets.size() != 1 || rets[0].dtype() != DT_BOOL || rets[0].dims() != 0) {
          return absl::InvalidArgumentError(
              absl::StrCat("predicate '", d_->predicate_->function().name, "' of dataset '",
                           d_->node(), "' must return a scalar bool, got ", rets.size(), " values",
                           rets.size() == 1 ? absl::StrCat(": ", DataTypeString(rets[0].dtype()),
                                                           " ", rets[0].shape().DebugString())
                                            : ""));
        }
        if (*rets[0].data<bool>()) return absl::OkStatus();
      }
    }

   private:
    const std::shared_ptr<const FilterDataset> d_;
    std::unique_ptr<DatasetIterator> input_;
  };

  const std::shared_ptr<const Dataset> input_;
  const std::shared_ptr<const FunctionRunner> predicate_;
  const Element captured_;
};

class FilterDatasetOp final : public FunctionDatasetOp {
 public:
  using FunctionDatasetOp::FunctionDatasetOp;
  absl::Status Init(OpKernelConstruction* c) { return InitFunction(c, "predicate"); }

 protected:
  absl::StatusOr<std::shared_ptr<const Dataset>> MakeDataset(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> input, InputDataset(ctx, 0, true));
    MG_ASSIGN_OR_RETURN(Element captured, Captured(ctx, *input, "predicate"));
    return std::shared_ptr<const Dataset>(
        std::make_shared<FilterDataset>(name(), std::move(input), f_, std::move(captured)));
  }
};

// ---- FlatMapDataset and InterleaveDataset ------------------------------------

// The elements of the datasets `f` makes from the input's elements: with
// cycle_length 1 one dataset after another (FlatMapDataset); otherwise
// `block_length` elements from each of `cycle_length` open datasets in
// turn, a finished one replaced by the next input element's in its place
// (InterleaveDataset, as TensorFlow orders them). ParallelInterleaveDataset
// (V1 to V4, and LegacyV2) reads each open dataset on a thread of its own, up to
// `buffer` elements ahead (MakePrefetchIterator), at most `calls` of them
// making an element at once; the order stays the same (a sloppy or
// non-deterministic interleave may give any order; this is one of them).
class InterleaveDataset final : public Dataset {
 public:
  struct Parallel {
    int64_t calls = 0;  // 0: in the reader's step
    int64_t buffer = 0;
  };
  InterleaveDataset(std::string node, std::vector<DataType> dtypes,
                    std::vector<PartialShape> shapes, std::shared_ptr<const Dataset> input,
                    std::shared_ptr<const FunctionRunner> f, Element captured, int64_t cycle_length,
                    int64_t block_length, Parallel parallel)
      : Dataset(std::move(node), std::move(dtypes), std::move(shapes)),
        input_(std::move(input)),
        f_(std::move(f)),
        captured_(std::move(captured)),
        cycle_length_(cycle_length),
        block_length_(block_length),
        parallel_(parallel) {}
  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    return std::make_unique<Iterator>(self<InterleaveDataset>());
  }

 private:
  class Iterator final : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const InterleaveDataset> d)
        : d_(std::move(d)), input_(d_->input_->MakeIterator()), cycle_(d_->cycle_length_) {
      if (d_->parallel_.calls != 0) {
        budget_ = std::make_shared<data::CallBudget>(data::ParallelThreads(d_->parallel_.calls));
      }
    }
    absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end) override {
      // Parallel: every empty place is filled first, in the order the loop
      // below would come to them, so that all open inputs are read at once.
      for (size_t i = 0; budget_ != nullptr && i < cycle_.size() && !end_of_input_; ++i) {
        std::unique_ptr<DatasetIterator>& place = cycle_[(index_ + i) % cycle_.size()];
        if (place == nullptr) MG_RETURN_IF_ERROR(Open(ctx, &place));
      }
      while (!end_of_input_ || open_ > 0) {
        MG_RETURN_IF_ERROR(CheckStep(ctx, d_->node()));
        std::unique_ptr<DatasetIterator>& current = cycle_[index_];
        if (current != nullptr) {
          bool done = false;
          MG_RETURN_IF_ERROR(current->GetNext(ctx, out, &done));
          if (!done) {
            MG_RETURN_IF_ERROR(
                CheckElement(*out, d_->dtypes(), d_->shapes(),
                             absl::StrCat("a dataset made by function '", d_->f_->function().name,
                                          "' of dataset '", d_->node(), "'")));
            if (++block_ == d_->block_length_) Advance();
            *end = false;
            return absl::OkStatus();
          }
          current.reset();
          --open_;
          Advance();
        } else if (!end_of_input_) {
          MG_RETURN_IF_ERROR(Open(ctx, &current));
        } else {
          Advance();
        }
      }
      *end = true;
      return absl::OkStatus();
    }

   private:
    void Advance() {
      block_ = 0;
      index_ = (index_ + 1) % cycle_.size();
    }

    // Fills an empty place with the dataset of the next input element.
    absl::Status Open(OpKernelContext* ctx, std::unique_ptr<DatasetIterator>* place) {
      Element args;
      MG_RETURN_IF_ERROR(input_->GetNext(ctx, &args, &end_of_input_));
      if (end_of_input_) return absl::OkStatus();
      MG_ASSIGN_OR_RETURN(
          std::shared_ptr<const Dataset> made,
          DatasetOfElement(ctx, *d_->f_, std::move(args), d_->captured_, d_->node()));
      *place = made->MakeIterator();
      if (budget_ != nullptr) {
        *place = data::MakePrefetchIterator(std::move(*place), d_->parallel_.buffer, d_->node(),
                                            ctx, budget_);
      }
      ++open_;
      return absl::OkStatus();
    }

    const std::shared_ptr<const InterleaveDataset> d_;
    std::unique_ptr<DatasetIterator> input_;
    std::vector<std::unique_ptr<DatasetIterator>> cycle_;
    size_t index_ = 0;
    int64_t block_ = 0;
    int64_t open_ = 0;
    bool end_of_input_ = false;
    std::shared_ptr<data::CallBudget> budget_;  // parallel: shared by the open datasets
  };

  const std::shared_ptr<const Dataset> input_;
  const std::shared_ptr<const FunctionRunner> f_;
  const Element captured_;
  const int64_t cycle_length_;
  const int64_t block_length_;
  const Parallel parallel_;
};

class InterleaveDatasetOp final : public FunctionDatasetOp {
 public:
  using FunctionDatasetOp::FunctionDatasetOp;
  absl::Status Init(OpKernelConstruction* c) {
    op_ = c->def().op();
    interleave_ = op_ != "FlatMapDataset";
    return InitFunction(c, "f");
  }

 protected:
  absl::StatusOr<std::shared_ptr<const Dataset>> MakeDataset(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> input, InputDataset(ctx, 0, false));
    MG_ASSIGN_OR_RETURN(Element captured, Captured(ctx, *input, "function"));
    int64_t cycle_length = 1, block_length = 1;
    InterleaveDataset::Parallel parallel;
    if (interleave_) {
      const int at = 1 + captured_types_.size();
      MG_ASSIGN_OR_RETURN(cycle_length, ScalarInput(ctx, at, "cycle_length"));
      MG_ASSIGN_OR_RETURN(block_length, ScalarInput(ctx, at + 1, "block_length"));
      // -1 is tf.data.AUTOTUNE: as many as the machine has cores, as in
      // TensorFlow.
      if (cycle_length == data::kAutotune) {
        cycle_length = std::max(1u, std::thread::hardware_concurrency());
      }
      if (cycle_length <= 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            Where(), ": cycle_length must be greater than zero (or AUTOTUNE), got ", cycle_length));
      }
      if (block_length <= 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(Where(), ": block_length must be greater than zero, got ", block_length));
      }
      // Each slot holds an open iterator; a graph cannot ask for more than
      // a step could ever walk.
      constexpr int64_t kMaxCycle = 1 << 16;
      if (cycle_length > kMaxCycle) {
        return absl::InvalidArgumentError(
            absl::StrCat(Where(), ": cycle_length ", cycle_length, " is more than ", kMaxCycle));
      }
      if (op_ != "InterleaveDataset") {
        MG_ASSIGN_OR_RETURN(parallel, Parallelism(ctx, at + 2, cycle_length, block_length));
      }
    }
    return std::shared_ptr<const Dataset>(std::make_shared<InterleaveDataset>(
        name(), dtypes_, shapes_, std::move(input), f_, std::move(captured), cycle_length,
        block_length, parallel));
  }

 private:
  // The inputs after block_length of a ParallelInterleaveDataset, from `at`.
  absl::StatusOr<InterleaveDataset::Parallel> Parallelism(const OpKernelContext* ctx, int at,
                                                          int64_t cycle_length,
                                                          int64_t block_length) const {
    // V1: sloppy, buffer_output_elements, prefetch_input_elements, and a
    // thread per open input; LegacyV2 the same without sloppy. V4:
    // buffer_output_elements, prefetch_input_elements, num_parallel_calls.
    // V2, V3: num_parallel_calls.
    const bool legacy =
        op_ == "ParallelInterleaveDataset" || op_ == "LegacyParallelInterleaveDatasetV2";
    int64_t buffer = data::kAutotune;
    int64_t calls = cycle_length;
    if (legacy || op_ == "ParallelInterleaveDatasetV4") {
      const int buffer_at = op_ == "ParallelInterleaveDataset" ? at + 1 : at;
      MG_ASSIGN_OR_RETURN(buffer, ScalarInput(ctx, buffer_at, "buffer_output_elements"));
      MG_ASSIGN_OR_RETURN(int64_t prefetch,
                          ScalarInput(ctx, buffer_at + 1, "prefetch_input_elements"));
      if (buffer <= 0 && buffer != data::kAutotune) {
        return absl::InvalidArgumentError(absl::StrCat(
            Where(), ": buffer_output_elements must be greater than zero (or AUTOTUNE), got ",
            buffer));
      }
      if (prefetch < 0 && prefetch != data::kAutotune) {
        return absl::InvalidArgumentError(absl::StrCat(
            Where(), ": prefetch_input_elements must be at least zero (or AUTOTUNE), got ",
            prefetch));
      }
    }
    if (!legacy) {
      const int calls_at = op_ == "ParallelInterleaveDatasetV4" ? at + 2 : at;
      MG_ASSIGN_OR_RETURN(calls, ScalarInput(ctx, calls_at, "num_parallel_calls"));
      MG_RETURN_IF_ERROR(data::CheckParallelCalls(calls, Where()));
      if (calls == data::kAutotune || calls > cycle_length) calls = cycle_length;
    }
    // TensorFlow's default: a block ahead of each open input.
    if (buffer == data::kAutotune) buffer = block_length;
    return InterleaveDataset::Parallel{calls, buffer};
  }

  std::string op_;
  bool interleave_ = false;
};

// ---- ZipDataset and ConcatenateDataset ---------------------------------------

// Zip: the components of one element of each input, side by side, until
// the shortest input ends. Concatenate: the first input's elements, then
// the second's.
class ZipOrConcatenateDataset final : public Dataset {
 public:
  ZipOrConcatenateDataset(std::string node, std::vector<DataType> dtypes,
                          std::vector<PartialShape> shapes,
                          std::vector<std::shared_ptr<const Dataset>> inputs, bool zip)
      : Dataset(std::move(node), std::move(dtypes), std::move(shapes)),
        inputs_(std::move(inputs)),
        zip_(zip) {}
  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    return std::make_unique<Iterator>(self<ZipOrConcatenateDataset>());
  }

 private:
  class Iterator final : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const ZipOrConcatenateDataset> d) : d_(std::move(d)) {
      for (const auto& in : d_->inputs_) inputs_.push_back(in->MakeIterator());
    }
    absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end) override {
      if (d_->zip_) return Zip(ctx, out, end);
      while (next_ < inputs_.size()) {
        MG_RETURN_IF_ERROR(inputs_[next_]->GetNext(ctx, out, end));
        if (!*end) return absl::OkStatus();
        inputs_[next_].reset();
        ++next_;
      }
      *end = true;
      return absl::OkStatus();
    }

   private:
    absl::Status Zip(OpKernelContext* ctx, Element* out, bool* end) {
      out->clear();
      if (!done_) {
        for (auto& in : inputs_) {
          Element part;
          MG_RETURN_IF_ERROR(in->GetNext(ctx, &part, &done_));
          if (done_) break;
          out->insert(out->end(), std::make_move_iterator(part.begin()),
                      std::make_move_iterator(part.end()));
        }
      }
      *end = done_;
      if (done_) out->clear();
      return absl::OkStatus();
    }

    const std::shared_ptr<const ZipOrConcatenateDataset> d_;
    std::vector<std::unique_ptr<DatasetIterator>> inputs_;
    size_t next_ = 0;
    bool done_ = false;
  };

  const std::vector<std::shared_ptr<const Dataset>> inputs_;
  const bool zip_;
};

class ZipOrConcatenateDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    zip_ = c->def().op() == "ZipDataset";
    return DatasetOpKernel::Init(c);
  }

 protected:
  absl::StatusOr<std::shared_ptr<const Dataset>> MakeDataset(OpKernelContext* ctx) const override {
    std::vector<std::shared_ptr<const Dataset>> inputs;
    std::vector<DataType> dtypes;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      MG_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> in, InputDataset(ctx, i, !zip_));
      dtypes.insert(dtypes.end(), in->dtypes().begin(), in->dtypes().end());
      inputs.push_back(std::move(in));
    }
    if (zip_ && dtypes != dtypes_) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": its output_types ", data::TypesString(dtypes_),
                       " differ from its inputs' components ", data::TypesString(dtypes)));
    }
    return std::shared_ptr<const Dataset>(std::make_shared<ZipOrConcatenateDataset>(
        name(), dtypes_, shapes_, std::move(inputs), zip_));
  }

 private:
  bool zip_ = false;
};

// ---- CacheDataset ------------------------------------------------------------

// The input's elements; the first iteration that reaches the end keeps
// them, and every iterator made after that reads them from memory instead
// of the input (as TensorFlow's in-memory cache: an iteration that stops
// early keeps nothing).
class CacheDataset final : public Dataset {
 public:
  CacheDataset(std::string node, std::shared_ptr<const Dataset> input)
      : Dataset(std::move(node), input->dtypes(), input->shapes()), input_(std::move(input)) {}
  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    std::shared_ptr<const std::vector<Element>> cached;
    {
      absl::MutexLock l(&mu_);
      cached = cached_;
    }
    if (cached != nullptr) return std::make_unique<ReadIterator>(std::move(cached));
    return std::make_unique<FillIterator>(self<CacheDataset>());
  }

 private:
  class ReadIterator final : public DatasetIterator {
   public:
    explicit ReadIterator(std::shared_ptr<const std::vector<Element>> cached)
        : cached_(std::move(cached)) {}
    absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end) override {
      *end = next_ == cached_->size();
      if (!*end) *out = (*cached_)[next_++];
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const std::vector<Element>> cached_;
    size_t next_ = 0;
  };

  class FillIterator final : public DatasetIterator {
   public:
    explicit FillIterator(std::shared_ptr<const CacheDataset> d)
        : d_(std::move(d)), input_(d_->input_->MakeIterator()) {}
    absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end) override {
      if (input_ == nullptr) {
        *end = true;
        return absl::OkStatus();
      }
      MG_RETURN_IF_ERROR(input_->GetNext(ctx, out, end));
      if (*end) {
        input_.reset();
        absl::MutexLock l(&d_->mu_);
        if (d_->cached_ == nullptr) {
          d_->cached_ = std::make_shared<const std::vector<Element>>(std::move(kept_));
        }
        return absl::OkStatus();
      }
      bytes_ += data::ElementBytes(*out);
      MG_RETURN_IF_ERROR(CheckGathered(bytes_, d_->node(), "cache"));
      kept_.push_back(*out);
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const CacheDataset> d_;
    std::unique_ptr<DatasetIterator> input_;
    std::vector<Element> kept_;
    size_t bytes_ = 0;
  };

  const std::shared_ptr<const Dataset> input_;
  mutable absl::Mutex mu_;
  mutable std::shared_ptr<const std::vector<Element>> cached_ ABSL_GUARDED_BY(mu_);
};

// CacheDataset with a filename: the first iteration writes the input's
// elements to a checkpoint at that prefix, in TensorFlow's layout (element
// i's component c under the key "%7d_%d"), so either side reads the
// other's cache; while it writes, "<filename>_0.lockfile" keeps a second
// writer out (TensorFlow's AlreadyExists). Once the files exist, every
// iterator reads them instead of the input. An iteration that stops early
// leaves no cache (BundleWriter's files appear only when complete).
class FileCacheDataset final : public Dataset {
 public:
  FileCacheDataset(std::string node, std::shared_ptr<const Dataset> input, std::string filename)
      : Dataset(std::move(node), input->dtypes(), input->shapes()),
        input_(std::move(input)),
        filename_(std::move(filename)) {}
  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    return std::make_unique<Iterator>(self<FileCacheDataset>());
  }

 private:
  // TensorFlow's key: the element's index padded to 7 places (a cache
  // holds fewer than kMaxElements), the component's to the places the
  // last component's index takes.
  static constexpr int64_t kMaxElements = 10000000;
  std::string Key(int64_t element, size_t component) const {
    const int places = absl::StrCat(dtypes().size() - 1).size();
    return absl::StrFormat("%7d_%*d", element, places, component);
  }

  class Iterator final : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const FileCacheDataset> d) : d_(std::move(d)) {}
    ~Iterator() override {
      if (writer_ != nullptr) env_->DeleteFile(Lockfile()).IgnoreError();  // temps go too
    }

    absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end) override {
      // Until it begins (a second writer's lockfile is in the way, say),
      // every call tries again.
      if (reader_ == nullptr && writer_ == nullptr && !written_) {
        MG_RETURN_IF_ERROR(Begin(ctx->env()));
      }
      if (reader_ != nullptr) return Read(out, end);
      if (written_) {
        *end = true;
        return absl::OkStatus();
      }
      if (next_ >= kMaxElements) {
        return absl::InvalidArgumentError(absl::StrCat(
            "dataset '", d_->node(), "': Upstream iterator is producing more than ",
            kMaxElements, " items, which is more than the cache limit."));
      }
      MG_RETURN_IF_ERROR(input_->GetNext(ctx, out, end));
      if (*end) {
        MG_RETURN_IF_ERROR(Named(writer_->Finish()));
        writer_.reset();
        input_.reset();
        written_ = true;
        return Named(env_->DeleteFile(Lockfile()));
      }
      for (size_t c = 0; c < out->size(); ++c) {
        MG_RETURN_IF_ERROR(Named(writer_->Add(d_->Key(next_, c), (*out)[c])));
      }
      ++next_;
      return absl::OkStatus();
    }

   private:
    std::string Lockfile() const { return absl::StrCat(d_->filename_, "_0.lockfile"); }
    absl::Status Named(const absl::Status& s) const {
      if (s.ok()) return s;
      return absl::Status(s.code(), absl::StrCat("dataset '", d_->node(), "' caching to '",
                                                 d_->filename_, "': ", s.message()));
    }

    // Reads the cache if it is complete; otherwise takes the lockfile and
    // starts writing one.
    absl::Status Begin(Env* env) {
      env_ = env;  // the lockfile's, from now on
      if (env->FileExists(absl::StrCat(d_->filename_, ".index")).ok()) {
        absl::StatusOr<std::unique_ptr<BundleReader>> r = BundleReader::Open(env, d_->filename_);
        if (!r.ok()) return Named(r.status());
        reader_ = *std::move(r);
        return absl::OkStatus();
      }
      const std::string lockfile = Lockfile();
      if (env->FileExists(lockfile).ok()) {
        absl::StatusOr<std::string> held = ReadFileToString(env, lockfile);
        return absl::AlreadyExistsError(absl::StrCat(
            "dataset '", d_->node(),
            "': There appears to be a concurrent caching iterator running - cache lockfile "
            "already exists ('",
            lockfile,
            "'). If you are sure no other running TF computations are using this cache "
            "prefix, delete the lockfile and re-initialize the iterator. Lockfile contents: ",
            held.ok() ? *held : std::string(held.status().message())));
      }
      absl::StatusOr<std::unique_ptr<BundleWriter>> w = BundleWriter::Create(env, d_->filename_);
      if (!w.ok()) return Named(w.status());
      MG_RETURN_IF_ERROR(Named(WriteStringToFile(
          env, lockfile, absl::StrCat("Created at: ", env->NowMicros() / 1000000))));
      writer_ = *std::move(w);
      input_ = d_->input_->MakeIterator();
      return absl::OkStatus();
    }

    absl::Status Read(Element* out, bool* end) {
      *end = !reader_->Contains(d_->Key(next_, 0));
      if (*end) return absl::OkStatus();
      out->clear();
      for (size_t c = 0; c < d_->dtypes().size(); ++c) {
        const std::string key = d_->Key(next_, c);
        absl::StatusOr<Tensor> t = reader_->Lookup(key);
        if (!t.ok()) return Named(t.status());
        if (t->dtype() != d_->dtypes()[c]) {
          return absl::InvalidArgumentError(absl::StrCat(
              "dataset '", d_->node(), "': the cache '", d_->filename_, "' holds ",
              DataTypeString(t->dtype()), " under key '", key, "', but the dataset's component ",
              c, " is ", DataTypeString(d_->dtypes()[c])));
        }
        out->push_back(*std::move(t));
      }
      ++next_;
      return absl::OkStatus();
    }

    const std::shared_ptr<const FileCacheDataset> d_;
    Env* env_ = nullptr;  // the first reader's step's
    std::unique_ptr<BundleReader> reader_;
    std::unique_ptr<BundleWriter> writer_;
    std::unique_ptr<DatasetIterator> input_;
    int64_t next_ = 0;  // the element read or written next
    bool written_ = false;  // this iterator wrote the whole cache
  };

  const std::shared_ptr<const Dataset> input_;
  const std::string filename_;
};

class CacheDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  absl::StatusOr<std::shared_ptr<const Dataset>> MakeDataset(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> input, InputDataset(ctx, 0, true));
    const Tensor& filename = ctx->input(1);
    if (filename.dtype() != DT_STRING || filename.dims() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": filename must be a string scalar, got ",
                       DataTypeString(filename.dtype()), " ", filename.shape().DebugString()));
    }
    if (!filename.data<std::string>()->empty()) {
      return std::shared_ptr<const Dataset>(std::make_shared<FileCacheDataset>(
          name(), std::move(input), *filename.data<std::string>()));
    }
    return std::shared_ptr<const Dataset>(std::make_shared<CacheDataset>(name(), std::move(input)));
  }
};

}  // namespace

void RegisterDatasetComposeKernels(KernelRegistry* r) {
  r->Register("FilterDataset", MakeFactory<FilterDatasetOp>());
  r->Register("FlatMapDataset", MakeFactory<InterleaveDatasetOp>());
  r->Register("InterleaveDataset", MakeFactory<InterleaveDatasetOp>());
  for (const char* op : {"ParallelInterleaveDataset", "LegacyParallelInterleaveDatasetV2",
                         "ParallelInterleaveDatasetV2", "ParallelInterleaveDatasetV3",
                         "ParallelInterleaveDatasetV4"}) {
    r->Register(op, MakeFactory<InterleaveDatasetOp>());
  }
  r->Register("ZipDataset", MakeFactory<ZipOrConcatenateDatasetOp>());
  r->Register("ConcatenateDataset", MakeFactory<ZipOrConcatenateDatasetOp>());
  r->Register("CacheDataset", MakeFactory<CacheDatasetOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
