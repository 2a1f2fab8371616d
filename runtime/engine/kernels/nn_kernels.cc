// BiasAdd, Softmax, LogSoftmax and the cross-entropy losses.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/tensor_types.h"
#include "runtime/engine/kernels/internal/eigen_util.h"
#include "runtime/engine/kernels/standard_kernels.h"

namespace minigraph {
namespace {

using Index = Eigen::DenseIndex;

template <typename T>
class BiasAddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    if (x.dims() < 2 || bias.dims() != 1 || bias.dim_size(0) != x.dim_size(x.dims() - 1)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "BiasAdd needs a bias vector matching the last dimension of the input; got input ",
          x.shape().DebugString(), " and bias ", bias.shape().DebugString()));
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &out));
    const Index c = bias.dim_size(0);
    const Index rows = c == 0 ? 0 : x.NumElements() / c;
    if (rows * c == 0) return absl::OkStatus();
    auto b = bias.shaped<T, 2>({1, c}).broadcast(Eigen::array<Index, 2>{rows, 1});
    Evaluate(ctx, out->shaped<T, 2>({rows, c}), x.shaped<T, 2>({rows, c}) + b);
    return absl::OkStatus();
  }
};

template <typename T>
class BiasAddGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& g = ctx->input(0);
    if (g.dims() < 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("BiasAddGrad input must have rank >= 2, got ", g.shape().DebugString()));
    }
    const Index c = g.dim_size(g.dims() - 1);
    const Index rows = c == 0 ? 0 : g.NumElements() / c;
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({c}), &out));
    if (rows == 0) {
      out->flat<T>().setZero();
      return absl::OkStatus();
    }
    Evaluate(ctx, out->flat<T>(), g.shaped<T, 2>({rows, c}).sum(Eigen::array<int, 1>{0}));
    return absl::OkStatus();
  }
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
      const Index c = x.dim_size(x.dims() - 1);
      const Index rows = c == 0 ? 0 : x.NumElements() / c;
      if (rows == 0) return absl::OkStatus();
      auto logits = x.shaped<T, 2>({rows, c});
      auto y = out->shaped<T, 2>({rows, c});
      const Eigen::array<int, 1> along_class{1};
      const Eigen::array<Index, 2> by_class{1, c};
      auto shifted = logits - logits.maximum(along_class).reshape(Eigen::array<Index, 2>{rows, 1})
                                  .broadcast(by_class);
      Evaluate(ctx, y, shifted);
      if (kLog) {
        auto log_sum = y.exp().sum(along_class).log().reshape(Eigen::array<Index, 2>{rows, 1});
        Tensor tmp(DataTypeToEnum<T>::value, TensorShape({rows, 1}));
        Evaluate(ctx, tmp.matrix<T>(), log_sum);
        Evaluate(ctx, y, y - tmp.matrix<T>().broadcast(by_class));
      } else {
        Evaluate(ctx, y, y.exp());
        Tensor tmp(DataTypeToEnum<T>::value, TensorShape({rows, 1}));
        Evaluate(ctx, tmp.matrix<T>(), y.sum(along_class).reshape(Eigen::array<Index, 2>{rows, 1}));
        Evaluate(ctx, y, y / tmp.matrix<T>().broadcast(by_class));
      }
      return absl::OkStatus();
    }
  };
};

// Computes loss and backprop from logits and dense labels (both [B, C]).
template <typename T>
void Xent(const OpKernelContext* ctx, typename TTypes<T, 2>::Tensor logits,
          typename TTypes<T, 2>::Tensor labels, typename TTypes<T>::Vec loss,
          typename TTypes<T, 2>::Tensor backprop) {
  const Index b = logits.dimension(0), c = logits.dimension(1);
  const Eigen::array<int, 1> along_class{1};
  const Eigen::array<Index, 2> col{b, 1};
  const Eigen::array<Index, 2> by_class{1, c};
  // backprop = logits - max(logits): the shifted logits, for now.
  Evaluate(ctx, backprop, logits - logits.maximum(along_class).reshape(col).broadcast(by_class));
  Tensor sum_exp(DataTypeToEnum<T>::value, TensorShape({b, 1}));
  auto s = sum_exp.matrix<T>();
  Evaluate(ctx, s, backprop.exp().sum(along_class).reshape(col));
  // loss = sum(labels * (log(sum_exp) - shifted))
  Evaluate(ctx, loss,
           (labels * (s.log().broadcast(by_class) - backprop)).sum(along_class));
  // backprop = softmax - labels
  Evaluate(ctx, backprop, backprop.exp() / s.broadcast(by_class) - labels);
}

template <typename T>
class SoftmaxXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    if (logits.dims() != 2 || logits.shape() != labels.shape()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "logits and labels must be same-shaped matrices: logits ", logits.shape().DebugString(),
          ", labels ", labels.shape().DebugString()));
    }
    Tensor *loss, *backprop;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({logits.dim_size(0)}), &loss));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, logits.shape(), &backprop));
    if (logits.NumElements() == 0) {
      loss->flat<T>().setZero();
      return absl::OkStatus();
    }
    Xent<T>(ctx, logits.tensor<T, 2>(), labels.tensor<T, 2>(), loss->vec<T>(),
            backprop->matrix<T>());
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
    const Index b = logits.dim_size(0), c = logits.dim_size(1);
    std::vector<int64_t> label(b);
    for (Index i = 0; i < b; ++i) {
      label[i] = labels.dtype() == DT_INT32 ? labels.flat<int32_t>()(i) : labels.flat<int64_t>()(i);
      if (label[i] < 0 || label[i] >= c) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Received a label value of ", label[i], " which is outside the valid range of [0, ",
            c, ").  Label values: example ", i));
      }
    }
    Tensor dense(DataTypeToEnum<T>::value, logits.shape());
    auto d = dense.matrix<T>();
    d.setZero();
    for (Index i = 0; i < b; ++i) d(i, label[i]) = T(1);
    Tensor *loss, *backprop;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({b}), &loss));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, logits.shape(), &backprop));
    if (logits.NumElements() == 0) {
      loss->flat<T>().setZero();
      return absl::OkStatus();
    }
    Xent<T>(ctx, logits.tensor<T, 2>(), dense.tensor<T, 2>(), loss->vec<T>(),
            backprop->matrix<T>());
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

}  // namespace

void RegisterNnKernels(KernelRegistry* r) {
  r->Register("BiasAdd", TypedFactory<BiasAddOp, float, double, int32_t, int64_t>());
  r->Register("BiasAddGrad", TypedFactory<BiasAddGradOp, float, double, int32_t, int64_t>());
  r->Register("Softmax", TypedFactory<SoftmaxFor<false>::Op, float, double>());
  r->Register("LogSoftmax", TypedFactory<SoftmaxFor<true>::Op, float, double>());
  r->Register("SoftmaxCrossEntropyWithLogits", TypedFactory<SoftmaxXentOp, float, double>());
  r->Register("InTopKV2", TypedFactory<InTopKOp, int32_t, int64_t>());
  r->Register("SparseSoftmaxCrossEntropyWithLogits",
              TypedFactory<SparseSoftmaxXentOp, float, double>());
}

}  // namespace minigraph
