// The pieces of AddSymbolicGradients that the gradient of a TensorFlow 1
// while loop (while_gradients.cc) shares with it. Only the gradients
// target's own files include this.
#ifndef MINIGRAPH_RUNTIME_CC_INTERNAL_WHILE_GRADIENTS_H_
#define MINIGRAPH_RUNTIME_CC_INTERNAL_WHILE_GRADIENTS_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
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

// The order in which to differentiate `units` (each some ops of `graph`; a
// single op, or a while loop's): a unit comes after every unit that consumes
// an output of one of its ops; among those ready, the one listed last
// first (units are listed in creation order).
std::vector<int> ReverseTopologicalOrder(const Scope& graph,
                                         const std::vector<std::vector<Operation>>& units);

// What AddSymbolicGradients knows when it reaches one TensorFlow 1 while
// loop on the path from the xs to the ys.
struct WhileLoopGradientArgs {
  WhileLoopGradientArgs(Scope graph, Scope g) : graph(std::move(graph)), g(std::move(g)) {}

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
  // Every op's while-loop frames, outermost first; `frame` is at index
  // `depth` of its ops' (a loop inside the loop's body, deeper).
  const absl::flat_hash_map<std::string, std::vector<std::string>>* frames = nullptr;
  size_t depth = 0;
  // The summed gradient of an output outside the loop (an Exit's), invalid
  // when nothing flows back to it.
  std::function<Output(const Output&)> grad_of;
  // Adds `grad` to the gradient of `input` (an Enter's input).
  std::function<void(const Output& input, const Output& grad)> add_grad;

  // For a loop inside another loop's body (the enclosing loop's gradient
  // builds this one's, inside its backward body; `g` is that body's scope):
  // - `outer_map` turns a value of the enclosing loop's forward frame into
  //   the backward body's (popping it there);
  // - `outer_pivot` is live in each iteration of the enclosing forward loop
  //   that runs this loop (a cond may skip it): what this loop's gradient
  //   adds to that frame (its stacks, its counter's start) waits on it;
  // - `outer_register` tells the enclosing loop's gradient that a value was
  //   added to its forward frame (runs where this loop runs), so that
  //   `outer_map` may be asked for it.
  // All empty for a loop that is not inside another.
  std::function<Output(const Output&)> outer_map;
  Operation outer_pivot;
  std::function<void(const Output&)> outer_register;
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
