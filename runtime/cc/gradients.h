// Symbolic gradients in the graph-building API (TensorFlow's tf.gradients /
// AddSymbolicGradients): reverse-mode differentiation that adds the backward
// pass to the graph as ordinary nodes.
//
//   std::vector<Output> grads;
//   MG_RETURN_IF_ERROR(AddSymbolicGradients(root, {loss}, {w.value(), b.value()}, &grads));
//
// Each op type has a gradient function (runtime/cc/gradient_functions.cc);
// contributions from several paths are summed with AddN. Gradients stop at
// the `xs`, at StopGradient, and at ops declared non-differentiable (shape
// queries, comparisons, random ops). An x that the ys do not depend on gets
// zeros. An op on a path with no gradient function is InvalidArgument naming
// its type. An x of dtype resource (a variable's handle; its gradient is
// that of the value read through it) that no gradient reaches gets an
// invalid Output.
//
// Like Scope's, not thread-safe: add gradients to a graph on one thread.
// The gradient function registry is filled at start-up and only read
// after, from any thread.

#ifndef MINIGRAPH_RUNTIME_CC_GRADIENTS_H_
#define MINIGRAPH_RUNTIME_CC_GRADIENTS_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "runtime/cc/scope.h"

namespace minigraph {

// Computes the gradients of `op`'s inputs from those of its outputs.
// `grad_outputs[i]` is the gradient of output i (zeros when nothing flows
// back to it; invalid for a resource output). Sets one entry of `grad_inputs` per input;
// an invalid Output means "no gradient" for that input.
using GradFunc = std::function<absl::Status(const Scope& scope, const Operation& op,
                                            const std::vector<Output>& grad_outputs,
                                            std::vector<Output>* grad_inputs)>;

// A GradFunc told which inputs need a gradient: `wanted[i]` is false for an
// input that no x depends on through it, whose entry may stay invalid. Calls
// of functions take it, so that a body is differentiated only toward what
// is wanted (an op without a gradient elsewhere in the body then does not
// matter).
using SelectiveGradFunc = std::function<absl::Status(
    const Scope& scope, const Operation& op, const std::vector<Output>& grad_outputs,
    const std::vector<bool>& wanted, std::vector<Output>* grad_inputs)>;

class GradientRegistry {
 public:
  void Register(const std::string& op, GradFunc fn);
  void RegisterSelective(const std::string& op, SelectiveGradFunc fn);
  // Ops whose outputs carry no gradient (Shape, comparisons, ...).
  void RegisterNoGradient(const std::string& op);
  // nullptr when the op has no gradient function; `*no_gradient` tells
  // whether it was declared non-differentiable.
  const SelectiveGradFunc* Lookup(const std::string& op, bool* no_gradient) const;

 private:
  absl::flat_hash_map<std::string, SelectiveGradFunc> fns_;
  absl::flat_hash_map<std::string, bool> no_gradient_;
};

// Every standard gradient function. Never destroyed.
const GradientRegistry* GlobalGradientRegistry();

// Adds d(sum of ys)/d(xs) to `scope`'s graph. `grad_ys` (one per y, or empty
// for ones; an invalid one: nothing from that y) weights each y. Builds under the name scope
// "gradients".
absl::Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& ys,
                                  const std::vector<Output>& xs,
                                  const std::vector<Output>& grad_ys,
                                  std::vector<Output>* grads);
inline absl::Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& ys,
                                         const std::vector<Output>& xs,
                                         std::vector<Output>* grads) {
  return AddSymbolicGradients(scope, ys, xs, {}, grads);
}

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_CC_GRADIENTS_H_
