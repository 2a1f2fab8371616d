// A library function instantiated for a kernel that calls it: its graph,
// kernels and executor, made once when the kernel is made, and run inside
// the caller's step on the calling thread (the session's variables, files
// and intra-op threads; no inter-op pool, so a call never waits for a
// thread its own step holds).
//
//   MG_ASSIGN_OR_RETURN(std::unique_ptr<FunctionRunner> f, RunnerFor(c, "f"));
//   std::vector<Tensor> rets;
//   MG_RETURN_IF_ERROR(f->Run(ctx, {x, y}, &rets));
//
// Thread-safe: Run may be called from several steps at once.

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_FUNCTION_RUNNER_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_FUNCTION_RUNNER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/proto/attr_value.pb.h"
#include "core/tensor.h"
#include "runtime/engine/executor.h"
#include "runtime/engine/op_kernel.h"
#include "runtime/graph/function.h"
#include "runtime/graph/graph.h"

namespace minigraph {
namespace kernels_internal {

class FunctionRunner {
 public:
  // Instantiates `call` from `caller`'s library (or the CPU implementation
  // of it: CpuImplementation in runtime/graph/function.h). InvalidArgument
  // for a function that reaches itself; errors of instantiation and kernel
  // creation name the function.
  static absl::StatusOr<std::unique_ptr<FunctionRunner>> Create(const Graph& caller,
                                                                const NameAttrList& call);

  const FunctionGraph& function() const { return f_; }

  // Runs the function on `args` within `ctx`'s step. InvalidArgument when
  // the argument count differs from the signature's.
  absl::Status Run(OpKernelContext* ctx, std::vector<Tensor> args, std::vector<Tensor>* rets) const;

 private:
  FunctionRunner() = default;
  FunctionGraph f_;
  std::unique_ptr<Graph> graph_;
  std::vector<std::unique_ptr<OpKernel>> kernels_;
  std::unique_ptr<Executor> executor_;
};

// The runner for the function named by the node's func attr `attr`.
absl::StatusOr<std::unique_ptr<FunctionRunner>> RunnerFor(OpKernelConstruction* c,
                                                          const std::string& attr);

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_FUNCTION_RUNNER_H_
