// tf.data transformations that combine datasets or make them from a
// function: FilterDataset, FlatMapDataset, InterleaveDataset, ZipDataset,
// ConcatenateDataset and CacheDataset (in memory), with TensorFlow's
// element orders. Like the rest of tf.data here (dataset_kernels.cc), they
// make elements inside the step that asks for them.
#include <algorithm>
#include <memory>
#include <string>
#include <thread>  // NOLINT(build/c++11): std::thread::hardware_concurrency
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/dataset.h"
#include "runtime/engine/kernels/internal/function_runner.h"
#include "runtime/engine/kernels/standard_kernels.h"

namespace minigraph {
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
// (InterleaveDataset, as TensorFlow orders them).
class InterleaveDataset final : public Dataset {
 public:
  InterleaveDataset(std::string node, std::vector<DataType> dtypes,
                    std::vector<PartialShape> shapes, std::shared_ptr<const Dataset> input,
                    std::shared_ptr<const FunctionRunner> f, Element captured, int64_t cycle_length,
                    int64_t block_length)
      : Dataset(std::move(node), std::move(dtypes), std::move(shapes)),
        input_(std::move(input)),
        f_(std::move(f)),
        captured_(std::move(captured)),
        cycle_length_(cycle_length),
        block_length_(block_length) {}
  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    return std::make_unique<Iterator>(self<InterleaveDataset>());
  }

 private:
  class Iterator final : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const InterleaveDataset> d)
        : d_(std::move(d)), input_(d_->input_->MakeIterator()), cycle_(d_->cycle_length_) {}
    absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end) override {
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
          Element args;
          MG_RETURN_IF_ERROR(input_->GetNext(ctx, &args, &end_of_input_));
          if (!end_of_input_) {
            MG_ASSIGN_OR_RETURN(
                std::shared_ptr<const Dataset> made,
                DatasetOfElement(ctx, *d_->f_, std::move(args), d_->captured_, d_->node()));
            current = made->MakeIterator();
            ++open_;
          }
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

    const std::shared_ptr<const InterleaveDataset> d_;
    std::unique_ptr<DatasetIterator> input_;
    std::vector<std::unique_ptr<DatasetIterator>> cycle_;
    size_t index_ = 0;
    int64_t block_ = 0;
    int64_t open_ = 0;
    bool end_of_input_ = false;
  };

  const std::shared_ptr<const Dataset> input_;
  const std::shared_ptr<const FunctionRunner> f_;
  const Element captured_;
  const int64_t cycle_length_;
  const int64_t block_length_;
};

class InterleaveDatasetOp final : public FunctionDatasetOp {
 public:
  using FunctionDatasetOp::FunctionDatasetOp;
  absl::Status Init(OpKernelConstruction* c) {
    interleave_ = c->def().op() == "InterleaveDataset";
    return InitFunction(c, "f");
  }

 protected:
  absl::StatusOr<std::shared_ptr<const Dataset>> MakeDataset(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> input, InputDataset(ctx, 0, false));
    MG_ASSIGN_OR_RETURN(Element captured, Captured(ctx, *input, "function"));
    int64_t cycle_length = 1, block_length = 1;
    if (interleave_) {
      const int at = 1 + captured_types_.size();
      MG_ASSIGN_OR_RETURN(cycle_length, ScalarInput(ctx, at, "cycle_length"));
      MG_ASSIGN_OR_RETURN(block_length, ScalarInput(ctx, at + 1, "block_length"));
      // -1 is tf.data.AUTOTUNE: as many as the machine has cores, as in
      // TensorFlow.
      if (cycle_length == -1) {
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
    }
    return std::shared_ptr<const Dataset>(
        std::make_shared<InterleaveDataset>(name(), dtypes_, shapes_, std::move(input), f_,
                                            std::move(captured), cycle_length, block_length));
  }

 private:
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
      return absl::UnimplementedError(
          absl::StrCat(Where(), ": caching to a file ('", *filename.data<std::string>(),
                       "') is not supported; an empty filename caches in memory"));
    }
    return std::shared_ptr<const Dataset>(std::make_shared<CacheDataset>(name(), std::move(input)));
  }
};

}  // namespace

void RegisterDatasetComposeKernels(KernelRegistry* r) {
  r->Register("FilterDataset", MakeFactory<FilterDatasetOp>());
  r->Register("FlatMapDataset", MakeFactory<InterleaveDatasetOp>());
  r->Register("InterleaveDataset", MakeFactory<InterleaveDatasetOp>());
  r->Register("ZipDataset", MakeFactory<ZipOrConcatenateDatasetOp>());
  r->Register("ConcatenateDataset", MakeFactory<ZipOrConcatenateDatasetOp>());
  r->Register("CacheDataset", MakeFactory<CacheDatasetOp>());
}

}  // namespace minigraph
