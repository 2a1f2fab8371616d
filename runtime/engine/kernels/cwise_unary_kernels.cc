// Unary math and activation kernels, and their gradient helpers.
#include "core/tensor_types.h"
#include "runtime/engine/kernels/internal/cwise_ops.h"
#include "runtime/engine/kernels/standard_kernels.h"

namespace minigraph {

void RegisterUnaryKernels(KernelRegistry* r) {
  using namespace Eigen::internal;  // NOLINT: scalar_*_op functors
  r->Register("Neg", TypedFactory<UnaryKernelFor<scalar_opposite_op>::Op, float, double, int32_t,
                                  int64_t>());
  r->Register("Square", TypedFactory<UnaryKernelFor<scalar_square_op>::Op, float, double,
                                     int32_t, int64_t>());
  r->Register("Sqrt", TypedFactory<UnaryKernelFor<scalar_sqrt_op>::Op, float, double>());
  r->Register("Exp", TypedFactory<UnaryKernelFor<scalar_exp_op>::Op, float, double>());
  r->Register("Log", TypedFactory<UnaryKernelFor<scalar_log_op>::Op, float, double>());
  r->Register("Sigmoid", TypedFactory<UnaryKernelFor<scalar_logistic_op>::Op, float, double>());
  r->Register("Tanh", TypedFactory<UnaryKernelFor<scalar_tanh_op>::Op, float, double>());
  r->Register("Reciprocal", TypedFactory<UnaryKernelFor<scalar_inverse_op>::Op, float, double>());
  r->Register("Floor", TypedFactory<UnaryKernelFor<scalar_floor_op>::Op, float, double>());
  r->Register("Relu", TypedFactory<UnaryKernelFor<functor::relu>::Op, float, double, int32_t,
                                   int64_t>());
  r->Register("ReluGrad", TypedFactory<SameShapeBinaryKernelFor<functor::relu_grad>::Op, float,
                                       double, int32_t, int64_t>());
  r->Register("SigmoidGrad",
              TypedFactory<SameShapeBinaryKernelFor<functor::sigmoid_grad>::Op, float, double>());
  r->Register("TanhGrad",
              TypedFactory<SameShapeBinaryKernelFor<functor::tanh_grad>::Op, float, double>());
  r->Register("SqrtGrad",
              TypedFactory<SameShapeBinaryKernelFor<functor::sqrt_grad>::Op, float, double>());
}

}  // namespace minigraph
