// The pieces of AddSymbolicGradients that the gradient of a TensorFlow 1
// while loop (while_gradients.cc) shares with it. Only the gradients
// target's own files include this.
#ifndef MINIGRAPH_RUNTIME_CC_INTERNAL_WHILE_GRADIENTS_H_
#define MINIGRAPH_RUNTIME_CC_INTERNAL_WHILE_GRADIENTS_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "runtime/cc/gradients.h"
#include "runtime/cc/scope.h"

namespace minigraph {
namespace gradients_internal {

// Calls the gradient function of `op` (a node of `graph`) through `g`.
// `dys` has one entry per output (invalid where nothing flows back: zeros
// are made for those, none for handles); `wanted` one per input. `*dxs`
// gets one entry per input, invalid for none. An op declared
// non-differentiable gives none; an op without a gradient function is
// InvalidArgument naming it.
absl::Status CallGradient(const Scope& g, const Scope& graph, const Operation& op,
                          std::vector<Output> dys, const std::vector<bool>& wanted,
                          std::vector<Output>* dxs);

// What AddSymbolicGradients knows when it reaches one TensorFlow 1 while
// loop on the path from the xs to the ys.
struct WhileLoopGradientArgs {
  // The graph, and the scope to build the gradient in ("gradients").
  Scope graph;
  Scope g;
  // The loop's frame name and its ops (nested loops included), in creation
  // order.
  std::string frame;
  std::vector<Operation> ops;
  // The ops that existed before the gradient was built.
  const absl::flat_hash_set<std::string>* before = nullptr;
  // The ops that depend on an x.
  const absl::flat_hash_set<std::string>* from_x = nullptr;
  // The summed gradient of an output outside the loop (an Exit's), invalid
  // when nothing flows back to it.
  std::function<Output(const Output&)> grad_of;
  // Adds `grad` to the gradient of `input` (an Enter's input).
  std::function<void(const Output& input, const Output& grad)> add_grad;
};

// Builds the loop's gradient, as TensorFlow's control-flow gradients do: a
// counter added to the forward loop, every forward value a gradient function
// needs pushed onto a stack there, and a backward loop that runs as many
// times, pops them in reverse and carries the loop variables' gradients
// back; a loop invariant's gradient sums over the iterations.
absl::Status AddWhileLoopGradients(const WhileLoopGradientArgs& args);

}  // namespace gradients_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_CC_INTERNAL_WHILE_GRADIENTS_H_
