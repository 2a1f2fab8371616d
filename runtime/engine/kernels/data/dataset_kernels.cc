// tf.data on the CPU: the transformations of one dataset (shuffle, map,
// repeat, take, skip, batch, padded batch, prefetch, and TensorFlow's fused
// shuffle-and-repeat and map-and-batch) and the iterators. What every
// dataset kernel shares is in internal/dataset.h; the sources are in
// dataset_source_kernels.cc, the datasets made of several datasets or of a
// function's datasets in dataset_compose_kernels.cc. A map function reads
// and writes the session's state, and its errors name the function. It runs
// in the reader's step, except under a prefetch or with num_parallel_calls:
// there the iterator's own threads run the pipeline below, ahead of the
// reader, overlapping it with training as TensorFlow's do.
#include <algorithm>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "core/allocator.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/dataset.h"
#include "runtime/engine/kernels/internal/function_runner.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/philox_random.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/resource_mgr.h"
#include "runtime/graph/node_def_util.h"
#include "runtime/graph/partial_shape.h"

namespace minigraph {
namespace kernels_internal {
namespace {

using data::CheckElement;
using data::CheckGathered;
using data::CheckStep;
using data::Dataset;
using data::DatasetIn;
using data::DatasetIterator;
using data::DatasetOpKernel;
using data::Element;
using data::ElementBytes;
using data::ElementSpec;
using data::ShapesString;
using data::TypesString;

// ---- Transformations -------------------------------------------------------

// Elements drawn at random from a buffer of the next `buffer_size` elements
// of the input, in TensorFlow's order: the iterator's Philox generator made
// from (seed, seed2) gives one uint32 per element, which picks
// (Random() % the buffer's size) among the buffered elements in the order
// they came; the oldest takes the chosen one's place. Seeds (0, 0) mean a
// random order each run; with reshuffle_each_iteration each iterator draws
// its seeds from a generator of the dataset's, as TensorFlow's
// RandomSeedGenerator does.
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
    if (!reshuffle_) return std::make_unique<Iterator>(self<ShuffleDataset>(), seed_, seed2_);
    absl::MutexLock l(&mu_);
    const uint64_t seed = reshuffle_samples_();
    const uint64_t seed2 = reshuffle_samples_();
    return std::make_unique<Iterator>(self<ShuffleDataset>(), seed, seed2);
  }

 private:
  class Iterator final : public DatasetIterator {
   public:
    Iterator(std::shared_ptr<const ShuffleDataset> d, uint64_t seed, uint64_t seed2)
        : d_(std::move(d)),
          input_(d_->input_->MakeIterator()),
          gen_(PhiloxRandom::FromSeedPair(seed, seed2)),
          samples_(&gen_) {}
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
      const size_t i = samples_() % buffer_.size();
      *out = std::move(buffer_[i]);
      bytes_ -= ElementBytes(*out);
      if (i != 0) buffer_[i] = std::move(buffer_.front());
      buffer_.pop_front();
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const ShuffleDataset> d_;
    std::unique_ptr<DatasetIterator> input_;
    std::deque<Element> buffer_;  // in the order the elements came
    size_t bytes_ = 0;            // what buffer_ holds
    bool input_end_ = false;
    PhiloxRandom gen_;
    PhiloxSamples samples_;
  };

  const std::shared_ptr<const Dataset> input_;
  const int64_t buffer_size_;
  const uint64_t seed_, seed2_;
  const bool reshuffle_;
  mutable absl::Mutex mu_;
  mutable PhiloxRandom reshuffle_gen_ ABSL_GUARDED_BY(mu_) =
      PhiloxRandom::FromSeedPair(seed_, seed2_);
  mutable PhiloxSamples reshuffle_samples_ ABSL_GUARDED_BY(mu_){&reshuffle_gen_};
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

// The `deterministic` attr: "true", "false", or "default" (TensorFlow's
// default, deterministic unless the dataset's options say otherwise).
absl::StatusOr<bool> Deterministic(const std::string& value, const std::string& node) {
  if (value == "true" || value == "default") return true;
  if (value == "false") return false;
  return absl::InvalidArgumentError(absl::StrCat(
      "node '", node, "': deterministic must be \"true\", \"false\" or \"default\", got \"",
      value, "\""));
}

// num_parallel_calls: at least 1, or -1 (tf.data.AUTOTUNE).
// The values a map function captures (inputs 1 to `captured_end` - 1),
// after checking that with an element of `input` they are f's arguments.
absl::StatusOr<Element> CapturedArguments(const OpKernelContext* ctx, const Dataset& input,
                                          const FunctionRunner& f, int captured_end,
                                          const std::string& where) {
  const size_t arity = f.function().arg_types.size();
  const size_t given = input.dtypes().size() + (captured_end - 1);
  if (arity != given) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": map function '", f.function().name, "' takes ", arity,
                     " arguments; the input's elements have ", input.dtypes().size(),
                     " components and ", captured_end - 1, " values are captured"));
  }
  Element captured;
  for (int i = 1; i < captured_end; ++i) captured.push_back(ctx->input(i));
  return captured;
}

// f(element..., captured...) for each element of the input. With
// num_parallel_calls (`calls` > 0, or kAutotune), that many calls run at
// once on the iterator's own threads, ahead of the reader: each thread
// takes the next input element (in order) and maps it; the reader gets the
// results in the input's order, or with `deterministic` false the first
// one finished, as TensorFlow's ParallelMapDataset does.
class MapDataset final : public Dataset {
 public:
  MapDataset(std::string node, std::vector<DataType> dtypes, std::vector<PartialShape> shapes,
             std::shared_ptr<const Dataset> input, std::shared_ptr<const FunctionRunner> f,
             Element captured, int64_t calls = 0, bool deterministic = true)
      : Dataset(std::move(node), std::move(dtypes), std::move(shapes)),
        input_(std::move(input)),
        f_(std::move(f)),
        captured_(std::move(captured)),
        calls_(calls),
        deterministic_(deterministic) {}
  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    if (calls_ != 0) return std::make_unique<ParallelIterator>(self<MapDataset>());
    return std::make_unique<Iterator>(self<MapDataset>());
  }

 private:
  absl::Status Map(OpKernelContext* ctx, Element args, Element* out) const {
    args.insert(args.end(), captured_.begin(), captured_.end());
    out->clear();
    return f_->Run(ctx, std::move(args), out);
  }
  absl::Status Check(const Element& out) const {
    return CheckElement(out, dtypes(), shapes(),
                        absl::StrCat("map function '", f_->function().name, "' of dataset '",
                                     node(), "'"));
  }

  class Iterator final : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const MapDataset> d)
        : d_(std::move(d)), input_(d_->input_->MakeIterator()) {}
    absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end) override {
      Element args;
      MG_RETURN_IF_ERROR(input_->GetNext(ctx, &args, end));
      if (*end) return absl::OkStatus();
      MG_RETURN_IF_ERROR(d_->Map(ctx, std::move(args), out));
      return d_->Check(*out);
    }

   private:
    const std::shared_ptr<const MapDataset> d_;
    std::unique_ptr<DatasetIterator> input_;
  };

  class ParallelIterator final : public DatasetIterator {
   public:
    explicit ParallelIterator(std::shared_ptr<const MapDataset> d)
        : d_(std::move(d)),
          input_(d_->input_->MakeIterator()),
          threads_(data::ParallelThreads(d_->calls_)) {}
    ~ParallelIterator() override {
      {
        absl::MutexLock l(&mu_);
        stop_ = true;
      }
      work_.reset();  // joins the threads before input_ goes
    }

    absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end) override {
      if (work_ == nullptr) {
        work_ = std::make_unique<data::BackgroundWork>(*ctx);
        for (int64_t i = 0; i < threads_; ++i) {
          work_->Start([this](OpKernelContext* bg) { Work(bg); });
        }
      }
      absl::MutexLock l(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        if (slots_.empty()) return input_end_;
        if (slots_.front()->done) return true;
        return !d_->deterministic_ && done_ > 0;
      };
      MG_RETURN_IF_ERROR(data::AwaitInStep(ctx, d_->node(), &mu_, absl::Condition(&ready)));
      *end = slots_.empty();
      if (*end) return absl::OkStatus();
      auto it = slots_.begin();
      while (!(*it)->done) ++it;
      std::shared_ptr<Slot> slot = std::move(*it);
      slots_.erase(it);
      --done_;
      if (!slot->status.ok()) return slot->status;
      *out = std::move(slot->element);
      return d_->Check(*out);
    }

   private:
    struct Slot {
      bool done = false;
      absl::Status status;
      Element element;
    };

    // One thread: the next input element, mapped, until the input ends or
    // the iterator goes. Up to twice as many results as threads are kept
    // (being made, or made and not read yet), so that one slow element does
    // not leave the other threads idle behind it.
    void Work(OpKernelContext* ctx) {
      for (;;) {
        auto slot = std::make_shared<Slot>();
        Element args;
        {
          absl::MutexLock in(&input_mu_);  // one reader of the input, in order
          {
            absl::MutexLock l(&mu_);
            auto room = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
              return stop_ || input_end_ ||
                     static_cast<int64_t>(slots_.size()) < 2 * threads_;
            };
            mu_.Await(absl::Condition(&room));
            if (stop_ || input_end_) return;
          }
          bool end = false;
          slot->status = input_->GetNext(ctx, &args, &end);
          if (ctx->cancelled()) return;
          absl::MutexLock l(&mu_);
          if (slot->status.ok() && end) {
            input_end_ = true;
            return;
          }
          slots_.push_back(slot);
        }
        if (slot->status.ok()) slot->status = d_->Map(ctx, std::move(args), &slot->element);
        if (ctx->cancelled()) return;
        absl::MutexLock l(&mu_);
        slot->done = true;
        ++done_;
      }
    }

    const std::shared_ptr<const MapDataset> d_;
    absl::Mutex input_mu_;
    const std::unique_ptr<DatasetIterator> input_ ABSL_PT_GUARDED_BY(input_mu_);
    const int64_t threads_;
    absl::Mutex mu_ ABSL_ACQUIRED_AFTER(input_mu_);
    std::deque<std::shared_ptr<Slot>> slots_ ABSL_GUARDED_BY(mu_);  // in input order
    int64_t done_ ABSL_GUARDED_BY(mu_) = 0;  // slots finished and not read
    bool input_end_ ABSL_GUARDED_BY(mu_) = false;
    bool stop_ ABSL_GUARDED_BY(mu_) = false;
    std::unique_ptr<data::BackgroundWork> work_;  // the reader's; made on its first GetNext
  };

  const std::shared_ptr<const Dataset> input_;
  const std::shared_ptr<const FunctionRunner> f_;
  const Element captured_;
  const int64_t calls_;  // 0: in the reader's step
  const bool deterministic_;
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
    const auto& attr = c->def().attr();
    if (auto it = attr.find("sloppy"); it != attr.end()) deterministic_ = !it->second.b();
    if (auto it = attr.find("deterministic"); it != attr.end()) {
      MG_ASSIGN_OR_RETURN(deterministic_, Deterministic(it->second.s(), c->def().name()));
    }
    return absl::OkStatus();
  }

 protected:
  absl::StatusOr<std::shared_ptr<const Dataset>> MakeDataset(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> input, InputDataset(ctx, 0, false));
    const int captured_end = parallel_ ? ctx->num_inputs() - 1 : ctx->num_inputs();
    int64_t calls = 0;
    if (parallel_) {
      MG_ASSIGN_OR_RETURN(calls, ScalarInput(ctx, captured_end, "num_parallel_calls"));
      MG_RETURN_IF_ERROR(data::CheckParallelCalls(calls, Where()));
    }
    MG_ASSIGN_OR_RETURN(Element captured,
                        CapturedArguments(ctx, *input, *f_, captured_end, Where()));
    return std::shared_ptr<const Dataset>(
        std::make_shared<MapDataset>(name(), dtypes_, shapes_, std::move(input), f_,
                                     std::move(captured), calls, deterministic_));
  }

 private:
  std::shared_ptr<const FunctionRunner> f_;
  bool parallel_ = false;
  bool deterministic_ = true;
};

// RepeatDataset (the input `count` times; forever when negative), TakeDataset
// (its first `count` elements; all when negative), SkipDataset (all but the
// first `count`; none when negative). (The kernels of ModelDataset and
// OptimizeDataset(V2) output their input dataset itself, PrefetchDataset's
// a PrefetchDataset.)
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

// The input's elements, made on a thread of the iterator's own up to
// `buffer_size` ahead of the reader (MakePrefetchIterator).
class PrefetchDataset final : public Dataset {
 public:
  PrefetchDataset(std::string node, std::shared_ptr<const Dataset> input, int64_t buffer_size)
      : Dataset(std::move(node), input->dtypes(), input->shapes()),
        input_(std::move(input)),
        buffer_size_(buffer_size) {}
  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    return data::MakePrefetchIterator(input_->MakeIterator(), buffer_size_, node());
  }

 private:
  const std::shared_ptr<const Dataset> input_;
  const int64_t buffer_size_;
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
    passthrough_ = op == "ModelDataset" || op == "OptionsDataset" ||
                   absl::StartsWith(op, "OptimizeDataset");
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
      // A buffer of none: the reader makes each element, as in TensorFlow.
      if (count == 0) return input;
      return std::shared_ptr<const Dataset>(
          std::make_shared<PrefetchDataset>(name(), std::move(input), count));
    }
    return std::shared_ptr<const Dataset>(
        std::make_shared<CountDataset>(name(), std::move(input), kind_, count));
  }

 private:
  CountDataset::Kind kind_ = CountDataset::kRepeat;
  bool prefetch_ = false;
  bool passthrough_ = false;  // ModelDataset, OptimizeDataset(V2)
};

// The next up to `batch_size` elements of `input` into `rows` (none once
// `*input_end`); `*end` when there is no batch to make of them (none, or
// fewer than batch_size with drop_remainder).
absl::Status GatherRows(OpKernelContext* ctx, DatasetIterator* input, int64_t batch_size,
                        bool drop_remainder, const std::string& node, bool* input_end,
                        std::vector<Element>* rows, bool* end) {
  size_t bytes = 0;
  while (!*input_end && static_cast<int64_t>(rows->size()) < batch_size) {
    MG_RETURN_IF_ERROR(CheckStep(ctx, node));
    Element e;
    MG_RETURN_IF_ERROR(input->GetNext(ctx, &e, input_end));
    if (*input_end) break;
    bytes += ElementBytes(e);
    MG_RETURN_IF_ERROR(CheckGathered(bytes, node, "batch"));
    rows->push_back(std::move(e));
  }
  *end = rows->empty() || (drop_remainder && static_cast<int64_t>(rows->size()) < batch_size);
  return absl::OkStatus();
}

// Consecutive elements stacked into batches of `batch_size` (the last one
// smaller, unless drop_remainder). With parallel_copy the rows are copied
// into the batch on the intra-op threads.
class BatchDataset final : public Dataset {
 public:
  BatchDataset(std::string node, std::vector<PartialShape> shapes,
               std::shared_ptr<const Dataset> input, int64_t batch_size, bool drop_remainder,
               bool parallel_copy = false)
      : Dataset(std::move(node), input->dtypes(), std::move(shapes)),
        input_(std::move(input)),
        batch_size_(batch_size),
        drop_remainder_(drop_remainder),
        parallel_copy_(parallel_copy) {}
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
      MG_RETURN_IF_ERROR(GatherRows(ctx, input_.get(), d_->batch_size_, d_->drop_remainder_,
                                    d_->node(), &input_end_, &rows, end));
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
        }
        auto copy = [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) CopyElements(rows[r][c], 0, &batch, r * n, n);
        };
        const int64_t bytes = first.TotalBytes();
        if (d_->parallel_copy_) {
          ctx->ParallelFor(static_cast<int64_t>(rows.size()), bytes, bytes, 0, copy);
        } else {
          copy(0, static_cast<int64_t>(rows.size()));
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
  const bool parallel_copy_;
};

// BatchDataset, BatchDatasetV2 and ParallelBatchDataset: the last makes
// its batches on a thread of the iterator's own, up to num_parallel_calls
// of them ahead of the reader (a prefetch of the batches).
class BatchDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(DatasetOpKernel::Init(c));
    const auto& attr = c->def().attr();
    if (auto it = attr.find("parallel_copy"); it != attr.end()) parallel_copy_ = it->second.b();
    parallel_ = c->def().op() == "ParallelBatchDataset";
    return absl::OkStatus();
  }

 protected:
  absl::StatusOr<std::shared_ptr<const Dataset>> MakeDataset(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> input, InputDataset(ctx, 0, true));
    MG_ASSIGN_OR_RETURN(int64_t batch_size, ScalarInput(ctx, 1, "batch_size"));
    if (batch_size <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": batch_size must be greater than zero, got ", batch_size));
    }
    int64_t calls = 0;
    if (parallel_) {
      MG_ASSIGN_OR_RETURN(calls, ScalarInput(ctx, 2, "num_parallel_calls"));
      MG_RETURN_IF_ERROR(data::CheckParallelCalls(calls, Where()));
    }
    bool drop_remainder = false;
    const int drop_at = parallel_ ? 3 : 2;
    if (ctx->num_inputs() > drop_at) {
      const Tensor& t = ctx->input(drop_at);
      if (t.dims() != 0 || t.dtype() != DT_BOOL) {
        return absl::InvalidArgumentError(
            absl::StrCat(Where(), ": drop_remainder must be a bool scalar"));
      }
      drop_remainder = *t.data<bool>();
    }
    auto batched = std::make_shared<BatchDataset>(name(), shapes_, std::move(input), batch_size,
                                                  drop_remainder, parallel_copy_);
    if (!parallel_) return std::shared_ptr<const Dataset>(std::move(batched));
    return std::shared_ptr<const Dataset>(
        std::make_shared<PrefetchDataset>(name(), std::move(batched), calls));
  }

 private:
  bool parallel_copy_ = false;
  bool parallel_ = false;
};

// Consecutive elements gathered into batches, each component padded to
// `padded_shapes[c]` (a -1 dimension: the longest in the batch) with
// `padding_values[c]` (PaddedBatchDataset, PaddedBatchDatasetV2).
class PaddedBatchDataset final : public Dataset {
 public:
  PaddedBatchDataset(std::string node, std::vector<PartialShape> shapes,
                     std::shared_ptr<const Dataset> input, int64_t batch_size,
                     std::vector<PartialShape> padded_shapes, Element padding_values,
                     bool drop_remainder)
      : Dataset(std::move(node), input->dtypes(), std::move(shapes)),
        input_(std::move(input)),
        batch_size_(batch_size),
        padded_shapes_(std::move(padded_shapes)),
        padding_values_(std::move(padding_values)),
        drop_remainder_(drop_remainder) {}
  std::unique_ptr<DatasetIterator> MakeIterator() const override {
    return std::make_unique<Iterator>(self<PaddedBatchDataset>());
  }

 private:
  class Iterator final : public DatasetIterator {
   public:
    explicit Iterator(std::shared_ptr<const PaddedBatchDataset> d)
        : d_(std::move(d)), input_(d_->input_->MakeIterator()) {}
    absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end) override {
      std::vector<Element> rows;
      MG_RETURN_IF_ERROR(GatherRows(ctx, input_.get(), d_->batch_size_, d_->drop_remainder_,
                                    d_->node(), &input_end_, &rows, end));
      if (*end) return absl::OkStatus();
      out->clear();
      for (size_t c = 0; c < d_->padded_shapes_.size(); ++c) {
        MG_ASSIGN_OR_RETURN(Tensor batch, Component(rows, c));
        out->push_back(std::move(batch));
      }
      return absl::OkStatus();
    }

   private:
    absl::StatusOr<Tensor> Component(const std::vector<Element>& rows, size_t c) const {
      const PartialShape& padded = d_->padded_shapes_[c];
      // The padded shape: the declared dimensions, the longest for -1.
      std::vector<int64_t> dims = padded.dims();
      for (size_t r = 0; r < rows.size(); ++r) {
        const Tensor& t = rows[r][c];
        if (t.dims() != padded.rank()) {
          return absl::InvalidArgumentError(
              absl::StrCat("dataset '", d_->node(), "': component ", c, " of element ", r,
                           " has shape ", t.shape().DebugString(),
                           ", of another rank than its padded shape ", padded.DebugString()));
        }
        for (int i = 0; i < t.dims(); ++i) {
          if (padded.dim(i) == -1) {
            dims[i] = std::max(dims[i], t.shape().dim_size(i));
          } else if (t.shape().dim_size(i) > padded.dim(i)) {
            // TensorFlow's message, with what it is about.
            return absl::InvalidArgumentError(
                absl::StrCat("dataset '", d_->node(),
                             "': Attempted to pad to a smaller size than the input "
                             "element: component ",
                             c, " of element ", r, " has shape ", t.shape().DebugString(),
                             ", padded shape ", padded.DebugString()));
          }
        }
      }
      for (int64_t& d : dims) d = std::max<int64_t>(d, 0);
      TensorShape shape;
      MG_RETURN_IF_ERROR(shape.AddDim(static_cast<int64_t>(rows.size())));
      for (int64_t d : dims) MG_RETURN_IF_ERROR(shape.AddDim(d));
      const Tensor& pad = d_->padding_values_[c];
      MG_ASSIGN_OR_RETURN(Tensor batch, Tensor::Create(pad.dtype(), shape));
      // The padding everywhere (doubling copies), then each element's rows.
      const int64_t total = batch.NumElements();
      if (total > 0) CopyElements(pad, 0, &batch, 0, 1);
      for (int64_t done = 1; done < total; done *= 2) {
        CopyElements(batch, 0, &batch, done, std::min(done, total - done));
      }
      const int64_t slot = TensorShape(dims).num_elements();
      for (size_t r = 0; r < rows.size(); ++r) {
        const Tensor& t = rows[r][c];
        if (t.dtype() != pad.dtype()) {
          return absl::InvalidArgumentError(
              absl::StrCat("dataset '", d_->node(), "': component ", c, " of element ", r, " is ",
                           DataTypeString(t.dtype()), " but its padding value is ",
                           DataTypeString(pad.dtype())));
        }
        const int64_t n = t.NumElements();
        if (n == 0) continue;
        const int rank = t.dims();
        if (rank == 0) {
          CopyElements(t, 0, &batch, static_cast<int64_t>(r) * slot, 1);
          continue;
        }
        // Rows of the innermost dimension, at their padded offsets.
        const int64_t row = t.shape().dim_size(rank - 1);
        std::vector<int64_t> index(rank - 1, 0);
        for (int64_t src = 0; src < n; src += row) {
          int64_t dst = 0;
          for (int i = 0; i < rank - 1; ++i) dst = dst * dims[i] + index[i];
          dst = dst * dims[rank - 1];
          CopyElements(t, src, &batch, static_cast<int64_t>(r) * slot + dst, row);
          for (int i = rank - 2; i >= 0; --i) {
            if (++index[i] < t.shape().dim_size(i)) break;
            index[i] = 0;
          }
        }
      }
      return batch;
    }

    const std::shared_ptr<const PaddedBatchDataset> d_;
    std::unique_ptr<DatasetIterator> input_;
    bool input_end_ = false;
  };

  const std::shared_ptr<const Dataset> input_;
  const int64_t batch_size_;
  const std::vector<PartialShape> padded_shapes_;
  const Element padding_values_;
  const bool drop_remainder_;
};

class PaddedBatchDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(data::ElementSpec(c, "Toutput_types", &dtypes_, &shapes_));
    return c->GetAttr("N", &n_);
  }

 protected:
  absl::StatusOr<std::shared_ptr<const Dataset>> MakeDataset(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> input, InputDataset(ctx, 0, false));
    MG_ASSIGN_OR_RETURN(int64_t batch_size, ScalarInput(ctx, 1, "batch_size"));
    if (batch_size <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": batch_size must be greater than zero, got ", batch_size));
    }
    if (static_cast<size_t>(n_) != input->dtypes().size()) {
      return absl::InvalidArgumentError(absl::StrCat(Where(), ": ", n_,
                                                     " padded shapes for elements of ",
                                                     input->dtypes().size(), " components"));
    }
    std::vector<PartialShape> padded;
    Element values;
    for (int c = 0; c < n_; ++c) {
      MG_ASSIGN_OR_RETURN(
          std::vector<int64_t> dims,
          IntsFromTensor(ctx->input(2 + c), absl::StrCat(Where(), " padded_shapes")));
      for (int64_t d : dims) {
        if (d < -1) {
          return absl::InvalidArgumentError(absl::StrCat(
              Where(), ": padded shape ", c, " has dimension ", d, "; -1 means the longest"));
        }
      }
      padded.emplace_back(std::move(dims));
      const Tensor& value = ctx->input(2 + n_ + c);
      if (value.dims() != 0) {
        return absl::InvalidArgumentError(absl::StrCat(Where(), ": padding value ", c,
                                                       " must be a scalar, got shape ",
                                                       value.shape().DebugString()));
      }
      if (value.dtype() != input->dtypes()[c]) {
        return absl::InvalidArgumentError(
            absl::StrCat(Where(), ": padding value ", c, " is ", DataTypeString(value.dtype()),
                         " but the input's component is ", DataTypeString(input->dtypes()[c])));
      }
      values.push_back(value);
    }
    bool drop_remainder = false;
    if (ctx->num_inputs() > 2 + 2 * n_) {
      const Tensor& t = ctx->input(2 + 2 * n_);
      if (t.dims() != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(Where(), ": drop_remainder must be a scalar"));
      }
      drop_remainder = *t.data<bool>();
    }
    return std::shared_ptr<const Dataset>(
        std::make_shared<PaddedBatchDataset>(name(), shapes_, std::move(input), batch_size,
                                             std::move(padded), std::move(values), drop_remainder));
  }

 private:
  int64_t n_ = 0;
};

// dataset.shuffle(buffer_size, seed, reshuffle_each_iteration).repeat(count),
// which is what TensorFlow's ShuffleAndRepeatDataset gives (checked against
// TensorFlow 2.21: each epoch a new iterator, reshuffled by the seeds'
// generator).
class ShuffleAndRepeatDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(DatasetOpKernel::Init(c));
    if (c->def().attr().count("reshuffle_each_iteration") > 0) {
      MG_RETURN_IF_ERROR(c->GetAttr("reshuffle_each_iteration", &reshuffle_));
    }
    return absl::OkStatus();
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
    MG_ASSIGN_OR_RETURN(int64_t count, ScalarInput(ctx, 4, "count"));
    if (seed == 0 && seed2 == 0) {
      std::random_device rd;
      seed = (static_cast<int64_t>(rd()) << 32) | rd();
      seed2 = (static_cast<int64_t>(rd()) << 32) | rd();
    }
    auto shuffled = std::make_shared<ShuffleDataset>(name(), std::move(input), buffer_size, seed,
                                                     seed2, reshuffle_);
    return std::shared_ptr<const Dataset>(
        std::make_shared<CountDataset>(name(), std::move(shuffled), CountDataset::kRepeat, count));
  }

 private:
  bool reshuffle_ = true;
};

// dataset.map(f).batch(batch_size, drop_remainder), which is what TensorFlow's
// MapAndBatchDataset (tf.contrib.data.map_and_batch, and tf.data's own
// map-and-batch fusion) computes; num_parallel_calls is checked and, as
// for ParallelMapDataset, the calls run one after another.
class MapAndBatchDatasetOp final : public DatasetOpKernel {
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
    // The map function's elements are the batches' rows.
    for (const PartialShape& s : shapes_) {
      if (!s.rank_known() || s.rank() == 0) {
        row_shapes_.push_back(PartialShape());
      } else {
        row_shapes_.emplace_back(std::vector<int64_t>(s.dims().begin() + 1, s.dims().end()));
      }
    }
    return absl::OkStatus();
  }

 protected:
  absl::StatusOr<std::shared_ptr<const Dataset>> MakeDataset(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> input, InputDataset(ctx, 0, false));
    // other_arguments..., batch_size, num_parallel_calls, drop_remainder.
    const int captured_end = ctx->num_inputs() - 3;
    MG_ASSIGN_OR_RETURN(int64_t batch_size, ScalarInput(ctx, captured_end, "batch_size"));
    if (batch_size <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": batch_size must be greater than zero, got ", batch_size));
    }
    MG_ASSIGN_OR_RETURN(int64_t calls, ScalarInput(ctx, captured_end + 1, "num_parallel_calls"));
    MG_RETURN_IF_ERROR(data::CheckParallelCalls(calls, Where()));
    const Tensor& drop = ctx->input(captured_end + 2);
    if (drop.dims() != 0 || drop.dtype() != DT_BOOL) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": drop_remainder must be a bool scalar"));
    }
    MG_ASSIGN_OR_RETURN(Element captured,
                        CapturedArguments(ctx, *input, *f_, captured_end, Where()));
    auto mapped = std::make_shared<MapDataset>(name(), dtypes_, row_shapes_, std::move(input), f_,
                                               std::move(captured), calls);
    return std::shared_ptr<const Dataset>(std::make_shared<BatchDataset>(
        name(), shapes_, std::move(mapped), batch_size, *drop.data<bool>()));
  }

 private:
  std::shared_ptr<const FunctionRunner> f_;
  std::vector<PartialShape> row_shapes_;
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
    if (data::InsidePipelineOf(this)) {
      return absl::InvalidArgumentError(
          absl::StrCat("iterator '", iterator,
                       "' is read from inside its own pipeline (a map function reads "
                       "the iterator that is calling it)"));
    }
    absl::MutexLock l(&mu_);
    data::ScopedPipeline inside(this);
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
  r->Register("ShuffleDataset", MakeFactory<ShuffleDatasetOp>());
  r->Register("MapDataset", MakeFactory<MapDatasetOp>());
  r->Register("ParallelMapDataset", MakeFactory<MapDatasetOp>());
  r->Register("ParallelMapDatasetV2", MakeFactory<MapDatasetOp>());
  r->Register("RepeatDataset", MakeFactory<CountDatasetOp>());
  r->Register("TakeDataset", MakeFactory<CountDatasetOp>());
  r->Register("SkipDataset", MakeFactory<CountDatasetOp>());
  r->Register("PrefetchDataset", MakeFactory<CountDatasetOp>());
  r->Register("ModelDataset", MakeFactory<CountDatasetOp>());
  r->Register("OptionsDataset", MakeFactory<CountDatasetOp>());
  r->Register("OptimizeDataset", MakeFactory<CountDatasetOp>());
  r->Register("OptimizeDatasetV2", MakeFactory<CountDatasetOp>());
  r->Register("OneShotIterator", MakeFactory<OneShotIteratorOp>());
  r->Register("BatchDataset", MakeFactory<BatchDatasetOp>());
  r->Register("BatchDatasetV2", MakeFactory<BatchDatasetOp>());
  r->Register("ParallelBatchDataset", MakeFactory<BatchDatasetOp>());
  r->Register("PaddedBatchDataset", MakeFactory<PaddedBatchDatasetOp>());
  r->Register("PaddedBatchDatasetV2", MakeFactory<PaddedBatchDatasetOp>());
  r->Register("ShuffleAndRepeatDataset", MakeFactory<ShuffleAndRepeatDatasetOp>());
  r->Register("MapAndBatchDataset", MakeFactory<MapAndBatchDatasetOp>());
  r->Register("Iterator", MakeFactory<IteratorOp>());
  r->Register("IteratorV2", MakeFactory<IteratorOp>());
  r->Register("MakeIterator", MakeFactory<MakeIteratorOp>());
  r->Register("IteratorGetNext", MakeFactory<IteratorGetNextOp>());
  r->Register("IteratorToStringHandle", MakeFactory<IteratorToStringHandleOp>());
  r->Register("IteratorFromStringHandle", MakeFactory<IteratorFromStringHandleOp>());
  r->Register("IteratorFromStringHandleV2", MakeFactory<IteratorFromStringHandleOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
