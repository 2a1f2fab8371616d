#include "tests/testing/endless_loop.h"

#include <vector>

#include "runtime/cc/ops.h"
#include "runtime/cc/scope.h"

namespace minigraph {

absl::StatusOr<GraphDef> EndlessLoopGraph() {
  Scope root = Scope::NewRootScope();
  std::vector<Output> x = ops::WhileLoop(
      root, {ops::Const<int32_t>(root, 0)},
      [](const Scope& c, const std::vector<Output>& v) { return ops::Equal(c, v[0], v[0]); },
      [](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        return {ops::Identity(b, v[0])};
      });
  if (!root.ok()) return root.status();
  ops::Identity(root.WithOpName("forever"), x[0]);
  return root.ToGraphDef();
}

}  // namespace minigraph
