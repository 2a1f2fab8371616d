// IsotonicRegression (tf.nn.isotonic_regression): along the last
// dimension, the non-increasing sequence nearest the input in squared
// error, by pool adjacent violators (each element a block, merged into the
// block before it while that block's mean is below its own; equal means
// stay apart, as TensorFlow's), and each element's block number. Output
// dtypes as TensorFlow pairs them: float for float, int8 and int16, double
// for double, int32 and int64.
#include <cstdint>
#include <vector>

#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

template <typename T, typename Out>
class IsotonicRegressionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    Tensor *out, *segments;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, in.shape(), &out));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, in.shape(), &segments));
    const int64_t n = in.dims() == 0 ? 1 : in.dim_size(in.dims() - 1);  // a scalar: one
    if (in.NumElements() == 0) return absl::OkStatus();
    const T* x = in.data<T>();
    Out* y = out->data<Out>();
    int32_t* seg = segments->data<int32_t>();
    ctx->ParallelFor(in.NumElements() / n, n * sizeof(T), n * (sizeof(Out) + 4), 20.0 * n,
                     [&](int64_t begin, int64_t end) {
      struct Block {
        Out sum;
        int64_t count;
        Out mean() const { return sum / static_cast<Out>(count); }
      };
      std::vector<Block> blocks;
      for (int64_t r = begin; r < end; ++r) {
        blocks.clear();
        for (int64_t j = 0; j < n; ++j) {
          Block b{static_cast<Out>(x[r * n + j]), 1};
          while (!blocks.empty() && blocks.back().mean() < b.mean()) {
            b.sum += blocks.back().sum;
            b.count += blocks.back().count;
            blocks.pop_back();
          }
          blocks.push_back(b);
        }
        int64_t j = r * n;
        for (size_t k = 0; k < blocks.size(); ++k) {
          const Out mean = blocks[k].mean();
          for (int64_t c = 0; c < blocks[k].count; ++c, ++j) {
            y[j] = mean;
            seg[j] = static_cast<int32_t>(k);
          }
        }
      }
    });
    return absl::OkStatus();
  }
};

KernelFactory IsotonicFactory() {
  return [](OpKernelConstruction* c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DataType t, out;
    MG_RETURN_IF_ERROR(c->GetAttr("T", &t));
    MG_RETURN_IF_ERROR(c->GetAttr("output_dtype", &out));
    if (out == DT_FLOAT) {
      if (t == DT_FLOAT) return MakeFactory<IsotonicRegressionOp<float, float>>()(c);
      if (t == DT_INT8) return MakeFactory<IsotonicRegressionOp<int8_t, float>>()(c);
      if (t == DT_INT16) return MakeFactory<IsotonicRegressionOp<int16_t, float>>()(c);
    } else if (out == DT_DOUBLE) {
      if (t == DT_DOUBLE) return MakeFactory<IsotonicRegressionOp<double, double>>()(c);
      if (t == DT_INT32) return MakeFactory<IsotonicRegressionOp<int32_t, double>>()(c);
      if (t == DT_INT64) return MakeFactory<IsotonicRegressionOp<int64_t, double>>()(c);
    }
    return NoKernelForType(c, t);
  };
}

}  // namespace

void RegisterIsotonicKernels(KernelRegistry* r) {
  r->Register("IsotonicRegression", IsotonicFactory());
}

}  // namespace kernels_internal
}  // namespace minigraph
