// Test harnesses for kernels, on the executor alone: RunKernel builds a
// one-node graph whose inputs are constants, runs it and returns the
// outputs; a GraphRunner runs steps of a whole graph, keeping its resources
// (variables, iterators) from step to step, for kernels that work across
// steps.
//
//   ASSERT_OK_AND_ASSIGN(std::vector<Tensor> out,
//                        RunKernel("MatMul", {{a}, {b}}, {{"transpose_a", MakeAttrValue(true)}}));
//   ExpectTensorNear<float>(out[0], expected, 1e-5);
//
//   ASSERT_OK_AND_ASSIGN(auto runner, GraphRunner::Create(graph_def, &mem_env));
//   ASSERT_OK(runner->Run({}, {}, {"make_iterator"}, &out));
//
// Thread safety: GraphRunner::Run may be called from several threads.

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_KERNEL_TEST_UTIL_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_KERNEL_TEST_UTIL_H_

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/env.h"
#include "core/proto/attr_value.pb.h"
#include "core/proto/graph.pb.h"
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

// Steps of one graph, as a session runs them (Session::Run's arguments),
// on the executor: what the graph's resource ops make lives until the
// runner goes. Each step plans afresh (a session caches plans).
class GraphRunner {
 public:
  // `env` (Env::Default() when null) serves the kernels' files; it must
  // outlive the runner. Errors: the graph's or a kernel's construction.
  static absl::StatusOr<std::unique_ptr<GraphRunner>> Create(const GraphDef& def,
                                                             Env* env = nullptr,
                                                             int threads = 2);
  ~GraphRunner();

  // A `timeout` above zero bounds the step (DeadlineExceeded).
  absl::Status Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
                   absl::Duration timeout = absl::ZeroDuration());

 private:
  struct State;
  explicit GraphRunner(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

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
