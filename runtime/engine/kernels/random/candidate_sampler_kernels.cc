// The candidate samplers (tf.random.uniform_candidate_sampler and its
// siblings, what sampled softmax and NCE losses draw negatives with):
// num_sampled candidates from [0, range_max) and the expected count of each
// candidate and of each true class, drawn as TensorFlow's range samplers
// draw them on the node's Philox stream (candidate_sampler_ops.cc,
// range_sampler.cc), so that a seeded graph samples the same candidates
// here and there:
//   Uniform        a 64-bit uniform integer per candidate;
//   LogUniform     Zipfian: floor(exp(u * log(range + 1))) - 1;
//   LearnedUnigram weights that start at 1 and count the true classes each
//                  run has seen (a sum tree, as TensorFlow's WeightedPicker);
//   FixedUnigram   given weights (an attr or the last field of each line of a
//                  vocabulary file) raised to `distortion`, after
//                  num_reserved_ids zeros, this shard's ids only, sampled by
//                  Walker's alias method as TensorFlow builds its table;
//   All            every candidate, 0 to num_sampled - 1, each counted once.
// With unique=true a draw already taken is drawn again, and the expected
// counts become 1 - (1 - p)^tries.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "core/allocator.h"
#include "core/env.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/random_streams.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// A distribution over [0, range): one candidate at a time and each value's
// probability. Callers hold the kernel's lock.
class RangeSampler {
 public:
  explicit RangeSampler(int64_t range) : range_(range) {}
  virtual ~RangeSampler() = default;
  virtual int64_t Sample(SimplePhilox* rnd) const = 0;
  virtual float Probability(int64_t value) const = 0;
  // How many values can be drawn at all (a unique batch needs that many).
  virtual int64_t Reachable() const { return range_; }
  // Learns from a run's true classes (the learned unigram sampler).
  virtual void Update(const int64_t* values, int64_t n) {}
  int64_t range() const { return range_; }

 protected:
  const int64_t range_;
};

class UniformSampler : public RangeSampler {
 public:
  explicit UniformSampler(int64_t range)
      : RangeSampler(range), inv_range_(static_cast<float>(1.0 / range)) {}
  int64_t Sample(SimplePhilox* rnd) const override {
    return static_cast<int64_t>(rnd->Uniform64(static_cast<uint64_t>(range_)));
  }
  float Probability(int64_t) const override { return inv_range_; }

 private:
  const float inv_range_;
};

class LogUniformSampler : public RangeSampler {
 public:
  explicit LogUniformSampler(int64_t range)
      : RangeSampler(range), log_range_(std::log1p(static_cast<double>(range))) {}
  int64_t Sample(SimplePhilox* rnd) const override {
    const auto value = static_cast<int64_t>(std::exp(rnd->RandDouble() * log_range_)) - 1;
    return value % range_;  // Rounding could reach range_; it never has.
  }
  float Probability(int64_t value) const override {
    return static_cast<float>(std::log((value + 2.0) / (value + 1.0)) / log_range_);
  }

 private:
  const double log_range_;
};

// Integer weights, all 1 at first, in a sum tree (a Fenwick tree): a draw
// is the value whose cumulative weight first passes a uniform integer below
// the total, as TensorFlow's WeightedPicker descends its tree.
class LearnedUnigramSampler : public RangeSampler {
 public:
  explicit LearnedUnigramSampler(int64_t range)
      : RangeSampler(range), tree_(range + 1, 0), total_(static_cast<int32_t>(range)) {
    for (int64_t i = 1; i <= range; ++i) {
      tree_[i] += 1;
      const int64_t parent = i + (i & -i);
      if (parent <= range) tree_[parent] += tree_[i];
    }
    top_ = 1;
    while (top_ * 2 <= range) top_ *= 2;
  }
  int64_t Sample(SimplePhilox* rnd) const override {
    int32_t position = static_cast<int32_t>(rnd->Uniform(static_cast<uint32_t>(total_)));
    int64_t index = 0;  // The count of values whose weights `position` passes.
    for (int64_t step = top_; step > 0; step /= 2) {
      if (index + step <= range_ && tree_[index + step] <= position) {
        index += step;
        position -= tree_[index];
      }
    }
    return index;
  }
  float Probability(int64_t value) const override {
    return static_cast<float>(Weight(value)) / static_cast<float>(total_);
  }
  void Update(const int64_t* values, int64_t n) override {
    // As TensorFlow: the total stays an int32, later values are not counted.
    const int64_t count =
        std::min<int64_t>(n, std::numeric_limits<int32_t>::max() - int64_t{total_});
    for (int64_t i = 0; i < count; ++i) {
      for (int64_t j = values[i] + 1; j <= range_; j += j & -j) ++tree_[j];
      ++total_;
    }
  }

 private:
  int32_t Weight(int64_t value) const {
    int32_t w = tree_[value + 1];
    for (int64_t j = value, stop = value + 1 - ((value + 1) & -(value + 1)); j > stop;
         j -= j & -j) {
      w -= tree_[j];
    }
    return w;
  }

  std::vector<int32_t> tree_;  // 1-based Fenwick sums of the weights.
  int32_t total_;
  int64_t top_;  // The highest power of two not above range_.
};

// Weights fixed when the kernel is made; draws by Walker's alias method,
// the table built as TensorFlow's DistributionSampler builds it (the
// pairing order decides which value each bucket's alias is).
class FixedUnigramSampler : public RangeSampler {
 public:
  FixedUnigramSampler(int64_t range, std::vector<float> weights, float total)
      : RangeSampler(range), weights_(std::move(weights)), total_(total) {
    const int n = static_cast<int>(weights_.size());
    prob_.resize(n);
    alt_.assign(n, -1);
    double sum = 0;
    for (float w : weights_) sum += w;
    std::vector<double> pr(n);
    std::vector<int> high, low;
    for (int i = 0; i < n; ++i) {
      pr[i] = (weights_[i] * n) / sum;
      (pr[i] < 1.0 ? low : high).push_back(i);
    }
    while (!high.empty() && !low.empty()) {
      const int l = low.back();
      low.pop_back();
      const int h = high.back();
      high.pop_back();
      alt_[l] = h;
      pr[h] -= 1.0 - pr[l];
      (pr[h] < 1.0 ? low : high).push_back(h);
    }
    for (int i = 0; i < n; ++i) prob_[i] = static_cast<float>(pr[i]);
    // What rounding leaves unpaired is close to 1: it keeps its bucket.
    for (const auto* rest : {&high, &low}) {
      for (int i : *rest) {
        prob_[i] = 1.0f;
        alt_[i] = i;
      }
    }
    // A bucket gives its own value when prob > 0, its alias when prob < 1.
    std::vector<bool> comes(n);
    for (int i = 0; i < n; ++i) {
      if (prob_[i] > 0) comes[i] = true;
      if (prob_[i] < 1) comes[alt_[i]] = true;
    }
    reachable_ = std::count(comes.begin(), comes.end(), true);
  }
  int64_t Sample(SimplePhilox* rnd) const override {
    const float r = rnd->RandFloat();
    const int idx = static_cast<int>(rnd->Uniform(static_cast<uint32_t>(prob_.size())));
    return r < prob_[idx] ? idx : alt_[idx];
  }
  float Probability(int64_t value) const override { return weights_[value] / total_; }
  int64_t Reachable() const override { return reachable_; }

 private:
  std::vector<float> weights_;
  float total_;
  std::vector<float> prob_;
  std::vector<int> alt_;
  int64_t reachable_ = 0;
};

// The expected count of a value of probability p among `batch` draws that
// took `tries` (more than `batch` when unique draws were drawn again).
float ExpectedCount(float p, int batch, int64_t tries) {
  if (tries == batch) return p * batch;
  return -std::expm1(static_cast<float>(tries) * std::log1p(-p));
}

// The samplers' common kernel: checks the true classes, draws from this
// run's share of the node's stream (2048 samples per candidate reserved, as
// TensorFlow's kernel reserves them), and fills the three outputs.
class CandidateSamplerOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    absl::MutexLock l(&mu_);
    MG_RETURN_IF_ERROR(c->GetAttr("num_true", &num_true_));
    MG_RETURN_IF_ERROR(c->GetAttr("num_sampled", &num_sampled_));
    MG_RETURN_IF_ERROR(c->GetAttr("unique", &unique_));
    MG_RETURN_IF_ERROR(generator_.Init(c));
    const std::string& op = c->def().op();
    if (op == "AllCandidateSampler") {
      all_ = true;  // Its range is num_sampled; it draws nothing.
      sampler_ = std::make_unique<UniformSampler>(num_sampled_);
      return absl::OkStatus();
    }
    MG_RETURN_IF_ERROR(c->GetAttr("range_max", &range_max_));
    if (range_max_ <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": range_max must be positive, got ", range_max_));
    }
    if (op == "UniformCandidateSampler") {
      sampler_ = std::make_unique<UniformSampler>(range_max_);
    } else if (op == "LogUniformCandidateSampler") {
      sampler_ = std::make_unique<LogUniformSampler>(range_max_);
    } else if (op == "LearnedUnigramCandidateSampler" ||
               op == "ThreadUnsafeUnigramCandidateSampler") {
      if (range_max_ >= std::numeric_limits<int32_t>::max()) {
        return absl::InvalidArgumentError(
            absl::StrCat(Where(), ": range_max must be less than ",
                         std::numeric_limits<int32_t>::max(),
                         " for unigram samplers, got ", range_max_));
      }
      if (static_cast<uint64_t>(range_max_) * sizeof(int32_t) > MaxTensorBytes()) {
        return absl::ResourceExhaustedError(
            absl::StrCat(Where(), ": the weights of range_max ", range_max_,
                         " values would pass the limit of ", MaxTensorBytes(), " bytes"));
      }
      sampler_ = std::make_unique<LearnedUnigramSampler>(range_max_);
    } else {
      return InitFixed(c);
    }
    return absl::OkStatus();
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& truth = ctx->input(0);
    if (truth.dims() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": true_classes must be a matrix, got ", truth.shape().DebugString()));
    }
    if (truth.dim_size(1) != num_true_) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": true_classes must have num_true = ", num_true_,
                       " columns, got ", truth.shape().DebugString()));
    }
    absl::MutexLock l(&mu_);
    MG_RETURN_IF_ERROR(LoadVocabulary(ctx));
    const RangeSampler& sampler = *sampler_;
    if (unique_ && num_sampled_ > sampler.range()) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": Sampler's range is too small: ", num_sampled_,
                       " unique candidates from a range of ", sampler.range()));
    }
    if (unique_ && num_sampled_ > sampler.Reachable()) {
      // TensorFlow would draw forever: only values of weight above zero come.
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": ", num_sampled_, " unique candidates asked of ",
                       sampler.Reachable(), " values of weight above zero"));
    }
    const int64_t n_true = truth.NumElements();
    const int64_t* t = truth.data<int64_t>();
    for (int64_t i = 0; i < n_true; ++i) {
      if (t[i] < 0 || t[i] >= sampler.range()) {
        return absl::InvalidArgumentError(
            absl::StrCat(Where(), ": `true_candidate` out of range [0, ", sampler.range(),
                         "), received ", t[i]));
      }
    }
    Tensor *sampled, *true_count, *sampled_count;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({num_sampled_}), &sampled));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, truth.shape(), &true_count));
    MG_RETURN_IF_ERROR(ctx->allocate_output(2, TensorShape({num_sampled_}), &sampled_count));
    int64_t* out = sampled->data<int64_t>();
    float* out_count = sampled_count->data<float>();
    float* out_true = true_count->data<float>();
    if (all_) {
      for (int64_t i = 0; i < num_sampled_; ++i) out[i] = i;
      std::fill_n(out_count, num_sampled_, 1.0f);
      std::fill_n(out_true, n_true, 1.0f);
      return absl::OkStatus();
    }
    PhiloxRandom gen = generator_.ReserveSamples32(2048 * static_cast<uint64_t>(num_sampled_));
    SimplePhilox rnd(&gen);
    int64_t tries = 0;
    if (unique_) {
      absl::flat_hash_set<int64_t> used;
      used.reserve(num_sampled_);
      for (int64_t picked = 0; picked < num_sampled_;) {
        ++tries;
        const int64_t value = sampler.Sample(&rnd);
        if (used.insert(value).second) out[picked++] = value;
      }
    } else {
      for (int64_t i = 0; i < num_sampled_; ++i) out[i] = sampler.Sample(&rnd);
      tries = num_sampled_;
    }
    const int batch = static_cast<int>(num_sampled_);
    for (int64_t i = 0; i < num_sampled_; ++i) {
      out_count[i] = ExpectedCount(sampler.Probability(out[i]), batch, tries);
    }
    for (int64_t i = 0; i < n_true; ++i) {
      out_true[i] = ExpectedCount(sampler.Probability(t[i]), batch, tries);
    }
    sampler_->Update(t, n_true);
    return absl::OkStatus();
  }

 private:
  std::string Where() const { return absl::StrCat(type_string(), " '", name(), "'"); }

  // FixedUnigramCandidateSampler's attrs; its weights come from `unigrams`
  // now, or from `vocab_file` at the first run (through the step's Env).
  absl::Status InitFixed(OpKernelConstruction* c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::vector<float> unigrams;
    int64_t num_reserved_ids;
    MG_RETURN_IF_ERROR(c->GetAttr("vocab_file", &vocab_file_));
    MG_RETURN_IF_ERROR(c->GetAttr("unigrams", &unigrams));
    MG_RETURN_IF_ERROR(c->GetAttr("distortion", &fixed_.distortion));
    MG_RETURN_IF_ERROR(c->GetAttr("num_reserved_ids", &num_reserved_ids));
    MG_RETURN_IF_ERROR(c->GetAttr("num_shards", &fixed_.num_shards));
    MG_RETURN_IF_ERROR(c->GetAttr("shard", &fixed_.shard));
    if (vocab_file_.empty() == unigrams.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), vocab_file_.empty() ? ": Must provide either vocab_file or unigrams."
                                       : ": Must only provide one of vocab_file and unigrams."));
    }
    if (fixed_.num_shards < 1 || fixed_.shard < 0 || fixed_.shard >= fixed_.num_shards) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": shard ", fixed_.shard, " is not one of num_shards ", fixed_.num_shards));
    }
    for (int64_t id = 0; id < num_reserved_ids; ++id) {
      if (fixed_.Mine()) fixed_.weights.push_back(0.0f);
      ++fixed_.next_id;
    }
    if (!vocab_file_.empty()) return absl::OkStatus();
    for (float w : unigrams) {
      if (fixed_.Mine()) fixed_.Add(w);
      ++fixed_.next_id;
    }
    return MakeFixed();
  }

  absl::Status MakeFixed() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (static_cast<int64_t>(fixed_.weights.size()) != range_max_) {
      return absl::InvalidArgumentError(absl::StrCat(Where(), ": range is ", range_max_,
                                                     " must be equal to weights size ",
                                                     fixed_.weights.size()));
    }
    sampler_ = std::make_unique<FixedUnigramSampler>(range_max_, std::move(fixed_.weights),
                                                     fixed_.total);
    return absl::OkStatus();
  }

  // The vocabulary file, read once: lines of comma-separated fields whose
  // last is the weight (an empty line of this shard is a bad weight, as in
  // TensorFlow).
  absl::Status LoadVocabulary(OpKernelContext* ctx) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (sampler_ != nullptr) return absl::OkStatus();
    MG_ASSIGN_OR_RETURN(std::string text, ReadFileToString(ctx->env(), vocab_file_));
    std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
    if (!text.empty() && text.back() == '\n') lines.pop_back();
    for (absl::string_view line : lines) {
      if (fixed_.Mine()) {
        absl::ConsumeSuffix(&line, "\r");
        const size_t comma = line.rfind(',');
        float w;
        if (!absl::SimpleAtof(comma == line.npos ? line : line.substr(comma + 1), &w)) {
          return absl::InvalidArgumentError(absl::StrCat(
              Where(), ": wrong vocabulary format in ", vocab_file_, " at line: ", line));
        }
        fixed_.Add(w);
      }
      ++fixed_.next_id;
    }
    return MakeFixed();
  }

  int64_t num_true_ = 1;
  int64_t num_sampled_ = 1;
  bool unique_ = false;
  bool all_ = false;
  int64_t range_max_ = 0;
  NodeGenerator generator_;
  std::string vocab_file_;
  // Runs draw and learn one at a time.
  mutable absl::Mutex mu_;
  // The fixed unigram sampler's weights as they are read.
  struct FixedWeights {
    bool Mine() const { return next_id % num_shards == shard; }
    void Add(float w) {
      w = std::pow(w, distortion);
      total += w;
      weights.push_back(w);
    }
    float distortion = 1;
    int64_t num_shards = 1, shard = 0, next_id = 0;
    std::vector<float> weights;
    float total = 0;
  };
  mutable FixedWeights fixed_ ABSL_GUARDED_BY(mu_);
  mutable std::unique_ptr<RangeSampler> sampler_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

void RegisterCandidateSamplerKernels(KernelRegistry* r) {
  for (const char* op : {"UniformCandidateSampler", "LogUniformCandidateSampler",
                         "LearnedUnigramCandidateSampler", "ThreadUnsafeUnigramCandidateSampler",
                         "FixedUnigramCandidateSampler", "AllCandidateSampler"}) {
    r->Register(op, MakeFactory<CandidateSamplerOp>());
  }
}

}  // namespace kernels_internal
}  // namespace minigraph
