// Test harness for kernels: builds a one-node graph whose inputs are
// constants, runs it through the executor, returns the outputs.
//
//   ASSERT_OK_AND_ASSIGN(std::vector<Tensor> out,
//                        RunKernel("MatMul", {{a}, {b}}, {{"transpose_a", MakeAttrValue(true)}}));
//   ExpectTensorNear<float>(out[0], expected, 1e-5);

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_KERNEL_TEST_UTIL_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_KERNEL_TEST_UTIL_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/proto/attr_value.pb.h"
#include "core/tensor.h"
#include "core/tensor_types.h"
#include "gtest/gtest.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {

// Runs `op_type` once: one entry of `inputs` per input argument of the op.
// Errors come back as the session would report them (node name appended).
absl::StatusOr<std::vector<Tensor>> RunKernel(
    const std::string& op_type, const std::vector<std::vector<Tensor>>& inputs,
    const std::map<std::string, AttrValue>& attrs = {}, int intra_op_threads = 2);

// Element-wise comparisons with messages naming the first mismatch.
template <typename T>
void ExpectTensorEqual(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.dtype(), want.dtype());
  ASSERT_EQ(got.shape(), want.shape()) << got.shape().DebugString() << " vs "
                                       << want.shape().DebugString();
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    ASSERT_EQ(got.flat<T>()(i), want.flat<T>()(i)) << "element " << i;
  }
}

template <typename T>
void ExpectTensorNear(const Tensor& got, const Tensor& want, double tol) {
  ASSERT_EQ(got.dtype(), want.dtype());
  ASSERT_EQ(got.shape(), want.shape()) << got.shape().DebugString() << " vs "
                                       << want.shape().DebugString();
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    const double g = static_cast<double>(got.flat<T>()(i));
    const double w = static_cast<double>(want.flat<T>()(i));
    ASSERT_NEAR(g, w, tol * std::max(1.0, std::abs(w))) << "element " << i;
  }
}

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_KERNEL_TEST_UTIL_H_
