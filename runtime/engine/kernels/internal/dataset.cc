#include "runtime/engine/kernels/internal/dataset.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "core/allocator.h"
#include "core/status_macros.h"

namespace minigraph {
namespace kernels_internal {
namespace data {

std::string Dataset::DebugString() const { return absl::StrCat("<dataset '", node_, "'>"); }

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

absl::Status CheckStep(const OpKernelContext* ctx, const std::string& dataset) {
  if (ctx->cancelled()) return absl::CancelledError("the step was cancelled");
  if (absl::Now() > ctx->step_context().deadline) {
    return absl::DeadlineExceededError(absl::StrCat("step timed out in dataset '", dataset, "'"));
  }
  return absl::OkStatus();
}

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

absl::Status CheckGathered(size_t bytes, const std::string& dataset, absl::string_view what) {
  if (bytes <= MaxTensorBytes()) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat("dataset '", dataset, "': its ", what,
                                                   " holds more than ", MaxTensorBytes(),
                                                   " bytes (max_tensor_bytes)"));
}

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

namespace {

// The iterators whose pipelines the calling thread works in, innermost
// last.
std::vector<const void*>& Pipelines() {
  thread_local std::vector<const void*> pipelines;
  return pipelines;
}

}  // namespace

bool InsidePipelineOf(const void* iterator) {
  const std::vector<const void*>& p = Pipelines();
  return std::find(p.begin(), p.end(), iterator) != p.end();
}

ScopedPipeline::ScopedPipeline(const void* iterator) { Pipelines().push_back(iterator); }
ScopedPipeline::~ScopedPipeline() { Pipelines().pop_back(); }

BackgroundWork::BackgroundWork(const OpKernelContext& starter)
    : step_(starter.step_context()), pipelines_(Pipelines()) {
  step_.step_resources = &step_resources_;
  step_.cancelled = &cancelled_;
  step_.deadline = absl::InfiniteFuture();
  step_.rendezvous = nullptr;
}

BackgroundWork::~BackgroundWork() {
  Cancel();
  for (std::thread& t : threads_) t.join();
}

void BackgroundWork::Start(std::function<void(OpKernelContext*)> fn) {
  threads_.emplace_back([this, fn = std::move(fn)] {
    Pipelines() = pipelines_;
    OpKernelContext ctx(&step_);
    fn(&ctx);
  });
}

absl::Status AwaitInStep(const OpKernelContext* ctx, const std::string& dataset, absl::Mutex* mu,
                         const absl::Condition& cond) {
  while (!mu->AwaitWithTimeout(cond, absl::Milliseconds(20))) {
    MG_RETURN_IF_ERROR(CheckStep(ctx, dataset));
  }
  return absl::OkStatus();
}

absl::Status CheckParallelCalls(int64_t calls, const std::string& where) {
  if (calls > 0 || calls == kAutotune) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      where, ": num_parallel_calls must be greater than zero (or AUTOTUNE), got ", calls));
}

int64_t ParallelThreads(int64_t calls) {
  // More threads than this is a graph's mistake, not a speed-up.
  constexpr int64_t kMaxThreads = 256;
  if (calls == kAutotune) return std::max(1u, std::thread::hardware_concurrency());
  return std::clamp<int64_t>(calls, 1, kMaxThreads);
}

bool CallBudget::Acquire(const OpKernelContext* ctx) {
  absl::MutexLock l(&mu_);
  auto available = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return free_ > 0; };
  while (!mu_.AwaitWithTimeout(absl::Condition(&available), absl::Milliseconds(20))) {
    if (ctx->cancelled()) return false;
  }
  --free_;
  return true;
}

void CallBudget::Release() {
  absl::MutexLock l(&mu_);
  ++free_;
}

namespace {

class PrefetchIterator final : public DatasetIterator {
 public:
  PrefetchIterator(std::unique_ptr<DatasetIterator> input, int64_t buffer_size, std::string node,
                   std::shared_ptr<CallBudget> budget)
      : input_(std::move(input)),
        node_(std::move(node)),
        budget_(std::move(budget)),
        autotune_(buffer_size == kAutotune),
        limit_(autotune_ ? 1 : buffer_size) {}

  ~PrefetchIterator() override {
    {
      absl::MutexLock l(&mu_);
      stop_ = true;
    }
    work_.reset();  // joins the producer before input_ goes
  }

  void Start(const OpKernelContext& ctx) {
    work_ = std::make_unique<BackgroundWork>(ctx);
    work_->Start([this](OpKernelContext* bg) { Produce(bg); });
  }

  absl::Status GetNext(OpKernelContext* ctx, Element* out, bool* end) override {
    if (work_ == nullptr) Start(*ctx);
    absl::MutexLock l(&mu_);
    if (buffer_.empty() && autotune_) limit_ = std::min<int64_t>(limit_ * 2, kMaxAutotuned);
    auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !buffer_.empty(); };
    MG_RETURN_IF_ERROR(AwaitInStep(ctx, node_, &mu_, absl::Condition(&ready)));
    Result& front = buffer_.front();
    *end = front.end;
    if (front.end) return absl::OkStatus();  // and on every later call
    absl::Status s = std::move(front.status);
    *out = std::move(front.element);
    buffer_.pop_front();
    return s;
  }

 private:
  static constexpr int64_t kMaxAutotuned = 64;

  struct Result {
    absl::Status status;
    Element element;
    bool end = false;
  };

  void Produce(OpKernelContext* ctx) {
    for (;;) {
      {
        absl::MutexLock l(&mu_);
        auto room = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
          return stop_ || static_cast<int64_t>(buffer_.size()) < limit_;
        };
        mu_.Await(absl::Condition(&room));
        if (stop_) return;
      }
      if (budget_ != nullptr && !budget_->Acquire(ctx)) return;
      Result r;
      r.status = input_->GetNext(ctx, &r.element, &r.end);
      if (budget_ != nullptr) budget_->Release();
      // What the input gives while being stopped is no one's.
      if (ctx->cancelled()) return;
      if (!r.status.ok()) r.end = false;
      const bool end = r.end;
      absl::MutexLock l(&mu_);
      buffer_.push_back(std::move(r));
      if (end) return;
    }
  }

  const std::unique_ptr<DatasetIterator> input_;  // the producer's alone
  const std::string node_;
  const std::shared_ptr<CallBudget> budget_;
  const bool autotune_;
  absl::Mutex mu_;
  int64_t limit_ ABSL_GUARDED_BY(mu_);
  std::deque<Result> buffer_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::unique_ptr<BackgroundWork> work_;  // the reader's; made by Start
};

}  // namespace

std::unique_ptr<DatasetIterator> MakePrefetchIterator(std::unique_ptr<DatasetIterator> input,
                                                      int64_t buffer_size, std::string node,
                                                      const OpKernelContext* start,
                                                      std::shared_ptr<CallBudget> budget) {
  auto it = std::make_unique<PrefetchIterator>(std::move(input), buffer_size, std::move(node),
                                               std::move(budget));
  if (start != nullptr) it->Start(*start);
  return it;
}

std::shared_ptr<const Dataset> DatasetIn(const Tensor& t) {
  if (t.dtype() != DT_VARIANT || t.dims() != 0) return nullptr;
  return std::dynamic_pointer_cast<const Dataset>(t.data<Variant>()->value());
}

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

absl::Status DatasetOpKernel::Init(OpKernelConstruction* c) {
  return ElementSpec(c, "output_types", &dtypes_, &shapes_);
}

absl::Status DatasetOpKernel::Compute(OpKernelContext* ctx) const {
  MG_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> d, MakeDataset(ctx));
  ctx->set_output(0, Tensor::Scalar<Variant>(Variant(std::move(d))));
  return absl::OkStatus();
}

std::string DatasetOpKernel::Where() const {
  return absl::StrCat(type_string(), " '", name(), "'");
}

absl::StatusOr<std::shared_ptr<const Dataset>> DatasetOpKernel::InputDataset(
    const OpKernelContext* ctx, int i, bool same_spec) const {
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

absl::StatusOr<int64_t> DatasetOpKernel::ScalarInput(const OpKernelContext* ctx, int i,
                                                     absl::string_view what) const {
  const Tensor& t = ctx->input(i);
  if (t.dims() != 0 || (t.dtype() != DT_INT64 && t.dtype() != DT_INT32)) {
    return absl::InvalidArgumentError(absl::StrCat(
        Where(), ": ", what, " must be an integer scalar, got shape ", t.shape().DebugString()));
  }
  return t.dtype() == DT_INT64 ? *t.data<int64_t>() : *t.data<int32_t>();
}

}  // namespace data
}  // namespace kernels_internal
}  // namespace minigraph
