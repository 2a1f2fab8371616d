// Connectionist temporal classification decoding, as TensorFlow's
// ctc_decoder_ops.cc: CTCGreedyDecoder, the best path (each step's most
// likely class, the first of equals; blanks dropped and, with
// merge_repeated, repeats merged), and CTCBeamSearchDecoder, the beam search
// of ctc_beam_search.h with its default scorer (no language model): the
// beam_width most probable prefixes kept at each step, in the same bounded
// heap, so that ties between prefixes leave the beam in TensorFlow's order.
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// paths[b][p], path p of batch entry b, as top_paths SparseTensors: output
// p its indices [n, 2], top_paths + p its values [n], 2 top_paths + p its
// dense shape [batch, longest] (int64).
absl::Status StorePaths(OpKernelContext* ctx, int top_paths,
                        const std::vector<std::vector<std::vector<int64_t>>>& paths) {
  const int64_t batch = static_cast<int64_t>(paths.size());
  for (int p = 0; p < top_paths; ++p) {
    int64_t n = 0, longest = 0;
    for (const auto& b : paths) {
      n += static_cast<int64_t>(b[p].size());
      longest = std::max(longest, static_cast<int64_t>(b[p].size()));
    }
    Tensor *indices, *values, *shape;
    MG_RETURN_IF_ERROR(ctx->allocate_output(p, TensorShape({n, 2}), &indices));
    MG_RETURN_IF_ERROR(ctx->allocate_output(top_paths + p, TensorShape({n}), &values));
    MG_RETURN_IF_ERROR(ctx->allocate_output(2 * top_paths + p, TensorShape({2}), &shape));
    int64_t* ix = indices->data<int64_t>();
    int64_t* v = values->data<int64_t>();
    for (int64_t b = 0; b < batch; ++b) {
      for (size_t j = 0; j < paths[b][p].size(); ++j) {
        *ix++ = b;
        *ix++ = static_cast<int64_t>(j);
        *v++ = paths[b][p][j];
      }
    }
    shape->data<int64_t>()[0] = batch;
    shape->data<int64_t>()[1] = longest;
  }
  return absl::OkStatus();
}

// inputs [max_time, batch, classes] and sequence_length [batch], each
// length at most max_time (FailedPrecondition, as TensorFlow, when not).
absl::Status CheckCtcInputs(absl::string_view op, const Tensor& inputs, const Tensor& lengths) {
  if (inputs.dims() != 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": inputs must be [max_time, batch, classes], got shape ",
        inputs.shape().DebugString()));
  }
  const int64_t max_time = inputs.dim_size(0), batch = inputs.dim_size(1);
  if (lengths.dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": sequence_length must be a vector, got shape ", lengths.shape().DebugString()));
  }
  if (lengths.dim_size(0) != batch) {
    return absl::FailedPreconditionError(absl::StrCat(
        op, ": sequence_length must be a vector of one length per batch entry (", batch,
        "), got shape ", lengths.shape().DebugString()));
  }
  const int32_t* len = lengths.data<int32_t>();
  for (int64_t b = 0; b < batch; ++b) {
    if (len[b] > max_time) {
      return absl::FailedPreconditionError(absl::StrCat(
          op, ": sequence_length[", b, "] = ", len[b], " is longer than the inputs' ",
          max_time, " steps"));
    }
  }
  return absl::OkStatus();
}

// inputs [max_time, batch, classes] (logits), sequence_length [batch]
// int32 -> decoded_indices [n, 2], decoded_values [n], decoded_shape
// [batch, longest] (int64: a SparseTensor of the paths) and
// log_probability [batch, 1], each path's negated sum of its steps' maxima.
template <typename T>
class CTCGreedyDecoderOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("merge_repeated", &merge_repeated_));
    return c->GetAttr("blank_index", &blank_index_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& inputs = ctx->input(0);
    const Tensor& lengths = ctx->input(1);
    MG_RETURN_IF_ERROR(CheckCtcInputs("CTCGreedyDecoder", inputs, lengths));
    const int64_t max_time = inputs.dim_size(0), batch = inputs.dim_size(1),
                  classes = inputs.dim_size(2);
    const int32_t* len = lengths.data<int32_t>();
    if (classes == 0 && std::any_of(len, len + batch, [](int32_t l) { return l > 0; })) {
      return absl::InvalidArgumentError("CTCGreedyDecoder: the inputs have no classes");
    }
    const int64_t blank = blank_index_ < 0 ? classes + blank_index_ : blank_index_;
    if (blank < 0 || blank >= classes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "CTCGreedyDecoder: blank_index ", blank_index_, " is outside the ", classes, " classes"));
    }
    Tensor* log_prob;
    MG_RETURN_IF_ERROR(ctx->allocate_output(3, TensorShape({batch, 1}), &log_prob));
    const T* x = inputs.data<T>();
    std::vector<std::vector<int64_t>> paths(batch);
    for (int64_t b = 0; b < batch; ++b) {
      T total = T(0);
      int64_t previous = -1;
      for (int64_t t = 0; t < len[b]; ++t) {
        const T* row = x + (t * batch + b) * classes;
        const int64_t best = std::max_element(row, row + classes) - row;
        total -= row[best];
        if (best != blank && !(merge_repeated_ && best == previous)) paths[b].push_back(best);
        previous = best;
      }
      log_prob->data<T>()[b] = total;
    }
    std::vector<std::vector<std::vector<int64_t>>> per_batch(batch);
    for (int64_t b = 0; b < batch; ++b) per_batch[b].push_back(std::move(paths[b]));
    MG_RETURN_IF_ERROR(StorePaths(ctx, 1, per_batch));
    return absl::OkStatus();
  }

 private:
  bool merge_repeated_ = false;
  int64_t blank_index_ = -1;
};

// The best `limit` of the pointers pushed, by `Greater`, kept as
// TensorFlow's gtl::TopN keeps them (unordered, the bottom found by a linear
// scan, until one more than the limit arrives; then a heap of the limit),
// so that the order of equals, which decides which prefixes of equal
// probability stay in a beam, is the same.
template <typename P, typename Greater>
class BoundedTop {
 public:
  explicit BoundedTop(size_t limit) : limit_(limit) {}

  size_t size() const { return items_.size(); }
  const P* begin() const { return items_.data(); }
  const P* end() const { return items_.data() + items_.size(); }

  void Push(P x) {
    if (limit_ == 0) return;
    if (state_ != kHeap) {
      items_.push_back(x);
      if (items_.size() == limit_ + 1) {
        std::make_heap(items_.begin(), items_.end(), greater_);
        std::pop_heap(items_.begin(), items_.end(), greater_);
        items_.pop_back();
        state_ = kHeap;
      } else if (state_ == kBottomKnown && !greater_(items_.back(), items_.front())) {
        std::swap(items_.front(), items_.back());
      }
    } else if (greater_(x, items_.front())) {
      std::pop_heap(items_.begin(), items_.end(), greater_);
      items_.back() = x;
      std::push_heap(items_.begin(), items_.end(), greater_);
    }
  }

  // The least of those kept (requires one).
  P Bottom() {
    if (state_ == kUnordered) {
      size_t least = 0;
      for (size_t i = 1; i < items_.size(); ++i) {
        if (greater_(items_[least], items_[i])) least = i;
      }
      std::swap(items_[0], items_[least]);
      state_ = kBottomKnown;
    }
    return items_.front();
  }

  // Those kept, best first; empties this.
  std::vector<P> Extract() {
    std::vector<P> out;
    out.swap(items_);
    if (state_ != kHeap) {
      std::sort(out.begin(), out.end(), greater_);
    } else {
      std::sort_heap(out.begin(), out.end(), greater_);
    }
    state_ = kUnordered;
    return out;
  }

 private:
  enum State { kUnordered, kBottomKnown, kHeap };
  std::vector<P> items_;  // in kHeap, a heap (the least first)
  size_t limit_;
  Greater greater_;
  State state_ = kUnordered;
};

template <typename T>
constexpr T kLogZero = -std::numeric_limits<T>::infinity();

// log(exp(a) + exp(b)), the correction in float for either T (TensorFlow's
// ctc_loss_util.h calls log1pf(expf(...)) for doubles too).
template <typename T>
T LogSumExp(T a, T b) {
  if (a == kLogZero<T>) return b;
  if (b == kLogZero<T>) return a;
  const float gap = static_cast<float>(a > b ? b - a : a - b);
  return (a > b ? a : b) + std::log1p(std::exp(gap));
}

template <typename T>
struct BeamProbability {
  T total = kLogZero<T>, blank = kLogZero<T>, label = kLogZero<T>;
  void Reset() { *this = BeamProbability(); }
};

// A prefix: its last label, its parent (the prefix without it), and the
// log probabilities of the sequences ending in it at the previous step and
// this one (all of them, those ending in a blank, those ending in its label).
template <typename T>
struct BeamEntry {
  BeamEntry* parent;
  int label;
  absl::flat_hash_map<int, BeamEntry*> children;
  BeamProbability<T> oldp, newp;
  bool Active() const { return newp.total != kLogZero<T>; }
};

template <typename T>
struct MoreProbable {
  bool operator()(const BeamEntry<T>* a, const BeamEntry<T>* b) const {
    return a->newp.total > b->newp.total;
  }
};

// One batch entry's beam search over steps of `classes` logits, the blank
// the last class.
template <typename T>
class BeamSearch {
 public:
  BeamSearch(int classes, int beam_width)
      : classes_(classes), beam_width_(beam_width), leaves_(beam_width) {
    entries_.push_back(BeamEntry<T>{nullptr, -1, {}, {}, {}});
    BeamEntry<T>* root = &entries_.back();
    root->newp.total = 0;
    root->newp.blank = 0;
    leaves_.Push(root);
  }

  // One step; ResourceExhausted, before it grows, when the prefixes it
  // may add (one per leaf and label) would outgrow max_tensor_bytes (a wide
  // beam over many classes and steps).
  absl::Status Step(const T* logits) {
    const int blank = classes_ - 1;
    MG_RETURN_IF_ERROR(CheckScratchSize(
        static_cast<int64_t>(entries_.size() + leaves_.size() * static_cast<size_t>(blank)),
        sizeof(BeamEntry<T>), "CTCBeamSearchDecoder's beam prefixes"));
    const T max_logit = *std::max_element(logits, logits + classes_);
    T sum = 0;
    for (int j = 0; j < classes_; ++j) sum += std::exp(logits[j] - max_logit);
    const T offset = max_logit + std::log(sum);  // log-softmax's
    const std::vector<BeamEntry<T>*> branches = leaves_.Extract();
    for (BeamEntry<T>* b : branches) b->oldp = b->newp;
    for (BeamEntry<T>* b : branches) {
      if (b->parent != nullptr) {
        if (b->parent->Active()) {
          const T previous =
              b->label == b->parent->label ? b->parent->oldp.blank : b->parent->oldp.total;
          b->newp.label = LogSumExp(b->newp.label, previous);
        }
        b->newp.label += logits[b->label] - offset;
      }
      b->newp.blank = b->oldp.total + logits[blank] - offset;
      b->newp.total = LogSumExp(b->newp.blank, b->newp.label);
      leaves_.Push(b);
    }
    auto candidate = [this](const BeamProbability<T>& p) {
      return p.total > kLogZero<T> &&
             (leaves_.size() < static_cast<size_t>(beam_width_) ||
              p.total > leaves_.Bottom()->newp.total);
    };
    for (BeamEntry<T>* b : branches) {
      if (!candidate(b->oldp)) continue;
      for (int label = 0; label < blank; ++label) {
        BeamEntry<T>& c = Child(b, label);
        if (c.Active()) continue;
        c.newp.blank = kLogZero<T>;
        const T previous = c.label == b->label ? b->oldp.blank : b->oldp.total;
        c.newp.label = logits[label] - offset + previous;
        c.newp.total = c.newp.label;
        if (candidate(c.newp)) {
          if (leaves_.size() == static_cast<size_t>(beam_width_)) leaves_.Bottom()->newp.Reset();
          leaves_.Push(&c);
        } else {
          c.oldp.Reset();
          c.newp.Reset();
        }
      }
    }
    return absl::OkStatus();
  }

  // The best `n` prefixes (labels, with repeats merged if asked) and their
  // log probabilities.
  absl::Status TopPaths(int n, bool merge_repeated, std::vector<std::vector<int64_t>>* paths,
                        std::vector<T>* log_probs) const {
    if (n > beam_width_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "CTCBeamSearchDecoder: top_paths ", n, " is more than the beam width ", beam_width_));
    }
    if (static_cast<size_t>(n) > leaves_.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "CTCBeamSearchDecoder: top_paths ", n, " is more than the ", leaves_.size(),
          " prefixes left in the beam"));
    }
    BoundedTop<BeamEntry<T>*, MoreProbable<T>> top(n);
    for (BeamEntry<T>* e : leaves_) top.Push(e);
    for (const BeamEntry<T>* e : top.Extract()) {
      std::vector<int64_t> labels;
      int previous = -1;
      for (const BeamEntry<T>* c = e; c->parent != nullptr; c = c->parent) {
        if (!merge_repeated || c->label != previous) labels.push_back(c->label);
        previous = c->label;
      }
      std::reverse(labels.begin(), labels.end());
      paths->push_back(std::move(labels));
      log_probs->push_back(e->newp.total);
    }
    return absl::OkStatus();
  }

 private:
  BeamEntry<T>& Child(BeamEntry<T>* parent, int label) {
    auto [it, added] = parent->children.emplace(label, nullptr);
    if (added) {
      entries_.push_back(BeamEntry<T>{parent, label, {}, {}, {}});
      it->second = &entries_.back();
    }
    return *it->second;
  }

  int classes_;
  int beam_width_;
  std::deque<BeamEntry<T>> entries_;  // every prefix met; deque: addresses stay
  BoundedTop<BeamEntry<T>*, MoreProbable<T>> leaves_;
};

// inputs [max_time, batch, classes] (logits, the blank the last class),
// sequence_length [batch] int32 -> top_paths SparseTensors of paths (see
// StorePaths) and log_probability [batch, top_paths], each path's log
// probability.
template <typename T>
class CTCBeamSearchDecoderOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("merge_repeated", &merge_repeated_));
    MG_RETURN_IF_ERROR(c->GetAttr("beam_width", &beam_width_));
    MG_RETURN_IF_ERROR(c->GetAttr("top_paths", &top_paths_));
    if (beam_width_ < 1 || top_paths_ < 1 || beam_width_ > std::numeric_limits<int>::max()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "CTCBeamSearchDecoder: beam_width (", beam_width_, ") and top_paths (", top_paths_,
          ") must be at least 1"));
    }
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& inputs = ctx->input(0);
    const Tensor& lengths = ctx->input(1);
    MG_RETURN_IF_ERROR(CheckCtcInputs("CTCBeamSearchDecoder", inputs, lengths));
    if (inputs.NumElements() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "CTCBeamSearchDecoder: inputs must not be empty, got shape ",
          inputs.shape().DebugString()));
    }
    const int64_t batch = inputs.dim_size(1), classes = inputs.dim_size(2);
    if (classes > std::numeric_limits<int>::max()) {
      return absl::InvalidArgumentError(
          absl::StrCat("CTCBeamSearchDecoder: ", classes, " classes are more than an int holds"));
    }
    const int top_paths = static_cast<int>(top_paths_);
    Tensor* log_prob;
    MG_RETURN_IF_ERROR(
        ctx->allocate_output(3 * top_paths, TensorShape({batch, top_paths}), &log_prob));
    const T* x = inputs.data<T>();
    const int32_t* len = lengths.data<int32_t>();
    std::vector<std::vector<std::vector<int64_t>>> paths(batch);
    T* log_probs = log_prob->data<T>();
    for (int64_t b = 0; b < batch; ++b) {
      BeamSearch<T> search(static_cast<int>(classes), static_cast<int>(beam_width_));
      for (int64_t t = 0; t < len[b]; ++t) {
        MG_RETURN_IF_ERROR(search.Step(x + (t * batch + b) * classes));
      }
      std::vector<T> probs;
      MG_RETURN_IF_ERROR(search.TopPaths(top_paths, merge_repeated_, &paths[b], &probs));
      std::copy(probs.begin(), probs.end(), log_probs + b * top_paths);
    }
    return StorePaths(ctx, top_paths, paths);
  }

 private:
  bool merge_repeated_ = true;
  int64_t beam_width_ = 1;
  int64_t top_paths_ = 1;
};

}  // namespace

void RegisterCtcKernels(KernelRegistry* r) {
  r->Register("CTCGreedyDecoder", TypedFactory<CTCGreedyDecoderOp, float, double>());
  r->Register("CTCBeamSearchDecoder", TypedFactory<CTCBeamSearchDecoderOp, float, double>());
}

}  // namespace kernels_internal
}  // namespace minigraph
