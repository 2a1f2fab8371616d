// BiasAdd, Softmax, LogSoftmax and the cross-entropy losses.
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "Eigen/Core"  // half and bfloat16 (TopK)
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/array_eval.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/wrapping.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// The kernels below work row by row on [rows, c] views of their inputs
// (c: the last dimension), each row an Eigen array, the rows split across
// the step's pool.

// Splits rows [0, rows) of c elements across the pool; `per_element` is
// the cost of one element in cycles.
void ForEachRow(const OpKernelContext* ctx, int64_t rows, int64_t c, size_t element_bytes,
                double per_element, const std::function<void(int64_t)>& f) {
  const double bytes = static_cast<double>(c) * element_bytes;
  ctx->ParallelFor(rows, 2 * bytes, bytes, per_element * c, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) f(r);
  });
}

// Roughly the cycles of one vectorized exp (Eigen's own estimate).
template <typename T>
constexpr double kExpCost =
    Eigen::internal::functor_traits<Eigen::internal::scalar_exp_op<T>>::Cost;

// BiasAdd's data as [outer, channels, inner]: inner is 1 for NHWC (the
// channels last), the spatial size for NCHW of rank 3 or more.
struct BiasLayout {
  int64_t outer = 0, channels = 0, inner = 1;
};

absl::StatusOr<BiasLayout> BiasLayoutOf(const TensorShape& x, bool nchw) {
  if (x.dims() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("BiasAdd input must have rank >= 2, got ", x.DebugString()));
  }
  const int axis = nchw && x.dims() >= 3 ? 1 : x.dims() - 1;
  BiasLayout l;
  l.channels = x.dim_size(axis);
  l.outer = 1;
  for (int d = 0; d < axis; ++d) l.outer *= x.dim_size(d);
  for (int d = axis + 1; d < x.dims(); ++d) l.inner *= x.dim_size(d);
  return l;
}

absl::StatusOr<bool> IsNchw(OpKernelConstruction* c) {
  std::string format;
  MG_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  if (format != "NHWC" && format != "NCHW") {
    return absl::InvalidArgumentError(
        absl::StrCat("BiasAdd's data_format must be NHWC or NCHW, got ", format));
  }
  return format == "NCHW";
}

template <typename T>
class BiasAddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_ASSIGN_OR_RETURN(nchw_, IsNchw(c));
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    MG_ASSIGN_OR_RETURN(BiasLayout l, BiasLayoutOf(x.shape(), nchw_));
    if (bias.dims() != 1 || bias.dim_size(0) != l.channels) {
      return absl::InvalidArgumentError(absl::StrCat(
          "BiasAdd needs a bias vector matching the channels of the input; got input ",
          x.shape().DebugString(), " and bias ", bias.shape().DebugString()));
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &out));
    const int64_t c = l.channels;
    if (x.NumElements() == 0) return absl::OkStatus();
    // Integers wrap around, as TensorFlow's (wrapping.h).
    using U = WrapStorage<T>;
    const U* xp = reinterpret_cast<const U*>(x.data<T>());
    U* yp = reinterpret_cast<U*>(out->data<T>());
    const U* bp = reinterpret_cast<const U*>(bias.data<T>());
    if (l.inner == 1) {
      ConstArrayMap<U> b(bp, c);
      ForEachRow(ctx, l.outer, c, sizeof(T), 1, [&](int64_t r) {
        ArrayMap<U>(yp + r * c, c) = ConstArrayMap<U>(xp + r * c, c) + b;
      });
    } else {
      // NCHW: one row of `inner` values per (outer, channel), one bias each.
      const int64_t n = l.inner;
      ForEachRow(ctx, l.outer * c, n, sizeof(T), 1, [&](int64_t r) {
        ArrayMap<U>(yp + r * n, n) = ConstArrayMap<U>(xp + r * n, n) + bp[r % c];
      });
    }
    return absl::OkStatus();
  }

 private:
  bool nchw_ = false;
};

template <typename T>
class BiasAddGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_ASSIGN_OR_RETURN(nchw_, IsNchw(c));
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& g = ctx->input(0);
    MG_ASSIGN_OR_RETURN(BiasLayout l, BiasLayoutOf(g.shape(), nchw_));
    const int64_t c = l.channels;
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({c}), &out));
    // Integers wrap around, as TensorFlow's (wrapping.h).
    using U = WrapStorage<T>;
    const U* gp = reinterpret_cast<const U*>(g.data<T>());
    U* op = reinterpret_cast<U*>(out->data<T>());
    if (l.inner == 1) {
      // The column sums, the columns split across the pool, each share
      // summed row after row (contiguous, vectorized).
      const int64_t rows = l.outer;
      ctx->ParallelFor(c, rows * sizeof(T), sizeof(T), rows, [&](int64_t begin, int64_t end) {
        ArrayMap<U> sum(op + begin, end - begin);
        sum.setZero();
        for (int64_t r = 0; r < rows; ++r) {
          sum += ConstArrayMap<U>(gp + r * c + begin, end - begin);
        }
      });
    } else {
      // NCHW: each channel's sum over the batch of its spatial rows.
      const int64_t n = l.inner;
      ctx->ParallelFor(c, l.outer * n * sizeof(T), sizeof(T), l.outer * n,
                       [&](int64_t begin, int64_t end) {
                         for (int64_t ch = begin; ch < end; ++ch) {
                           U sum = U(0);
                           for (int64_t o = 0; o < l.outer; ++o) {
                             sum += ConstArrayMap<U>(gp + (o * c + ch) * n, n).sum();
                           }
                           op[ch] = sum;
                         }
                       });
    }
    return absl::OkStatus();
  }

 private:
  bool nchw_ = false;
};

// Softmax / LogSoftmax over the last dimension.
template <bool kLog>
struct SoftmaxFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Compute(OpKernelContext* ctx) const override {
      const Tensor& x = ctx->input(0);
      if (x.dims() < 1) return absl::InvalidArgumentError("Softmax logits must have rank >= 1");
      Tensor* out;
      MG_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &out));
      const int64_t c = x.dim_size(x.dims() - 1);
      const int64_t rows = c == 0 ? 0 : x.NumElements() / c;
      if (rows == 0) return absl::OkStatus();
      const T* xp = x.data<T>();
      T* yp = out->data<T>();
      ForEachRow(ctx, rows, c, sizeof(T), kExpCost<T> + 3, [&](int64_t r) {
        ConstArrayMap<T> logits(xp + r * c, c);
        ArrayMap<T> y(yp + r * c, c);
        y = logits - logits.maxCoeff();
        if (kLog) {
          y -= std::log(y.exp().sum());
        } else {
          y = y.exp();
          y /= y.sum();
        }
      });
      return absl::OkStatus();
    }
  };
};

// One row of the softmax cross-entropy: the logits are shifted by their
// maximum, `labels.Loss` gives the row's loss from them and
// log(sum(exp(shifted))), and `labels.Subtract` takes the row's labels from
// its softmax, which is the backprop.
template <typename T, typename Labels>
void XentRow(const T* logits_row, int64_t c, T* loss, T* backprop_row, const Labels& labels) {
  ConstArrayMap<T> logits(logits_row, c);
  ArrayMap<T> bp(backprop_row, c);
  bp = logits - logits.maxCoeff();  // the shifted logits, for now
  const T sum_exp = bp.exp().sum();
  *loss = labels.Loss(bp, std::log(sum_exp));
  bp = bp.exp() / sum_exp;
  labels.Subtract(bp);
}

// `t`, a [rows or 1, cols or 1] matrix, as [rows, cols] (itself when it is).
template <typename T>
Tensor Broadcast2D(const Tensor& t, int64_t rows, int64_t cols) {
  if (t.dim_size(0) == rows && t.dim_size(1) == cols) return t;
  Tensor out(t.dtype(), TensorShape({rows, cols}));
  const T* in = t.data<T>();
  T* o = out.data<T>();
  const bool each_row = t.dim_size(0) == rows, each_col = t.dim_size(1) == cols;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      o[r * cols + c] = in[(each_row ? r : 0) * t.dim_size(1) + (each_col ? c : 0)];
    }
  }
  return out;
}

template <typename T>
class SoftmaxXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& logits_in = ctx->input(0);
    const Tensor& labels_in = ctx->input(1);
    // Matrices that broadcast against each other, as TensorFlow's (BCast).
    auto dim = [](int64_t a, int64_t b) { return a == b || b == 1 ? a : a == 1 ? b : -1; };
    const int64_t rows = logits_in.dims() == 2 && labels_in.dims() == 2
                             ? dim(logits_in.dim_size(0), labels_in.dim_size(0))
                             : -1;
    const int64_t cols = rows < 0 ? -1 : dim(logits_in.dim_size(1), labels_in.dim_size(1));
    if (cols < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "logits and labels must be broadcastable matrices: logits ",
          logits_in.shape().DebugString(), ", labels ", labels_in.shape().DebugString()));
    }
    const Tensor logits = Broadcast2D<T>(logits_in, rows, cols);
    const Tensor labels = Broadcast2D<T>(labels_in, rows, cols);
    const int64_t b = logits.dim_size(0), c = logits.dim_size(1);
    Tensor *loss, *backprop;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({b}), &loss));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, logits.shape(), &backprop));
    if (c == 0) {
      std::fill(loss->data<T>(), loss->data<T>() + b, T(0));
      return absl::OkStatus();
    }
    // Dense labels: loss = sum(labels * (log(sum_exp) - shifted)).
    struct DenseLabels {
      const T* row;
      int64_t c;
      T Loss(const ArrayMap<T>& shifted, T log_sum_exp) const {
        return (ConstArrayMap<T>(row, c) * (log_sum_exp - shifted)).sum();
      }
      void Subtract(ArrayMap<T>& bp) const { bp -= ConstArrayMap<T>(row, c); }
    };
    const T* lp = logits.data<T>();
    const T* yp = labels.data<T>();
    T* lossp = loss->data<T>();
    T* bpp = backprop->data<T>();
    ForEachRow(ctx, b, c, sizeof(T), 2 * kExpCost<T> + 6, [&](int64_t r) {
      XentRow(lp + r * c, c, lossp + r, bpp + r * c, DenseLabels{yp + r * c, c});
    });
    return absl::OkStatus();
  }
};

template <typename T>
class SparseSoftmaxXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    if (logits.dims() != 2 || labels.dims() != 1 || labels.dim_size(0) != logits.dim_size(0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "logits must be [batch, classes] and labels [batch]: logits ",
          logits.shape().DebugString(), ", labels ", labels.shape().DebugString()));
    }
    const int64_t b = logits.dim_size(0), c = logits.dim_size(1);
    std::vector<int64_t> label(b);
    for (int64_t i = 0; i < b; ++i) {
      label[i] = labels.dtype() == DT_INT32 ? labels.data<int32_t>()[i] : labels.data<int64_t>()[i];
      if (label[i] < 0 || label[i] >= c) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Received a label value of ", label[i], " which is outside the valid range of [0, ",
            c, ").  Label values: example ", i));
      }
    }
    Tensor *loss, *backprop;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({b}), &loss));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, logits.shape(), &backprop));
    if (c == 0) return absl::OkStatus();  // then b is 0 too: no label is valid
    // One label per row: loss = log(sum_exp) - shifted[label], as
    // TensorFlow computes it (no product with a one-hot row, so a class
    // whose logit is -inf does not make the loss NaN).
    struct SparseLabel {
      int64_t label;
      T Loss(const ArrayMap<T>& shifted, T log_sum_exp) const {
        return log_sum_exp - shifted[label];
      }
      void Subtract(ArrayMap<T>& bp) const { bp[label] -= T(1); }
    };
    const T* lp = logits.data<T>();
    T* lossp = loss->data<T>();
    T* bpp = backprop->data<T>();
    ForEachRow(ctx, b, c, sizeof(T), 2 * kExpCost<T> + 4, [&](int64_t r) {
      XentRow(lp + r * c, c, lossp + r, bpp + r * c, SparseLabel{label[r]});
    });
    return absl::OkStatus();
  }
};

// TensorFlow's InTopKV2: row b is in when fewer than k predictions are
// strictly greater than the target's; false for a target out of range or
// a non-finite prediction.
template <typename Index>
class InTopKOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& p = ctx->input(0);
    const Tensor& targets = ctx->input(1);
    const Tensor& k_in = ctx->input(2);
    if (p.dims() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("predictions must be 2-dimensional, got ", p.shape().DebugString()));
    }
    if (targets.dims() != 1 || targets.dim_size(0) != p.dim_size(0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("First dimension of predictions ", p.dim_size(0),
                       " must match length of targets ", targets.shape().DebugString()));
    }
    if (k_in.NumElements() != 1) return absl::InvalidArgumentError("k must be a scalar");
    const int64_t k = static_cast<int64_t>(k_in.data<Index>()[0]);
    const int64_t rows = p.dim_size(0), classes = p.dim_size(1);
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({rows}), &out));
    const float* pred = p.data<float>();
    for (int64_t b = 0; b < rows; ++b) {
      const Index t = targets.data<Index>()[b];
      bool in = false;
      if (t >= 0 && t < classes && std::isfinite(pred[b * classes + t])) {
        const float target = pred[b * classes + t];
        int64_t more = 0;
        for (int64_t i = 0; i < classes && more < k; ++i) more += pred[b * classes + i] > target;
        in = more < k;
      }
      out->data<bool>()[b] = in;
    }
    return absl::OkStatus();
  }
};

// x viewed as [outer, channels, inner]: NHWC is [N*H*W, C, 1], NCHW is
// [N, C, H*W] (and the same for 5-D data).
struct ChannelLayout {
  int64_t outer = 1, channels = 1, inner = 1;
  int64_t per_channel() const { return outer * inner; }
  int64_t at(int64_t o, int64_t c, int64_t i) const { return (o * channels + c) * inner + i; }
};

absl::StatusOr<ChannelLayout> BatchNormLayout(const Tensor& x, bool channels_first,
                                              const std::string& op) {
  if (x.dims() != 4 && x.dims() != 5) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": input must be 4- or 5-dimensional, got ", x.shape().DebugString()));
  }
  ChannelLayout l;
  const int c = channels_first ? 1 : x.dims() - 1;
  l.channels = x.dim_size(c);
  for (int d = 0; d < c; ++d) l.outer *= x.dim_size(d);
  for (int d = c + 1; d < x.dims(); ++d) l.inner *= x.dim_size(d);
  return l;
}

absl::Status CheckChannelVector(const Tensor& t, int64_t channels, const std::string& op,
                                const char* name) {
  if (t.dims() != 1 || t.dim_size(0) != channels) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": ", name, " must be a vector of ",
                                                   channels, " (the channels of x), got ",
                                                   t.shape().DebugString()));
  }
  return absl::OkStatus();
}

// Batch norm's loops over a ChannelLayout, on the step's intra-op threads.
// Runs f(k, c) for every element: k its flat index, c its channel.
template <typename F>
void ForEachElement(const OpKernelContext* ctx, const ChannelLayout& l, double cycles, F f) {
  if (l.inner == 1) {  // NHWC: rows of C channels
    const int64_t C = l.channels;
    ctx->ParallelFor(l.outer, 8.0 * C, 4.0 * C, cycles * C, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        for (int64_t c = 0; c < C; ++c) f(o * C + c, c);
      }
    });
    return;
  }
  const int64_t inner = l.inner;  // NCHW: runs of one channel
  ctx->ParallelFor(l.outer * l.channels, 8.0 * inner, 4.0 * inner, cycles * inner,
                   [&](int64_t begin, int64_t end) {
                     for (int64_t r = begin; r < end; ++r) {
                       const int64_t c = r % l.channels;
                       for (int64_t k = r * inner; k < (r + 1) * inner; ++k) f(k, c);
                     }
                   });
}

// Per channel, the sums over all elements of the N values f(k, c) gives:
// sums[n * C + c]. Each thread sums a fixed share of the rows, in float over
// blocks of kBlock rows (so the loops vectorize) added up in double; the
// shares are then added in order, so the result does not depend on timing.
template <int N, typename F>
std::vector<double> ChannelSums(const OpKernelContext* ctx, const ChannelLayout& l, F f) {
  constexpr int64_t kBlock = 64;
  const int64_t C = l.channels;
  const int64_t rows = l.inner == 1 ? l.outer : l.outer * C;
  const int64_t shards = std::max<int64_t>(1, std::min<int64_t>(ctx->intra_op_threads(), rows));
  std::vector<double> partial(shards * N * C, 0.0);
  ctx->ParallelFor(shards, 0, 0, 1e9, [&](int64_t first, int64_t last) {
    std::vector<float> block(N * C);
    for (int64_t s = first; s < last; ++s) {
      double* sums = &partial[s * N * C];
      const int64_t begin = rows * s / shards, end = rows * (s + 1) / shards;
      if (l.inner == 1) {
        for (int64_t b = begin; b < end; b += kBlock) {
          std::fill(block.begin(), block.end(), 0.0f);
          for (int64_t o = b; o < std::min(end, b + kBlock); ++o) {
            for (int64_t c = 0; c < C; ++c) {
              const std::array<float, N> v = f(o * C + c, c);
              for (int n = 0; n < N; ++n) block[n * C + c] += v[n];
            }
          }
          for (int64_t j = 0; j < N * C; ++j) sums[j] += block[j];
        }
        continue;
      }
      for (int64_t r = begin; r < end; ++r) {
        const int64_t c = r % C;
        for (int64_t b = r * l.inner; b < (r + 1) * l.inner; b += kBlock) {
          std::array<float, N> run{};
          for (int64_t k = b; k < std::min((r + 1) * l.inner, b + kBlock); ++k) {
            const std::array<float, N> v = f(k, c);
            for (int n = 0; n < N; ++n) run[n] += v[n];
          }
          for (int n = 0; n < N; ++n) sums[n * C + c] += run[n];
        }
      }
    }
  });
  std::vector<double> sums(N * C, 0.0);
  for (int64_t s = 0; s < shards; ++s) {
    for (int64_t j = 0; j < N * C; ++j) sums[j] += partial[s * N * C + j];
  }
  return sums;
}

// TensorFlow's FusedBatchNorm, V2 and V3 on float data. Training: the batch
// statistics normalize x, batch_variance is their unbiased variance (or,
// with exponential_avg_factor < 1, the running averages with the given
// mean and variance), the reserve spaces keep the batch mean and biased
// variance for the gradient. Inference: the given statistics normalize x.
// Sums accumulate in double.
class FusedBatchNormOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("epsilon", &epsilon_));
    MG_RETURN_IF_ERROR(c->GetAttr("is_training", &training_));
    if (c->def().attr().count("exponential_avg_factor")) {
      MG_RETURN_IF_ERROR(c->GetAttr("exponential_avg_factor", &factor_));
    }
    std::string format;
    MG_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
    channels_first_ = absl::StartsWith(format, "NC");
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    MG_ASSIGN_OR_RETURN(ChannelLayout l, BatchNormLayout(x, channels_first_, type_string()));
    const int64_t C = l.channels;
    MG_RETURN_IF_ERROR(CheckChannelVector(ctx->input(1), C, type_string(), "scale"));
    MG_RETURN_IF_ERROR(CheckChannelVector(ctx->input(2), C, type_string(), "offset"));
    const bool need_stats = !training_ || factor_ != 1.0f;
    if (need_stats) {
      MG_RETURN_IF_ERROR(CheckChannelVector(ctx->input(3), C, type_string(), "mean"));
      MG_RETURN_IF_ERROR(CheckChannelVector(ctx->input(4), C, type_string(), "variance"));
    }
    const float* in = x.data<float>();
    const float* scale = ctx->input(1).data<float>();
    const float* offset = ctx->input(2).data<float>();
    std::vector<double> mean(C), var(C);  // what normalizes x (variance biased)
    const int64_t n = l.per_channel();
    if (training_) {
      const double inv_n = 1.0 / std::max<int64_t>(n, 1);
      mean = ChannelSums<1>(ctx, l,
                            [in](int64_t k, int64_t) { return std::array<float, 1>{in[k]}; });
      for (double& m : mean) m *= inv_n;
      std::vector<float> mean_f(mean.begin(), mean.end());
      var = ChannelSums<1>(ctx, l, [in, &mean_f](int64_t k, int64_t c) {
        const float d = in[k] - mean_f[c];
        return std::array<float, 1>{d * d};
      });
      for (double& v : var) v *= inv_n;
    } else {
      for (int64_t c = 0; c < C; ++c) {
        mean[c] = ctx->input(3).data<float>()[c];
        var[c] = ctx->input(4).data<float>()[c];
      }
    }
    Tensor* y;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &y));
    std::vector<float> mul(C), add(C);
    for (int64_t c = 0; c < C; ++c) {
      mul[c] = static_cast<float>(scale[c] / std::sqrt(var[c] + epsilon_));
      add[c] = static_cast<float>(offset[c] - mean[c] * mul[c]);
    }
    float* out = y->data<float>();
    ForEachElement(ctx, l, 2, [&](int64_t k, int64_t c) { out[k] = in[k] * mul[c] + add[c]; });
    Tensor* outs[5];
    for (int k = 1; k <= 4; ++k) {
      MG_RETURN_IF_ERROR(ctx->allocate_output(k, TensorShape({C}), &outs[k]));
    }
    const double bessel = n > 1 ? static_cast<double>(n) / (n - 1) : 1.0;
    for (int64_t c = 0; c < C; ++c) {
      double batch_mean = mean[c], batch_var = training_ ? var[c] * bessel : var[c];
      if (training_ && factor_ != 1.0f) {
        batch_mean = (1.0 - factor_) * ctx->input(3).data<float>()[c] + factor_ * batch_mean;
        batch_var = (1.0 - factor_) * ctx->input(4).data<float>()[c] + factor_ * batch_var;
      }
      outs[1]->data<float>()[c] = static_cast<float>(batch_mean);
      outs[2]->data<float>()[c] = static_cast<float>(batch_var);
      outs[3]->data<float>()[c] = static_cast<float>(mean[c]);
      outs[4]->data<float>()[c] = static_cast<float>(var[c]);
    }
    if (ctx->num_outputs() == 6) {
      Tensor* unused;
      MG_RETURN_IF_ERROR(ctx->allocate_output(5, TensorShape({0}), &unused));
    }
    return absl::OkStatus();
  }

 private:
  float epsilon_ = 1e-4f;
  float factor_ = 1.0f;
  bool training_ = true;
  bool channels_first_ = false;
};

// Its gradient, from the reserve spaces (the batch mean and biased
// variance; in inference the population statistics).
class FusedBatchNormGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("epsilon", &epsilon_));
    MG_RETURN_IF_ERROR(c->GetAttr("is_training", &training_));
    std::string format;
    MG_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
    channels_first_ = absl::StartsWith(format, "NC");
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& dy_t = ctx->input(0);
    const Tensor& x_t = ctx->input(1);
    if (dy_t.shape() != x_t.shape()) {
      return absl::InvalidArgumentError(
          absl::StrCat(type_string(), ": y_backprop ", dy_t.shape().DebugString(), " and x ",
                       x_t.shape().DebugString(), " must have the same shape"));
    }
    MG_ASSIGN_OR_RETURN(ChannelLayout l, BatchNormLayout(x_t, channels_first_, type_string()));
    const int64_t C = l.channels;
    MG_RETURN_IF_ERROR(CheckChannelVector(ctx->input(2), C, type_string(), "scale"));
    MG_RETURN_IF_ERROR(CheckChannelVector(ctx->input(3), C, type_string(), "reserve_space_1"));
    MG_RETURN_IF_ERROR(CheckChannelVector(ctx->input(4), C, type_string(), "reserve_space_2"));
    const float* dy = dy_t.data<float>();
    const float* x = x_t.data<float>();
    const float* scale = ctx->input(2).data<float>();
    const float* mean = ctx->input(3).data<float>();
    const float* var = ctx->input(4).data<float>();
    const int64_t n = l.per_channel();
    std::vector<double> inv_std(C);
    for (int64_t c = 0; c < C; ++c) inv_std[c] = 1.0 / std::sqrt(double{var[c]} + epsilon_);
    const std::vector<double> sums = ChannelSums<2>(ctx, l, [=](int64_t k, int64_t c) {
      return std::array<float, 2>{dy[k], dy[k] * (x[k] - mean[c])};
    });
    const double* sum_dy = sums.data();
    const double* sum_dy_xc = sums.data() + C;
    Tensor *dx_t, *dscale, *doffset, *r1, *r2;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, x_t.shape(), &dx_t));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({C}), &dscale));
    MG_RETURN_IF_ERROR(ctx->allocate_output(2, TensorShape({C}), &doffset));
    MG_RETURN_IF_ERROR(ctx->allocate_output(3, TensorShape({0}), &r1));
    MG_RETURN_IF_ERROR(ctx->allocate_output(4, TensorShape({0}), &r2));
    float* dx = dx_t->data<float>();
    // dx = dy * a[c] + (x - mean[c]) * b[c] + d[c], per channel constants.
    std::vector<float> a(C), b(C, 0.0f), d(C, 0.0f);
    for (int64_t c = 0; c < C; ++c) {
      a[c] = static_cast<float>(scale[c] * inv_std[c]);
      if (training_ && n > 0) {
        b[c] = static_cast<float>(-a[c] * inv_std[c] * inv_std[c] * sum_dy_xc[c] / n);
        d[c] = static_cast<float>(-a[c] * sum_dy[c] / n);
      }
    }
    ForEachElement(ctx, l, 4, [&](int64_t k, int64_t c) {
      dx[k] = dy[k] * a[c] + (x[k] - mean[c]) * b[c] + d[c];
    });
    for (int64_t c = 0; c < C; ++c) {
      dscale->data<float>()[c] = static_cast<float>(sum_dy_xc[c] * inv_std[c]);
      doffset->data<float>()[c] = static_cast<float>(sum_dy[c]);
    }
    return absl::OkStatus();
  }

 private:
  float epsilon_ = 1e-4f;
  bool training_ = true;
  bool channels_first_ = false;
};

// TensorFlow's LRN and LRNGrad over the last dimension of 4-D float data.
struct LrnParams {
  int64_t radius = 5;
  float bias = 1, alpha = 1, beta = 0.5f;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("depth_radius", &radius));
    MG_RETURN_IF_ERROR(c->GetAttr("bias", &bias));
    MG_RETURN_IF_ERROR(c->GetAttr("alpha", &alpha));
    MG_RETURN_IF_ERROR(c->GetAttr("beta", &beta));
    if (radius < 0) {
      return absl::InvalidArgumentError(absl::StrCat("depth_radius must be >= 0, got ", radius));
    }
    return absl::OkStatus();
  }
  // bias + alpha * the sum of squares of row[begin..end), end exclusive.
  double Norm(const float* row, int64_t i, int64_t depth) const {
    double sum = 0;
    for (int64_t k = std::max<int64_t>(0, i - radius); k < std::min(depth, i + radius + 1); ++k) {
      sum += double{row[k]} * row[k];
    }
    return bias + alpha * sum;
  }
};

class LrnOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return p_.Init(c); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    if (x.dims() != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat("input must be 4-dimensional, got ", x.shape().DebugString()));
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &out));
    const int64_t depth = x.dim_size(3);
    const int64_t rows = depth == 0 ? 0 : x.NumElements() / depth;
    for (int64_t r = 0; r < rows; ++r) {
      const float* in = x.data<float>() + r * depth;
      float* o = out->data<float>() + r * depth;
      for (int64_t i = 0; i < depth; ++i) {
        o[i] = static_cast<float>(in[i] * std::pow(p_.Norm(in, i, depth), -double{p_.beta}));
      }
    }
    return absl::OkStatus();
  }

 private:
  LrnParams p_;
};

class LrnGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return p_.Init(c); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    const Tensor& y = ctx->input(2);
    if (x.dims() != 4 || dy.shape() != x.shape() || y.shape() != x.shape()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "LRNGrad inputs must be 4-dimensional and of one shape, got ", dy.shape().DebugString(),
          ", ", x.shape().DebugString(), ", ", y.shape().DebugString()));
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &out));
    const int64_t depth = x.dim_size(3);
    const int64_t rows = depth == 0 ? 0 : x.NumElements() / depth;
    std::vector<double> acc(depth);
    for (int64_t r = 0; r < rows; ++r) {
      const float* in = x.data<float>() + r * depth;
      const float* o = y.data<float>() + r * depth;
      const float* g = dy.data<float>() + r * depth;
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t i = 0; i < depth; ++i) {
        const double norm = p_.Norm(in, i, depth);
        const int64_t end = std::min(depth, i + p_.radius + 1);
        for (int64_t k = std::max<int64_t>(0, i - p_.radius); k < end; ++k) {
          double d = -2.0 * p_.alpha * p_.beta * in[k] * o[i] / norm;
          if (k == i) d += std::pow(norm, -double{p_.beta});
          acc[k] += d * g[i];
        }
      }
      for (int64_t k = 0; k < depth; ++k)
        out->data<float>()[r * depth + k] = static_cast<float>(acc[k]);
    }
    return absl::OkStatus();
  }

 private:
  LrnParams p_;
};

// TopK, TopKV2 and ApproxTopK: per row of the last dimension, the k
// largest values in descending order, ties broken by the lower index
// (TensorFlow's order); NaN counts as larger than any number, so the order
// is total. `sorted` false gives the same order (TensorFlow leaves it
// unspecified). ApproxTopK is exact on a CPU, as TensorFlow's kernel there
// is TopK's (its recall_target and aggregation attrs change nothing).
template <typename T>
class TopKOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    if (type_string() != "TopKV2") {
      MG_RETURN_IF_ERROR(c->GetAttr("k", &k_));
    } else {
      MG_RETURN_IF_ERROR(c->GetAttr("index_type", &index_type_));
    }
    return absl::OkStatus();
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    int64_t k = k_;
    if (type_string() == "TopKV2") {
      const Tensor& kt = ctx->input(1);
      if (kt.dims() != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("k must be scalar, got shape ", kt.shape().DebugString()));
      }
      k = kt.dtype() == DT_INT64   ? *kt.data<int64_t>()
          : kt.dtype() == DT_INT16 ? *kt.data<int16_t>()
                                   : *kt.data<int32_t>();
      if (k < 0) return absl::InvalidArgumentError(absl::StrCat("Need k >= 0, got ", k));
    }
    const Tensor& in = ctx->input(0);
    if (in.dims() < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("input must be >= 1-D, got shape ", in.shape().DebugString()));
    }
    const int64_t n = in.dim_size(in.dims() - 1);
    if (n < k) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input must have at least k columns. Had ", n, ", needed ", k));
    }
    std::vector<int64_t> dims(in.shape().dim_sizes().begin(), in.shape().dim_sizes().end());
    dims.back() = k;
    const TensorShape shape(dims);
    Tensor *values, *indices;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &values));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, shape, &indices));
    if (k == 0 || n == 0) return absl::OkStatus();
    const int64_t rows = in.NumElements() / n;
    const T* x = in.data<T>();
    ctx->ParallelFor(rows, n * sizeof(T), k * (sizeof(T) + 8), n * 8.0,
                     [&](int64_t begin, int64_t end) {
                       std::vector<int64_t> order(n);
                       for (int64_t r = begin; r < end; ++r) {
                         const T* row = x + r * n;
                         std::iota(order.begin(), order.end(), int64_t{0});
                         std::partial_sort(order.begin(), order.begin() + k, order.end(),
                                           [row](int64_t a, int64_t b) {
                                             return Before(row[a], row[b], a, b);
                                           });
                         for (int64_t j = 0; j < k; ++j) {
                           values->data<T>()[r * k + j] = row[order[j]];
                           SetIndex(indices, r * k + j, order[j]);
                         }
                       }
                     });
    return absl::OkStatus();
  }

 private:
  // Whether value a (at index i) comes before value b (at index j).
  static bool Before(T a, T b, int64_t i, int64_t j) {
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, half> ||
                  std::is_same_v<T, bfloat16>) {
      const bool a_nan = Eigen::numext::isnan(a), b_nan = Eigen::numext::isnan(b);
      if (a_nan || b_nan) return a_nan && (!b_nan || i < j);
    }
    if (b < a) return true;
    if (a < b) return false;
    return i < j;
  }
  static void SetIndex(Tensor* t, int64_t at, int64_t v) {
    switch (t->dtype()) {
      case DT_INT16:
        t->data<int16_t>()[at] = static_cast<int16_t>(v);
        break;
      case DT_INT64:
        t->data<int64_t>()[at] = v;
        break;
      default:
        t->data<int32_t>()[at] = static_cast<int32_t>(v);
    }
  }

  int64_t k_ = 0;
  DataType index_type_ = DT_INT32;
};

// (t - m) / sqrt(v + epsilon) [* gamma] + beta over the last dimension.
template <typename T>
class BatchNormGlobalOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("variance_epsilon", &epsilon_));
    return c->GetAttr("scale_after_normalization", &scale_);
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& t = ctx->input(0);
    if (t.dims() != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat("input must be 4-dimensional", t.shape().DebugString()));
    }
    const int64_t depth = t.dim_size(3);
    static constexpr const char* kNames[] = {"mean", "variance", "beta", "gamma"};
    for (int i = 1; i < 5; ++i) {
      const Tensor& v = ctx->input(i);
      if (v.dims() != 1) {
        return absl::InvalidArgumentError(absl::StrCat(kNames[i - 1], " must be 1-dimensional",
                                                       v.shape().DebugString()));
      }
      if (v.NumElements() != depth) {
        return absl::InvalidArgumentError(
            absl::StrCat(kNames[i - 1], " must have the same number of elements as the "
                         "channels of input",
                         v.shape().DebugString(), " vs ", t.shape().DebugString()));
      }
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, t.shape(), &out));
    const T* m = ctx->input(1).data<T>();
    const T* v = ctx->input(2).data<T>();
    const T* beta = ctx->input(3).data<T>();
    const T* gamma = ctx->input(4).data<T>();
    std::vector<T> scale(depth);
    for (int64_t d = 0; d < depth; ++d) {
      scale[d] = T(1) / std::sqrt(v[d] + static_cast<T>(epsilon_));
      if (scale_) scale[d] *= gamma[d];
    }
    const T* x = t.data<T>();
    T* y = out->data<T>();
    const int64_t rows = depth == 0 ? 0 : t.NumElements() / depth;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t d = 0; d < depth; ++d) {
        y[r * depth + d] = (x[r * depth + d] - m[d]) * scale[d] + beta[d];
      }
    }
    return absl::OkStatus();
  }

 private:
  float epsilon_ = 0;
  bool scale_ = false;
};

}  // namespace

void RegisterNnKernels(KernelRegistry* r) {
  const KernelFactory top_k = TypedFactory<TopKOp, float, double, int32_t, int64_t, uint8_t,
                                           int8_t, int16_t, uint16_t, half, bfloat16>();
  r->Register("TopK", top_k);
  r->Register("TopKV2", top_k);
  // TensorFlow's CPU kernel takes the last dimension and the largest only;
  // other attrs find no kernel (NotFound, as TensorFlow's placement).
  r->Register("ApproxTopK", [top_k](OpKernelConstruction* c)
                                -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    int64_t dim;
    bool max_k;
    MG_RETURN_IF_ERROR(c->GetAttr("reduction_dimension", &dim));
    MG_RETURN_IF_ERROR(c->GetAttr("is_max_k", &max_k));
    if (dim != -1 || !max_k) {
      return absl::NotFoundError(absl::StrCat(
          "no CPU kernel for ApproxTopK with reduction_dimension ", dim, " and is_max_k ",
          max_k ? "true" : "false", ": TensorFlow's takes -1 and true only"));
    }
    return top_k(c);
  });
  r->Register("BatchNormWithGlobalNormalization",
              TypedFactory<BatchNormGlobalOp, float, double>());
  r->Register("BiasAdd", TypedFactory<BiasAddOp, float, double, int32_t, int64_t>());
  r->Register("BiasAddGrad", TypedFactory<BiasAddGradOp, float, double, int32_t, int64_t>());
  r->Register("Softmax", TypedFactory<SoftmaxFor<false>::Op, float, double>());
  r->Register("LogSoftmax", TypedFactory<SoftmaxFor<true>::Op, float, double>());
  r->Register("SoftmaxCrossEntropyWithLogits", TypedFactory<SoftmaxXentOp, float, double>());
  r->Register("InTopKV2", TypedFactory<InTopKOp, int32_t, int64_t>());
  r->Register("LRN", MakeFactory<LrnOp>());
  r->Register("LRNGrad", MakeFactory<LrnGradOp>());
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}) {
    r->Register(op, MakeFactory<FusedBatchNormOp>());
  }
  for (const char* op : {"FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"}) {
    r->Register(op, MakeFactory<FusedBatchNormGradOp>());
  }
  r->Register("SparseSoftmaxCrossEntropyWithLogits",
              TypedFactory<SparseSoftmaxXentOp, float, double>());
}

}  // namespace kernels_internal
}  // namespace minigraph
