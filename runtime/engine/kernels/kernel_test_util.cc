#include "runtime/engine/kernels/kernel_test_util.h"

#include "absl/strings/str_cat.h"
#include "core/allocator.h"
#include "runtime/cc/ops.h"
#include "runtime/engine/executor.h"
#include "runtime/engine/kernel_registry.h"
#include "runtime/engine/resource_mgr.h"
#include "runtime/graph/ops/standard_ops.h"
#include "unsupported/Eigen/CXX11/ThreadPool"

namespace minigraph {

absl::StatusOr<std::vector<Tensor>> RunKernel(const std::string& op_type,
                                              const std::vector<std::vector<Tensor>>& inputs,
                                              const std::map<std::string, AttrValue>& attrs,
                                              int intra_op_threads) {
  Scope root = Scope::NewRootScope();
  std::vector<std::vector<Output>> in;
  // Variants (objects a kernel made: lists, datasets) are fed; a Const
  // would hold only their encoding.
  std::vector<std::pair<std::string, Tensor>> feeds;
  int k = 0;
  for (const auto& list : inputs) {
    in.emplace_back();
    for (const Tensor& t : list) {
      const std::string name = absl::StrCat("input", k++);
      if (t.dtype() == DT_VARIANT) {
        in.back().push_back(ops::Placeholder(root.WithOpName(name), DT_VARIANT));
        feeds.emplace_back(name, t);
      } else {
        in.back().push_back(ops::Const(root.WithOpName(name), t));
      }
    }
  }
  Operation op = root.WithOpName("op").AddOp(op_type, in, attrs);
  MG_ASSIGN_OR_RETURN(GraphDef def, root.ToGraphDef());
  MG_ASSIGN_OR_RETURN(auto runner, GraphRunner::Create(def, nullptr, intra_op_threads));
  std::vector<std::string> fetches;
  for (int i = 0; i < op.num_outputs(); ++i) fetches.push_back(absl::StrCat("op:", i));
  std::vector<Tensor> out;
  MG_RETURN_IF_ERROR(runner->Run(feeds, fetches, {"op"}, &out));
  return out;
}

struct GraphRunner::State {
  explicit State(int threads) : pool(threads), device(&pool, threads) {}

  Eigen::ThreadPool pool;
  Eigen::ThreadPoolDevice device;
  Env* env = nullptr;
  std::unique_ptr<Graph> graph;
  std::vector<std::unique_ptr<OpKernel>> kernels;
  // Declared last, so that what the kernels made goes before them.
  ResourceMgr resources;
};

absl::StatusOr<std::unique_ptr<GraphRunner>> GraphRunner::Create(const GraphDef& def, Env* env,
                                                                 int threads) {
  auto state = std::make_unique<State>(threads);
  state->env = env != nullptr ? env : Env::Default();
  MG_ASSIGN_OR_RETURN(state->graph, Graph::Create(def, GlobalOpRegistry()));
  for (const Node& n : state->graph->nodes()) {
    MG_ASSIGN_OR_RETURN(auto kernel, GlobalKernelRegistry()->CreateKernel(n));
    state->kernels.push_back(std::move(kernel));
  }
  return std::unique_ptr<GraphRunner>(new GraphRunner(std::move(state)));
}

GraphRunner::GraphRunner(std::unique_ptr<State> state) : state_(std::move(state)) {}

GraphRunner::~GraphRunner() = default;

absl::Status GraphRunner::Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
                              const std::vector<std::string>& fetches,
                              const std::vector<std::string>& targets,
                              std::vector<Tensor>* outputs, absl::Duration timeout) {
  std::vector<TensorId> feed_ids, fetch_ids;
  Executor::Args args;
  for (const auto& [name, value] : feeds) {
    MG_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(name));
    feed_ids.push_back(std::move(id));
    args.feeds.push_back(value);
  }
  for (const std::string& name : fetches) {
    MG_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(name));
    fetch_ids.push_back(std::move(id));
  }
  std::vector<const OpKernel*> kernels;
  for (const auto& k : state_->kernels) kernels.push_back(k.get());
  MG_ASSIGN_OR_RETURN(auto ex, Executor::Create(state_->graph.get(), kernels, feed_ids,
                                                fetch_ids, targets));
  args.step.device = &state_->device;
  args.step.env = state_->env;
  args.step.resource_mgr = &state_->resources;
  args.step.allocator = DefaultAllocator();
  args.pool = &state_->pool;
  args.timeout = timeout;
  return ex->Run(args, outputs);
}

}  // namespace minigraph
