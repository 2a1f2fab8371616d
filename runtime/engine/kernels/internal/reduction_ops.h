// Sum, Mean, Max, Min, Prod, EuclideanNorm, All and Any over any set of axes: one kernel
// template, instantiated per reducer in reduction_*_kernels.cc.
//
// Adjacent axes that are all reduced or all kept are merged first, so the
// input is a few alternating groups of reduced and kept dimensions, whose
// last group is contiguous in memory. The loops are written by hand rather
// than as Eigen reductions: Eigen compiled every reducer and dtype once per
// rank and device, which made these files the slowest of the build. The
// innermost loop (a contiguous row reduced to one value, or a row combined
// into a row of the output) is vectorized with `omp simd`.
#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_REDUCTION_OPS_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_REDUCTION_OPS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "runtime/engine/kernel_registry.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/kernels/internal/wrapping.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {

// The reducers: an identity, an associative combination, and what becomes
// of the combined value given how many elements went into it.
namespace reducers {

template <typename T>
struct Sum {
  static T Identity() { return T(0); }
  static T Combine(T a, T b) { return WrapAdd(a, b); }
  static T Finalize(T acc, int64_t) { return acc; }
};

template <typename T>
struct Mean : Sum<T> {
  // An empty float mean is NaN, as TensorFlow's; an empty integer mean is
  // 0 rather than a division by zero.
  static T Finalize(T acc, int64_t count) {
    if constexpr (std::is_integral_v<T>) {
      return count == 0 ? T(0) : static_cast<T>(acc / static_cast<T>(count));
    } else {
      return acc / static_cast<T>(count);
    }
  }
};

template <typename T>
struct Prod {
  static T Identity() { return T(1); }
  static T Combine(T a, T b) { return WrapMul(a, b); }
  static T Finalize(T acc, int64_t) { return acc; }
};

// Max and Min propagate NaN, as TensorFlow's do; an empty one is -inf or
// +inf (the lowest or highest integer).
template <typename T>
struct Max {
  static T Identity() {
    if constexpr (std::is_floating_point_v<T>) return -std::numeric_limits<T>::infinity();
    return std::numeric_limits<T>::lowest();
  }
  static T Combine(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) return a > b || a != a ? a : b;
    return a > b ? a : b;
  }
  static T Finalize(T acc, int64_t) { return acc; }
};

template <typename T>
struct Min {
  static T Identity() {
    if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::infinity();
    return std::numeric_limits<T>::max();
  }
  static T Combine(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) return a < b || a != a ? a : b;
    return a < b ? a : b;
  }
  static T Finalize(T acc, int64_t) { return acc; }
};

// EuclideanNorm: the square root of the sum of squares, each element
// squared as it comes in (Lift); an integer norm truncated, as TensorFlow's
// (and 0 where the squares' sum wrapped past the integer's range).
template <typename T>
struct EuclideanNorm : Sum<T> {
  static T Lift(T x) { return WrapMul(x, x); }
  static T Finalize(T acc, int64_t) {
    if constexpr (std::is_integral_v<T>) {
      return acc < 0 ? T(0) : static_cast<T>(std::sqrt(static_cast<double>(acc)));
    } else {
      return std::sqrt(acc);
    }
  }
};

struct All {
  static bool Identity() { return true; }
  static bool Combine(bool a, bool b) { return a && b; }
  static bool Finalize(bool acc, int64_t) { return acc; }
};

struct Any {
  static bool Identity() { return false; }
  static bool Combine(bool a, bool b) { return a || b; }
  static bool Finalize(bool acc, int64_t) { return acc; }
};

// R's value for one input element: R::Lift(x) where R has a Lift, else x.
template <typename R, typename = void>
struct HasLift : std::false_type {};
template <typename R>
struct HasLift<R, std::void_t<decltype(&R::Lift)>> : std::true_type {};
template <typename R, typename T>
T Lifted(T x) {
  if constexpr (HasLift<R>::value) {
    return R::Lift(x);
  } else {
    return x;
  }
}

// Whether R changes the combined value at the end (Finalize).
template <typename T, typename R>
constexpr bool kFinalizes =
    std::is_same_v<R, Mean<T>> || std::is_same_v<R, EuclideanNorm<T>>;

}  // namespace reducers

// The loops of one reduction: `in` as groups of merged dimensions, each
// reduced or kept, the last contiguous; `out` holds the kept ones in order.
template <typename T, typename R>
class ReductionLoops {
 public:
  ReductionLoops(const T* in, const std::vector<int64_t>& groups, const std::vector<bool>& reduced,
                 T* out)
      : in_(in), out_(out), groups_(groups), reduced_(reduced) {
    const int n = static_cast<int>(groups.size());
    in_stride_.assign(n, 1);
    out_stride_.assign(n, 1);
    for (int d = n - 2; d >= 0; --d) {
      in_stride_[d] = in_stride_[d + 1] * groups[d + 1];
      out_stride_[d] = out_stride_[d + 1] * (reduced[d + 1] ? 1 : groups[d + 1]);
    }
  }

  // Combines the input into `out` (which holds R's identity), split across
  // the step's threads so that no two write one output element.
  void Run(const OpKernelContext* ctx) const {
    const int n = static_cast<int>(groups_.size());
    if (!reduced_[0]) {
      // Each index of the first (kept) group owns its block of the output.
      ctx->ParallelFor(groups_[0], static_cast<double>(in_stride_[0]) * sizeof(T),
                       static_cast<double>(out_stride_[0]) * sizeof(T), in_stride_[0],
                       [&](int64_t begin, int64_t end) {
                         for (int64_t i = begin; i < end; ++i) {
                           Reduce(in_ + i * in_stride_[0], 1, out_ + i * out_stride_[0]);
                         }
                       });
    } else if (n == 1) {
      // Everything into one value: partial results per block, then combined.
      const int64_t total = groups_[0];
      const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>(64, total / 16384));
      const int64_t per = (total + blocks - 1) / blocks;
      // (Not a std::vector: a vector<bool>'s bits would share words.)
      std::unique_ptr<T[]> partial(new T[blocks]);
      std::fill(partial.get(), partial.get() + blocks, R::Identity());
      ctx->ParallelFor(blocks, per * sizeof(T), sizeof(T), per, [&](int64_t begin, int64_t end) {
        for (int64_t b = begin; b < end; ++b) {
          const int64_t lo = b * per, hi = std::min(total, lo + per);
          if (lo < hi) partial[b] = ReduceRow(in_ + lo, hi - lo);
        }
      });
      T acc = R::Identity();
      for (int64_t b = 0; b < blocks; ++b) acc = R::Combine(acc, partial[b]);
      out_[0] = R::Combine(out_[0], acc);
    } else if (n == 2) {
      // Reduced rows into one kept row: split the columns.
      const int64_t rows = groups_[0], cols = groups_[1];
      ctx->ParallelFor(cols, rows * sizeof(T), sizeof(T), rows, [&](int64_t begin, int64_t end) {
        for (int64_t r = 0; r < rows; ++r) {
          CombineRow(in_ + r * cols + begin, out_ + begin, end - begin);
        }
      });
    } else {
      // A reduced group, then a kept one: each index of the kept group owns
      // its block of the output.
      ctx->ParallelFor(groups_[1], groups_[0] * static_cast<double>(in_stride_[1]) * sizeof(T),
                       static_cast<double>(out_stride_[1]) * sizeof(T), groups_[0] * in_stride_[1],
                       [&](int64_t begin, int64_t end) {
                         for (int64_t r = 0; r < groups_[0]; ++r) {
                           for (int64_t i = begin; i < end; ++i) {
                             Reduce(in_ + r * in_stride_[0] + i * in_stride_[1], 2,
                                    out_ + i * out_stride_[1]);
                           }
                         }
                       });
    }
  }

 private:
  // Combines the block of groups d.. at `in` into the output block at `out`.
  void Reduce(const T* in, int d, T* out) const {
    const int n = static_cast<int>(groups_.size());
    if (d == n - 1) {
      if (reduced_[d]) {
        *out = R::Combine(*out, ReduceRow(in, groups_[d]));
      } else {
        CombineRow(in, out, groups_[d]);
      }
      return;
    }
    for (int64_t i = 0; i < groups_[d]; ++i) {
      Reduce(in + i * in_stride_[d], d + 1, reduced_[d] ? out : out + i * out_stride_[d]);
    }
  }

  // One contiguous row to one value, in blocks of 1024 combined in order
  // (closer to a pairwise sum than one running total).
  static T ReduceRow(const T* __restrict in, int64_t n) {
    T total = R::Identity();
    for (int64_t lo = 0; lo < n; lo += 1024) {
      const int64_t hi = std::min(n, lo + 1024);
      T acc = R::Identity();
      if constexpr (std::is_same_v<R, reducers::Sum<T>> || std::is_same_v<R, reducers::Mean<T>>) {
#pragma omp simd reduction(+ : acc)
        for (int64_t j = lo; j < hi; ++j) acc += in[j];
      } else {
        for (int64_t j = lo; j < hi; ++j) acc = R::Combine(acc, reducers::Lifted<R>(in[j]));
      }
      total = R::Combine(total, acc);
    }
    return total;
  }

  // out[j] = R(out[j], in[j]) for j < n.
  static void CombineRow(const T* __restrict in, T* __restrict out, int64_t n) {
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) out[j] = R::Combine(out[j], reducers::Lifted<R>(in[j]));
  }

  const T* in_;
  T* out_;
  const std::vector<int64_t>& groups_;
  const std::vector<bool>& reduced_;
  absl::InlinedVector<int64_t, 4> in_stride_, out_stride_;
};

template <typename T, typename R>
class ReductionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("keep_dims", &keep_dims_); }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    // Axes of any rank, as TensorFlow's kernel reads them: graphs before
    // version 21 may give [[1, 2]] (the shape function refuses it in later
    // ones).
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> axes, FlatInts(ctx->input(1), "reduction_indices"));
    std::vector<bool> reduced(x.dims(), false);
    for (int64_t a : axes) {
      if (a < -x.dims() || a >= x.dims()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Invalid reduction dimension ", a, " for input with ", x.dims(), " dimensions"));
      }
      reduced[a < 0 ? a + x.dims() : a] = true;
    }
    std::vector<int64_t> out_dims;
    // Merged groups: sizes and whether each is reduced.
    std::vector<int64_t> group;
    std::vector<bool> group_reduced;
    int64_t count = 1;  // elements combined into each output
    for (int d = 0; d < x.dims(); ++d) {
      if (!reduced[d]) {
        out_dims.push_back(x.dim_size(d));
      } else {
        count *= x.dim_size(d);
        if (keep_dims_) out_dims.push_back(1);
      }
      if (x.dim_size(d) == 1) continue;  // size 1: neither reduced nor kept matters
      if (!group.empty() && group_reduced.back() == reduced[d]) {
        group.back() *= x.dim_size(d);
      } else {
        group.push_back(x.dim_size(d));
        group_reduced.push_back(reduced[d]);
      }
    }
    MG_ASSIGN_OR_RETURN(TensorShape out_shape, TensorShape::Build(out_dims));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    T* o = out->data<T>();
    const int64_t n = out->NumElements();
    const bool any_reduced =
        std::find(group_reduced.begin(), group_reduced.end(), true) != group_reduced.end();
    if (x.NumElements() == 0 || !any_reduced) {
      if (x.NumElements() == n) {
        // Nothing to combine (only size-1 or no axes reduced): each output
        // is its one element's (a norm's |x|).
        if constexpr (reducers::HasLift<R>::value) {
          const T* in = x.data<T>();
          for (int64_t i = 0; i < n; ++i) o[i] = R::Finalize(R::Lift(in[i]), 1);
        } else {
          std::copy(x.data<T>(), x.data<T>() + n, o);
        }
      } else {
        // Reducing over an empty axis: every output is the empty result.
        std::fill(o, o + n, R::Finalize(R::Identity(), 0));
      }
      return absl::OkStatus();
    }
    if constexpr (std::is_same_v<R, reducers::Mean<T>> && std::is_integral_v<T> &&
                  sizeof(T) < sizeof(int64_t)) {
      // TensorFlow sums a narrow integer mean in 64 bits: no wrap-around.
      const std::vector<int64_t> wide_in(x.data<T>(), x.data<T>() + x.NumElements());
      std::vector<int64_t> wide_out(n, 0);
      ReductionLoops<int64_t, reducers::Sum<int64_t>>(wide_in.data(), group, group_reduced,
                                                      wide_out.data())
          .Run(ctx);
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(wide_out[i] / count);
      return absl::OkStatus();
    }
    std::fill(o, o + n, R::Identity());
    ReductionLoops<T, R>(x.data<T>(), group, group_reduced, o).Run(ctx);
    if constexpr (reducers::kFinalizes<T, R>) {
      for (int64_t i = 0; i < n; ++i) o[i] = R::Finalize(o[i], count);
    }
    return absl::OkStatus();
  }

 private:
  bool keep_dims_ = false;
};

template <template <typename> class R>
struct ReductionFor {
  template <typename T>
  using Op = ReductionOp<T, R<T>>;
};

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_REDUCTION_OPS_H_
