// Reductions by segment, as TensorFlow's segment_reduction_ops define them:
// SegmentSum, SegmentMean, SegmentMax, SegmentMin and SegmentProd (ids
// sorted, the output as long as the last id + 1, empty segments 0 (1 for
// the product)); UnsortedSegmentSum, UnsortedSegmentMax, UnsortedSegmentMin
// and UnsortedSegmentProd (ids in any order, num_segments rows, negative
// ids dropped, empty segments the reduction's identity: 0, the lowest and
// highest values, 1).
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/kernels/internal/wrapping.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// The reductions: the identity of an empty unsorted segment, and how a
// value joins a segment's accumulator (std::max and std::min, as
// TensorFlow's CPU functors: a NaN that comes second is dropped).
template <typename T>
struct SumReducer {
  static T Identity() { return T(0); }
  static void Join(T& acc, T v) { acc = WrapAdd(acc, v); }
};
template <typename T>
struct ProdReducer {
  static T Identity() { return T(1); }
  static void Join(T& acc, T v) { acc = WrapMul(acc, v); }
};
template <typename T>
struct MaxReducer {
  static T Identity() { return std::numeric_limits<T>::lowest(); }
  static void Join(T& acc, T v) { acc = std::max(acc, v); }
};
template <typename T>
struct MinReducer {
  static T Identity() { return std::numeric_limits<T>::max(); }
  static void Join(T& acc, T v) { acc = std::min(acc, v); }
};
// The mean: a sum, divided by the count at the end.
template <typename T>
struct MeanReducer : SumReducer<T> {};

// The unsorted reductions: output[s, ...] reduces data[i..., ...] over the
// i with segment_ids[i...] == s.
template <template <typename> class R>
struct UnsortedSegmentFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Compute(OpKernelContext* ctx) const override {
      const Tensor& data = ctx->input(0);
      const Tensor& ids_t = ctx->input(1);
      const Tensor& num_t = ctx->input(2);
      MG_ASSIGN_OR_RETURN(std::vector<int64_t> num, IntsFromTensor(num_t, "num_segments"));
      if (num_t.dims() != 0 || num.size() != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "num_segments should be a scalar, not shape ", num_t.shape().DebugString()));
      }
      if (num[0] < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("Input num_segments == ", num[0], " must not be negative."));
      }
      const auto dd = data.shape().dim_sizes();
      const auto sd = ids_t.shape().dim_sizes();
      if (sd.size() > dd.size() || !std::equal(sd.begin(), sd.end(), dd.begin())) {
        return absl::InvalidArgumentError(
            absl::StrCat("data.shape = ", data.shape().DebugString(),
                         " does not start with segment_ids.shape = ",
                         ids_t.shape().DebugString()));
      }
      std::vector<int64_t> dims = {num[0]};
      dims.insert(dims.end(), dd.begin() + sd.size(), dd.end());
      MG_ASSIGN_OR_RETURN(TensorShape out_shape, TensorShape::Build(dims));
      Tensor* out;
      MG_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
      T* o = out->data<T>();
      std::fill(o, o + out->NumElements(), R<T>::Identity());
      MG_ASSIGN_OR_RETURN(std::vector<int64_t> ids, FlatInts(ids_t, "segment_ids"));
      const int64_t inner =
          ids.empty() ? 0 : data.NumElements() / static_cast<int64_t>(ids.size());
      const T* in = data.data<T>();
      for (size_t i = 0; i < ids.size(); ++i) {
        const int64_t s = ids[i];
        if (s < 0) continue;
        if (s >= num[0]) {
          return absl::InvalidArgumentError(absl::StrCat("segment_ids", ElementPosition(sd, i),
                                                         " = ", s, " is out of range [0, ",
                                                         num[0], ")"));
        }
        T* dst = o + s * inner;
        const T* src = in + i * inner;
        for (int64_t j = 0; j < inner; ++j) R<T>::Join(dst[j], src[j]);
      }
      return absl::OkStatus();
    }
  };
};

// The sorted reductions: segment_ids a vector over data's first dimension,
// increasing; output[s, ...] reduces the rows with id s.
template <template <typename> class R>
struct SegmentFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Compute(OpKernelContext* ctx) const override {
      const Tensor& data = ctx->input(0);
      const Tensor& ids_t = ctx->input(1);
      if (ids_t.dims() != 1) {
        return absl::InvalidArgumentError(absl::StrCat("segment_ids should be a vector: ",
                                                       ids_t.shape().DebugString()));
      }
      if (data.dims() < 1 || data.dim_size(0) != ids_t.dim_size(0)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "segment_ids should be the same size as dimension 0 of input: ",
            ids_t.shape().DebugString(), " and ", data.shape().DebugString()));
      }
      MG_ASSIGN_OR_RETURN(std::vector<int64_t> ids, FlatInts(ids_t, "segment_ids"));
      const int64_t rows = ids.empty() ? 0 : ids.back() + 1;
      if (rows < 0) {
        return absl::InvalidArgumentError("segment ids must be >= 0");
      }
      for (size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] >= rows || (i > 0 && ids[i] < ids[i - 1])) {
          return absl::InvalidArgumentError(absl::StrCat(
              "segment ids are not increasing: segment_ids[", i, "] = ", ids[i],
              i > 0 ? absl::StrCat(" after ", ids[i - 1]) : std::string()));
        }
      }
      std::vector<int64_t> dims(data.shape().dim_sizes().begin(), data.shape().dim_sizes().end());
      dims[0] = rows;
      MG_ASSIGN_OR_RETURN(TensorShape out_shape, TensorShape::Build(dims));
      Tensor* out;
      MG_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
      T* o = out->data<T>();
      // Empty segments: 0, or 1 for the product.
      std::fill(o, o + out->NumElements(), std::is_same_v<R<T>, ProdReducer<T>> ? T(1) : T(0));
      const int64_t inner = ids.empty() ? 0 : data.NumElements() / data.dim_size(0);
      const T* in = data.data<T>();
      for (size_t begin = 0, end; begin < ids.size(); begin = end) {
        for (end = begin + 1; end < ids.size() && ids[end] == ids[begin];) ++end;
        T* dst = o + ids[begin] * inner;
        std::copy(in + begin * inner, in + (begin + 1) * inner, dst);
        for (size_t i = begin + 1; i < end; ++i) {
          for (int64_t j = 0; j < inner; ++j) R<T>::Join(dst[j], in[i * inner + j]);
        }
        if constexpr (std::is_same_v<R<T>, MeanReducer<T>>) {
          const T count = static_cast<T>(end - begin);
          for (int64_t j = 0; j < inner; ++j) dst[j] /= count;
        }
      }
      return absl::OkStatus();
    }
  };
};

template <template <typename> class Kernel>
KernelFactory RealTypes() {
  return TypedFactory<Kernel, float, double, int32_t, int64_t>();
}

}  // namespace

void RegisterSegmentReductionKernels(KernelRegistry* r) {
  r->Register("UnsortedSegmentSum", RealTypes<UnsortedSegmentFor<SumReducer>::Op>());
  r->Register("UnsortedSegmentProd", RealTypes<UnsortedSegmentFor<ProdReducer>::Op>());
  r->Register("UnsortedSegmentMax", RealTypes<UnsortedSegmentFor<MaxReducer>::Op>());
  r->Register("UnsortedSegmentMin", RealTypes<UnsortedSegmentFor<MinReducer>::Op>());
  r->Register("SegmentSum", RealTypes<SegmentFor<SumReducer>::Op>());
  r->Register("SegmentMean", RealTypes<SegmentFor<MeanReducer>::Op>());
  r->Register("SegmentProd", RealTypes<SegmentFor<ProdReducer>::Op>());
  r->Register("SegmentMax", RealTypes<SegmentFor<MaxReducer>::Op>());
  r->Register("SegmentMin", RealTypes<SegmentFor<MinReducer>::Op>());
}

}  // namespace kernels_internal
}  // namespace minigraph
