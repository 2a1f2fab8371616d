// Fractional max and average pooling (tf.nn.fractional_max_pool and
// fractional_avg_pool, Graham's "Fractional Max-Pooling"): rows and columns
// pooled in cells of k or k + 1 (k = floor(ratio)), their boundaries drawn
// as TensorFlow's fractional_pool_common.cc draws them from a Philox stream
// seeded by (seed, seed2) afresh at each run (random seeds per run unless
// `deterministic`): "pseudo random" boundaries ceil(alpha * (i + u)) of one
// uniform u, or the cells' sizes shuffled. `overlapping` lets a cell take
// the next cell's first row and column too. The gradients take the
// boundaries the forward op returned: the max's goes to each cell's first
// largest value, the average's is spread evenly over the cell (summed in
// double, as TensorFlow's).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/random_streams.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// The cells' boundaries along one dimension: out + 1 values from 0 to in,
// each cell k or k + 1 long.
std::vector<int64_t> PoolingSequence(int in, int out, PhiloxRandom* gen, bool pseudo_random) {
  std::vector<int64_t> diff(out);
  if (pseudo_random) {
    // u in [0, max_u) keeps every gap k or k + 1, at both ends.
    const double alpha = static_cast<double>(in) / out;
    const int k = in / out;
    const double max_u =
        std::min((k + 2) / alpha - 1, (in + 1 - k) / alpha - (out - 1));
    PhiloxRandom local = TakeSamples32(gen, 2);
    SimplePhilox random(&local);
    const double u = random.RandDouble() * max_u;
    std::vector<int64_t> cum(out + 1);
    cum[0] = 1;
    cum[out] = in + 1;
    for (int i = 1; i < out; ++i) cum[i] = static_cast<int>(std::ceil(alpha * (i + u)));
    for (int i = 0; i < out; ++i) diff[i] = cum[i + 1] - cum[i];
  } else {
    // in % out cells of k + 1, the rest k, shuffled with one sample each
    // but the last (TensorFlow's RandomShuffle).
    const int k = in / out;
    for (int i = 0; i < out; ++i) diff[i] = k + (i < in % out ? 1 : 0);
    PhiloxRandom local = TakeSamples32(gen, out);
    PhiloxSamples single(&local);
    for (int i = 0; i + 1 < out; ++i) {
      std::swap(diff[i], diff[i + single() % static_cast<uint32_t>(out - i)]);
    }
  }
  std::vector<int64_t> seq(out + 1, 0);
  for (int i = 1; i <= out; ++i) seq[i] = seq[i - 1] + diff[i - 1];
  return seq;
}

// The rows (or columns) of cell i, [first, last], within `size`.
struct Cell {
  int64_t first, last;
};
Cell CellOf(const int64_t* seq, int64_t i, bool overlapping, int64_t size) {
  return {seq[i], std::min(overlapping ? seq[i + 1] : seq[i + 1] - 1, size - 1)};
}

template <typename T>
Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> Pixel(const T* data, int64_t pixel,
                                                          int64_t depth) {
  return {data + pixel * depth, depth};
}

// The forward ops: the attrs' checks, the boundaries, and the pooling.
template <typename T, bool kMax>
class FractionalPoolOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("pooling_ratio", &ratio_));
    MG_RETURN_IF_ERROR(c->GetAttr("pseudo_random", &pseudo_random_));
    MG_RETURN_IF_ERROR(c->GetAttr("overlapping", &overlapping_));
    MG_RETURN_IF_ERROR(c->GetAttr("deterministic", &deterministic_));
    MG_RETURN_IF_ERROR(c->GetAttr("seed", &seed_));
    MG_RETURN_IF_ERROR(c->GetAttr("seed2", &seed2_));
    if (ratio_.size() != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": pooling_ratio field must specify 4 dimensions, got ",
                       ratio_.size()));
    }
    for (float r : ratio_) {
      if (!(r >= 1)) {
        return absl::InvalidArgumentError(
            absl::StrCat(Where(), ": pooling_ratio cannot be smaller than 1, got: ", r));
      }
    }
    if (ratio_[0] != 1 || ratio_[3] != 1) {
      return absl::UnimplementedError(absl::StrCat(
          Where(), ": fractional pooling is not yet supported on the batch nor channel "
                   "dimension, pooling_ratio [",
          absl::StrJoin(ratio_, ", "), "]"));
    }
    if (!deterministic_ && (seed_ != 0 || seed2_ != 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": Both seed and seed2 should be 0 if deterministic is false."));
    }
    if (deterministic_ && seed_ == 0 && seed2_ == 0) std::tie(seed_, seed2_) = FreshSeeds();
    return absl::OkStatus();
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    if (in.dims() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": tensor_in must be 4-dimensional, got ", in.shape().DebugString()));
    }
    int64_t in_size[4], out_size[4];
    for (int i = 0; i < 4; ++i) {
      in_size[i] = in.dim_size(i);
      if (in_size[i] < ratio_[i]) {
        return absl::InvalidArgumentError(absl::StrCat(
            Where(), ": Pooling ratio is higher than input dimension size for dimension ", i,
            ". Input dim size: ", in_size[i], " pooling ratio: ", ratio_[i]));
      }
      // In float, as TensorFlow's shape function and kernel divide.
      out_size[i] =
          static_cast<int>(std::floor(static_cast<float>(in_size[i]) / ratio_[i]));
    }
    if (in_size[1] > std::numeric_limits<int>::max() ||
        in_size[2] > std::numeric_limits<int>::max()) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": rows and columns must fit in int32, got ",
                       in.shape().DebugString()));
    }
    uint64_t seed = seed_, seed2 = seed2_;
    if (!deterministic_) std::tie(seed, seed2) = FreshSeeds();
    PhiloxRandom gen = PhiloxRandom::FromSeedPair(seed, seed2);
    const std::vector<int64_t> rows = PoolingSequence(
        static_cast<int>(in_size[1]), static_cast<int>(out_size[1]), &gen, pseudo_random_);
    const std::vector<int64_t> cols = PoolingSequence(
        static_cast<int>(in_size[2]), static_cast<int>(out_size[2]), &gen, pseudo_random_);
    Tensor *out, *row_seq, *col_seq;
    MG_RETURN_IF_ERROR(ctx->allocate_output(
        0, TensorShape({out_size[0], out_size[1], out_size[2], out_size[3]}), &out));
    MG_RETURN_IF_ERROR(
        ctx->allocate_output(1, TensorShape({static_cast<int64_t>(rows.size())}), &row_seq));
    MG_RETURN_IF_ERROR(
        ctx->allocate_output(2, TensorShape({static_cast<int64_t>(cols.size())}), &col_seq));
    std::copy(rows.begin(), rows.end(), row_seq->data<int64_t>());
    std::copy(cols.begin(), cols.end(), col_seq->data<int64_t>());
    const int64_t depth = in_size[3];
    const T* x = in.data<T>();
    T* y = out->data<T>();
    Eigen::Array<T, Eigen::Dynamic, 1> acc(depth);
    for (int64_t b = 0; b < out_size[0]; ++b) {
      for (int64_t r = 0; r < out_size[1]; ++r) {
        const Cell rc = CellOf(rows.data(), r, overlapping_, in_size[1]);
        for (int64_t c = 0; c < out_size[2]; ++c) {
          const Cell cc = CellOf(cols.data(), c, overlapping_, in_size[2]);
          acc.setConstant(kMax ? Eigen::NumTraits<T>::lowest() : T(0));
          T count = 0;
          for (int64_t h = rc.first; h <= rc.last; ++h) {
            for (int64_t w = cc.first; w <= cc.last; ++w) {
              const auto v = Pixel(x, (b * in_size[1] + h) * in_size[2] + w, depth);
              if constexpr (kMax) {
                acc = acc.max(v);
              } else {
                acc += v;
                ++count;
              }
            }
          }
          if constexpr (!kMax) acc /= count;
          std::copy_n(acc.data(), depth, y + ((b * out_size[1] + r) * out_size[2] + c) * depth);
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  std::string Where() const { return absl::StrCat(type_string(), " '", name(), "'"); }

  static std::pair<int64_t, int64_t> FreshSeeds() {
    std::random_device device;
    auto draw = [&device] {
      return static_cast<int64_t>((uint64_t{device()} << 32) | device());
    };
    const int64_t a = draw();
    return {a, draw()};
  }

  std::vector<float> ratio_;
  bool pseudo_random_ = false, overlapping_ = false, deterministic_ = false;
  int64_t seed_ = 0, seed2_ = 0;
};

// A pooling sequence input of the gradients: a vector of at least
// `cells` + 1 boundaries, none negative.
absl::Status CheckSequence(const Tensor& seq, int64_t cells, const char* what,
                           const std::string& where) {
  if (seq.dims() != 1 || seq.NumElements() < cells + 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", what, " must be a vector of at least ", cells + 1,
                     " elements for ", cells, " cells, got ", seq.shape().DebugString()));
  }
  const int64_t* s = seq.data<int64_t>();
  for (int64_t i = 0; i <= cells; ++i) {
    if (s[i] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": ", what, " values must not be negative, got ", s[i], " at ", i));
    }
  }
  return absl::OkStatus();
}

// FractionalMaxPoolGrad(orig_input, orig_output, out_backprop, row_seq,
// col_seq): the pooling again, remembering where each maximum came from
// (the first of equals), checked against orig_output, and out_backprop
// added there.
template <typename T>
class FractionalMaxPoolGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("overlapping", &overlapping_); }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    const Tensor& orig_out = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    const std::string where = absl::StrCat(type_string(), " '", name(), "'");
    for (const auto& [t, what] : {std::pair<const Tensor*, const char*>{&in, "orig_input"},
                                  {&orig_out, "orig_output"}}) {
      if (t->dims() != 4 || t->NumElements() == 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": ", what, " must be a non-empty tensor of rank 4, got ",
            t->shape().DebugString()));
      }
    }
    if (orig_out.dim_size(0) != in.dim_size(0) || orig_out.dim_size(3) != in.dim_size(3) ||
        dy.shape() != orig_out.shape()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": orig_output ", orig_out.shape().DebugString(),
          " must have orig_input's batch and depth (", in.shape().DebugString(),
          ") and out_backprop's shape (", dy.shape().DebugString(), ")"));
    }
    const int64_t rows_out = orig_out.dim_size(1), cols_out = orig_out.dim_size(2);
    MG_RETURN_IF_ERROR(CheckSequence(ctx->input(3), rows_out, "row_pooling_sequence", where));
    MG_RETURN_IF_ERROR(CheckSequence(ctx->input(4), cols_out, "col_pooling_sequence", where));
    const int64_t* rows = ctx->input(3).data<int64_t>();
    const int64_t* cols = ctx->input(4).data<int64_t>();
    const int64_t batch = in.dim_size(0), height = in.dim_size(1), width = in.dim_size(2),
                  depth = in.dim_size(3);
    Tensor* dx;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, in.shape(), &dx));
    T* g = dx->data<T>();
    std::fill_n(g, dx->NumElements(), T(0));
    const T* x = in.data<T>();
    const T* y = orig_out.data<T>();
    const T* dyp = dy.data<T>();
    std::vector<T> best(depth);
    std::vector<int64_t> arg(depth);
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t r = 0; r < rows_out; ++r) {
        const Cell rc = CellOf(rows, r, overlapping_, height);
        for (int64_t c = 0; c < cols_out; ++c) {
          const Cell cc = CellOf(cols, c, overlapping_, width);
          std::fill(best.begin(), best.end(), Eigen::NumTraits<T>::lowest());
          std::fill(arg.begin(), arg.end(), -1);
          for (int64_t h = rc.first; h <= rc.last; ++h) {
            for (int64_t w = cc.first; w <= cc.last; ++w) {
              const int64_t at = ((b * height + h) * width + w) * depth;
              for (int64_t d = 0; d < depth; ++d) {
                if (best[d] < x[at + d] || arg[d] < 0) {
                  best[d] = x[at + d];
                  arg[d] = at + d;
                }
              }
            }
          }
          const int64_t o = ((b * rows_out + r) * cols_out + c) * depth;
          for (int64_t d = 0; d < depth; ++d) {
            if (arg[d] < 0 || !(best[d] == y[o + d])) {
              return absl::InvalidArgumentError(absl::StrCat(
                  where, ": orig_output is not the pooling of orig_input over the given "
                         "sequences at output element ",
                  o + d));
            }
            g[arg[d]] += dyp[o + d];
          }
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  bool overlapping_ = false;
};

// FractionalAvgPoolGrad(orig_input_tensor_shape, out_backprop, row_seq,
// col_seq): each cell's gradient divided evenly among its elements.
template <typename T>
class FractionalAvgPoolGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("overlapping", &overlapping_); }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& shape = ctx->input(0);
    const Tensor& dy = ctx->input(1);
    const std::string where = absl::StrCat(type_string(), " '", name(), "'");
    if (shape.dims() != 1 || shape.NumElements() != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": original input tensor shape must be 1-dimensional and 4 "
                              "elements, got ",
                       shape.shape().DebugString()));
    }
    const int64_t* dims = shape.data<int64_t>();
    MG_ASSIGN_OR_RETURN(TensorShape in_shape,
                        TensorShape::Build(absl::Span<const int64_t>(dims, 4)));
    if (dy.dims() != 4 || dy.dim_size(0) != dims[0] || dy.dim_size(3) != dims[3]) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": out_backprop ", dy.shape().DebugString(),
          " must be of rank 4 with the original input's batch and depth, ",
          in_shape.DebugString()));
    }
    const int64_t rows_out = dy.dim_size(1), cols_out = dy.dim_size(2);
    MG_RETURN_IF_ERROR(CheckSequence(ctx->input(2), rows_out, "row_pooling_sequence", where));
    MG_RETURN_IF_ERROR(CheckSequence(ctx->input(3), cols_out, "col_pooling_sequence", where));
    const int64_t* rows = ctx->input(2).data<int64_t>();
    const int64_t* cols = ctx->input(3).data<int64_t>();
    Tensor* dx;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, in_shape, &dx));
    const int64_t batch = dims[0], height = dims[1], width = dims[2], depth = dims[3];
    std::vector<double> acc(dx->NumElements(), 0.0);
    const T* dyp = dy.data<T>();
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t r = 0; r < rows_out; ++r) {
        const Cell rc = CellOf(rows, r, overlapping_, height);
        for (int64_t c = 0; c < cols_out; ++c) {
          const Cell cc = CellOf(cols, c, overlapping_, width);
          const int64_t n = (rc.last - rc.first + 1) * (cc.last - cc.first + 1);
          const int64_t o = ((b * rows_out + r) * cols_out + c) * depth;
          for (int64_t h = rc.first; h <= rc.last; ++h) {
            for (int64_t w = cc.first; w <= cc.last; ++w) {
              double* a = acc.data() + ((b * height + h) * width + w) * depth;
              for (int64_t d = 0; d < depth; ++d) a[d] += static_cast<double>(dyp[o + d]) / n;
            }
          }
        }
      }
    }
    T* g = dx->data<T>();
    for (size_t i = 0; i < acc.size(); ++i) g[i] = static_cast<T>(acc[i]);
    return absl::OkStatus();
  }

 private:
  bool overlapping_ = false;
};

template <typename T>
using FractionalMaxPoolOp = FractionalPoolOp<T, true>;
template <typename T>
using FractionalAvgPoolOp = FractionalPoolOp<T, false>;

}  // namespace

void RegisterFractionalPoolKernels(KernelRegistry* r) {
  r->Register("FractionalMaxPool",
              TypedFactory<FractionalMaxPoolOp, int32_t, int64_t, float, double>());
  r->Register("FractionalAvgPool",
              TypedFactory<FractionalAvgPoolOp, int32_t, int64_t, float, double>());
  r->Register("FractionalMaxPoolGrad",
              TypedFactory<FractionalMaxPoolGradOp, int32_t, int64_t, float, double>());
  r->Register("FractionalAvgPoolGrad",
              TypedFactory<FractionalAvgPoolGradOp, int32_t, int64_t, float, double>());
}

}  // namespace kernels_internal
}  // namespace minigraph
