#include "runtime/engine/kernels/internal/function_runner.h"

#include <algorithm>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "runtime/engine/kernel_registry.h"
#include "runtime/graph/lower_while.h"
#include "runtime/graph/ops/standard_ops.h"

namespace minigraph {
namespace kernels_internal {

absl::StatusOr<std::unique_ptr<FunctionRunner>> FunctionRunner::Create(const Graph& caller,
                                                                       const NameAttrList& asked) {
  // The CPU's implementation of the function, as TensorFlow's
  // implementation selector would choose it.
  NameAttrList call = asked;
  call.set_name(CpuImplementation(caller.library(), asked.name()));
  // Instantiating a body makes the kernels of the calls in it, which
  // instantiate theirs: a function that reaches itself would never end.
  static thread_local std::vector<std::string> instantiating;
  if (std::find(instantiating.begin(), instantiating.end(), call.name()) != instantiating.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "function '", call.name(), "' calls itself (through ", absl::StrJoin(instantiating, " -> "),
        "); recursive functions are not supported"));
  }
  instantiating.push_back(call.name());
  absl::Cleanup pop = [] { instantiating.pop_back(); };
  auto r = std::unique_ptr<FunctionRunner>(new FunctionRunner);
  MG_ASSIGN_OR_RETURN(r->f_, InstantiateFunction(caller.library(), call, GlobalOpRegistry()));
  MG_RETURN_IF_ERROR(LowerWhileLoops(&r->f_.graph, GlobalOpRegistry(), &caller.library()));
  absl::StatusOr<std::unique_ptr<Graph>> graph =
      Graph::Create(r->f_.graph, caller.shared_library(), GlobalOpRegistry());
  if (!graph.ok()) {
    return absl::Status(graph.status().code(),
                        absl::StrCat("in function '", r->f_.name, "': ", graph.status().message()));
  }
  r->graph_ = *std::move(graph);
  std::vector<const OpKernel*> kernels;
  for (const Node& node : r->graph_->nodes()) {
    absl::StatusOr<std::unique_ptr<OpKernel>> k = GlobalKernelRegistry()->CreateKernel(node);
    if (!k.ok()) {
      return absl::Status(k.status().code(),
                          absl::StrCat("in function '", r->f_.name, "': ", k.status().message()));
    }
    kernels.push_back(k->get());
    r->kernels_.push_back(*std::move(k));
  }
  std::vector<TensorId> feeds, fetches;
  for (const std::string& a : r->f_.args) {
    MG_ASSIGN_OR_RETURN(feeds.emplace_back(), ParseTensorName(a));
  }
  for (const std::string& t : r->f_.rets) {
    MG_ASSIGN_OR_RETURN(fetches.emplace_back(), ParseTensorName(t));
  }
  MG_ASSIGN_OR_RETURN(r->executor_,
                      Executor::Create(r->graph_.get(), kernels, feeds, fetches, r->f_.targets));
  return r;
}

absl::Status FunctionRunner::Run(OpKernelContext* ctx, std::vector<Tensor> args,
                                 std::vector<Tensor>* rets) const {
  if (args.size() != f_.arg_types.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "function '", f_.name, "' takes ", f_.arg_types.size(), " arguments, got ", args.size()));
  }
  Executor::Args run;
  run.feeds = std::move(args);
  run.step = ctx->step_context();
  absl::Status s = executor_->Run(run, rets);
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat("in function '", f_.name, "': ", s.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<FunctionRunner>> RunnerFor(OpKernelConstruction* c,
                                                          const std::string& attr) {
  auto it = c->def().attr().find(attr);
  if (it == c->def().attr().end() || it->second.value_case() != AttrValue::kFunc) {
    return absl::InvalidArgumentError(absl::StrCat("attr '", attr, "' must name a function"));
  }
  return FunctionRunner::Create(c->node().graph(), it->second.func());
}

}  // namespace kernels_internal
}  // namespace minigraph
