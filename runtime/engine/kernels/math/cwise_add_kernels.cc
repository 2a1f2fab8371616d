// Add, AddV2, Sub (with broadcasting) and AddN.
#include "runtime/engine/kernels/internal/cwise_ops.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/list_math.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// AddN: the sum of N same-shaped tensors.
template <typename T>
class AddNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x0 = ctx->input(0);
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      if (ctx->input(i).shape() != x0.shape()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "AddN inputs must have the same shape: input 0 is ", x0.shape().DebugString(),
            ", input ", i, " is ", ctx->input(i).shape().DebugString()));
      }
    }
    if (ctx->num_inputs() == 1) {
      ctx->set_output(0, x0);
      return absl::OkStatus();
    }
    // Into an input no one else holds (the accumulations of a loop's
    // gradient), as TensorFlow's AddN; else into a new buffer.
    const int inputs = ctx->num_inputs();
    int first = 0;  // the input the sum starts from
    while (first < inputs - 1 && !ctx->input(first).RefCountIsOne()) ++first;
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->forward_input_or_allocate_output({first}, 0, x0.shape(), &out));
    const bool in_place = out->SharesBufferWith(ctx->input(first));
    T* o = out->data<T>();
    // Each chunk of the output summed over every input while it is in cache.
    ctx->ParallelFor(out->NumElements(), inputs * sizeof(T), sizeof(T), inputs,
                     [&](int64_t begin, int64_t end) {
                       if (!in_place) {
                         const T* x = ctx->input(first).data<T>();
                         std::copy(x + begin, x + end, o + begin);
                       }
                       for (int i = 0; i < inputs; ++i) {
                         if (i == first) continue;
                         const T* __restrict in = ctx->input(i).data<T>();
                         T* __restrict dst = o;
#pragma omp simd
                         for (int64_t j = begin; j < end; ++j) dst[j] = WrapAdd(dst[j], in[j]);
                       }
                     });
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterAddKernels(KernelRegistry* r) {
  auto add = TypedFactory<BinaryKernelFor<functor::add>::Op, float, double, int32_t, int64_t,
                          complex64, complex128>();
  r->Register("Add", add);
  r->Register("AddV2", add);
  r->Register("Sub",
              TypedFactory<BinaryKernelFor<functor::sub>::Op, float, double, int32_t, int64_t,
                           complex64, complex128>());
  r->Register("AddN",
              [numeric = TypedFactory<AddNOp, float, double, int32_t, int64_t, complex64,
                                      complex128>()](
                  OpKernelConstruction* c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
                DataType dt;
                MG_RETURN_IF_ERROR(c->GetAttr("T", &dt));
                return dt == DT_VARIANT ? MakeAddNListKernel(c) : numeric(c);
              });
}

}  // namespace kernels_internal
}  // namespace minigraph
